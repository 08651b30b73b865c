"""What the macros of a node's sections are made of: values read from the op, the node and `sub`.

opkit.cop.source.cop defines the macros from them (opkit.cop.source.macros.section_macros), and
opkit.cop.source.section_memo names a kept expansion by them: one function, so the two cannot
disagree about what an expansion depends on.
"""

from __future__ import annotations


def _dtype(variable):
    """Return the dtype of a variable's type, or None for types without one."""
    return getattr(variable.type, "dtype", None)


def _params_type_info(params_type):
    """Return the PARAMS_TYPE struct name and field dtypes of a ParamsType (nothing for other types)."""
    struct_name = getattr(params_type, "struct_name", None)
    if struct_name is None:
        return {}
    dtypes = {field: getattr(t, "dtype", None) for field, t in zip(params_type.fields, params_type.types)}
    return {"params_struct": struct_name(), "param_dtypes": dtypes}


def macro_values(op, node, name, sub=None, inputs=None, outputs=None) -> dict:
    """Return the keyword arguments of section_macros for `op`'s sections of `node` under `name`."""
    return dict(name=name,
                input_dtypes=[_dtype(v) for v in node.inputs],
                output_dtypes=[_dtype(v) for v in node.outputs],
                input_names=inputs, output_names=outputs,
                fail=None if sub is None else sub.get("fail"),
                params=None if sub is None else sub.get("params"),
                check_input=op.check_input, **_params_type_info(op.params_type))
