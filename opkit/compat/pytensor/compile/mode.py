"""pytensor.compile.mode: ``Mode`` and ``get_mode`` with PyTensor's linker and mode names.

PyTensor's linkers map onto opkit's: ``"cvm"``/``"cvm_nogc"`` (the C virtual machine) and ``"c"``
onto the whole-graph C linker (FAST_RUN's), ``"vm"``/``"vm_nogc"`` and ``"c|py"``/``"c|py_nogc"``
onto the module-per-node C linker (``"cop"``), ``"py"`` onto perform. The modes ``"CVM"``, ``"C"``,
``"VM"`` and ``"C|PY"`` are those linkers with FAST_RUN's rewrites. opkit has no numba, JAX, PyTorch
or MLX backend: those names raise NotImplementedError.
"""

from opkit.link import mode as _mode

LINKERS = {"cvm": "c", "cvm_nogc": "c", "c": "c", "vm": "cop", "vm_nogc": "cop", "c|py": "cop",
           "c|py_nogc": "cop", "py": "py", "cop": "cop"}
MODES = {"CVM": "cvm", "C": "c", "VM": "vm", "C|PY": "c|py"}
_OTHER_BACKENDS = ("numba", "jax", "pytorch", "mlx")


def linker_name(linker):
    """Return opkit's name of PyTensor's linker `linker` (an instance passes through)."""
    if not isinstance(linker, str):
        return linker
    if linker.lower() in _OTHER_BACKENDS:
        raise NotImplementedError(f"PyTensor's {linker} linker: opkit compiles C only (no {linker} backend)")
    if linker not in LINKERS:
        raise ValueError(f"unknown linker {linker!r}; PyTensor's names opkit maps: {', '.join(LINKERS)}")
    return LINKERS[linker]


class Mode(_mode.Mode):
    """opkit's Mode, taking PyTensor's linker names (``Mode(linker="cvm")``) and ``optimizer=None``."""

    def __init__(self, linker=None, optimizer="fast_run", excluded=(), device=None, db=None):
        super().__init__(linker_name("cvm" if linker is None else linker),
                         "fast_run" if optimizer == "default" else optimizer, excluded, device)


def get_mode(mode):
    """Return the Mode of a PyTensor mode name (``"CVM"``, ``"FAST_RUN"``...), opkit's for opkit's names."""
    if isinstance(mode, str) and mode.upper() in (*MODES, *map(str.upper, _OTHER_BACKENDS)):
        return Mode(linker=MODES.get(mode.upper(), mode.lower()))
    return _mode.get_mode(mode)


__all__ = ["Mode", "get_mode"]


def get_default_mode():
    """Return the Mode of ``config.mode`` (FAST_RUN unless set)."""
    return get_mode(None)


__all__ += ["get_default_mode"]
