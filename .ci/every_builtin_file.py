"""Compile and run functions that read every C section file, header and template opkit ships; fail on any unread.

Run by .ci/wheel_check in a fresh venv holding opkit-sdk's wheel (not editable), with an empty OPKIT_COMPILEDIR,
so that nothing is served from the rendered-text cache: a file the wheel lacks fails its function, and a file no
function reads (one the script does not reach yet) fails the script, so a new built-in file must be added here.

    python .ci/every_builtin_file.py SOURCE_TREE_OPKIT_DIR
"""

import os
import pathlib
import sys

SUFFIXES = (".c", ".h", ".j2", ".cu")
# Files no compiled function reads, and what reads them instead (checked by name below).
NOT_COMPILED = {
    "templates/bridge_pytensor.c.j2": "opkit.bridge.pytensor, which needs pytensor (tests/bridge/test_bridge_pytensor.py)",
    "templates/blas/": "ops that call a BLAS #include them (opkit.cop.blas); the compiler reads them, not Python",
    "templates/nvrtc/": "NVRTC pre-includes it in kernels compiled for a GPU: the cuda extra, which this wheel's venv "
                        "lacks (tests/gpu/test_nvrtc.py, tests/gpu/test_kernels_section.py)",
}
opened = set()


def _record(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        opened.add(os.path.realpath(os.fsdecode(args[0])))


def run_functions():
    """Compile and check graphs that reach every built-in op's C and every type's C."""
    _built_in_ops()
    _tensor_language()
    _params_and_c_data()
    _big_graph()
    _raw_handler()
    _gpu_interpreted()


def _built_in_ops():
    """Every built-in op's section files and templates, in one function, against numpy."""
    import numpy as np

    import opkit
    import opkit.scalar
    import opkit.tensor as ot
    from opkit.core.builtin_ops import view_op

    x, y, m = ot.dvector("x"), ot.dvector("y"), ot.dmatrix("m")
    i = ot.lvector("i")
    n = ot.lscalar("n")
    a, b, c = np.arange(1.0, 4.0), np.array([0.5, -1.0, 2.0]), np.arange(6.0).reshape(2, 3)
    outputs = [
        ot.exp(x * y + 1) - ot.log1p(abs(x)),              # fused elementwise, scalar math
        ot.switch((x > y) & (x < 3) | ~(y >= 0), x, y),    # comparisons, logic, switch
        m + x,                                             # broadcasting
        m.sum(axis=0), ot.max(m, axis=1), ot.argmax(m, axis=1), (m * 2).mean(),  # reductions
        m.reshape((-1,)), m.reshape((m.shape[1], m.shape[0])), m.T, m[1:, ::2], m[0],  # shapes and views
        ot.alloc(x, 2, 3), ot.zeros((n, 2)), ot.arange(n), ot.concatenate([x, y]),
        ot.specify_shape(x, (3,)), x.shape, m.shape[1], ot.cast(i, "float64") + 1, x,
        m.reshape((n - 1, -1)).shape, (x * y).shape, view_op(x),
        ot.alloc(y, 2, n - 1).shape,  # shape inference: resolved -1, checks
        ot.exp(opkit.scalar.as_scalar(m.sum())),  # scalar_from_tensor.c, tensor_from_scalar.c
        ot.dot(m, x),  # dot.c
    ]
    f = opkit.function([x, y, m, i, n], outputs)
    got = f(a, b, c, np.array([1, 2, 3]), 4)
    want = [np.exp(a * b + 1) - np.log1p(abs(a)), np.where((a > b) & (a < 3) | ~(b >= 0), a, b), c + a,
            c.sum(axis=0), c.max(axis=1), c.argmax(axis=1), (c * 2).mean(), c.reshape(-1), c.reshape(3, 2), c.T,
            c[1:, ::2], c[0], np.broadcast_to(a, (2, 3)), np.zeros((4, 2)), np.arange(4), np.concatenate([a, b]),
            a, np.array([3]), 3, np.array([2.0, 3.0, 4.0]), a, np.array([3, 2]), np.array([3]), a, np.array([2, 3]),
            np.exp(c.sum()), c @ a]
    for index, (value, expected) in enumerate(zip(got, want)):
        np.testing.assert_allclose(value, expected, err_msg=f"output {index}")

    # a gradient summed to a shape broadcast when the graph ran (sum_to_shape.c)
    summed = opkit.function([x, y], opkit.grad((x * y).sum(), x))(np.array([2.0]), b)
    np.testing.assert_allclose(summed, [b.sum()])

    # indexed updates (inc_subtensor.c, inc_subtensor.c.j2)
    updated = opkit.function([m, x], [ot.inc_subtensor(m[:, 1:], 1.0), ot.set_subtensor(m[0], x)])(c, a)
    np.testing.assert_allclose(updated[0], np.concatenate([c[:, :1], c[:, 1:] + 1], axis=1))
    np.testing.assert_allclose(updated[1], np.stack([a, c[1]]))


def _tensor_language():
    """The tensor language's C ops (sorting/, shapes/ diagonals, repeat, take, advanced indexing), against numpy."""
    import numpy as np

    import opkit
    import opkit.tensor as ot

    x, m, i = ot.dvector("x"), ot.dmatrix("m"), ot.lvector("i")
    a, c, k = np.array([3.0, -1.0, 2.0]), np.arange(6.0).reshape(2, 3), np.array([2, 0, 2])
    outputs = [
        ot.sort(m, axis=1), ot.argsort(x), opkit.grad(ot.sort(x)[0] * 2, x),  # sort.c, argsort.c, take_along_axis.c
        ot.cumsum(m, axis=0), ot.cumprod(x),                                     # cumulative.c
        ot.diag(x), ot.diagonal(m, 1), ot.eye(2, 3, 1),                         # alloc_diag.c, extract_diag.c, eye.c
        ot.repeat(x, 2), ot.take(m, i, axis=1),                                  # repeat.c, take.c
        x[i], ot.inc_subtensor(x[i], 1.0),                 # advanced_subtensor.c, advanced_inc_subtensor.c
    ]
    got = opkit.function([x, m, i], outputs)(a, c, k)
    bumped = a.copy()
    np.add.at(bumped, k, 1.0)
    want = [np.sort(c, axis=1), np.argsort(a), 2.0 * (a == a.min()), np.cumsum(c, axis=0), np.cumprod(a), np.diag(a),
            np.diagonal(c, 1), np.eye(2, 3, 1), np.repeat(a, 2), np.take(c, k, axis=1), a[k], bumped]
    for index, (value, expected) in enumerate(zip(got, want)):
        np.testing.assert_allclose(value, expected, err_msg=f"tensor language output {index}")


def _params_and_c_data():
    """A ParamsType with scalar, enum and Generic fields, and a CDataType passed between nodes."""
    import numpy as np

    import opkit
    import opkit.scalar
    import opkit.tensor as ot
    from opkit import Apply, CDataType, EnumList, Generic, Op, ParamsType

    x, y = ot.dvector("x"), ot.dvector("y")
    a, b = np.arange(1.0, 4.0), np.array([0.5, -1.0, 2.0])

    class Axpy(Op):
        """alpha * x + y or alpha * x * y, with its parameters in a ParamsType (scalar and enum fields)."""

        __props__ = ("alpha", "mode")
        params_type = ParamsType(alpha=opkit.scalar.float64, mode=EnumList("ADD", "MUL"), tag=Generic())

        def __init__(self, alpha, mode):
            self.alpha, self.mode, self.tag = alpha, mode, "any Python object"

        def make_node(self, x, y):
            return Apply(self, [ot.as_tensor_variable(x), ot.as_tensor_variable(y)], [x.type()])

        def c_code(self, node, name, inputs, outputs, sub):
            (x, y), (z,), params = inputs, outputs, sub["params"]
            return (f"Py_XDECREF({z}); {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), NPY_FLOAT64, 0);"
                    f"if (!{z}) {sub['fail']}"
                    f"for (npy_intp k = 0; k < PyArray_DIM({x}, 0); ++k) {{"
                    f"  double p = ((double*)PyArray_DATA({x}))[k], q = ((double*)PyArray_DATA({y}))[k];"
                    f"  ((double*)PyArray_DATA({z}))[k] = {params}->mode == MUL ? {params}->alpha * p * q"
                    f"                                                          : {params}->alpha * p + q; }}")

        def c_code_cache_version(self):
            return (1,)

    g = opkit.function([x, y], [Axpy(2.0, "MUL")(x, y), Axpy(3.0, "ADD")(x, y)])
    product, total = g(a, b)
    np.testing.assert_allclose(product, 2.0 * a * b)
    np.testing.assert_allclose(total, 3.0 * a + b)

    box = CDataType("double*", freefunc="free")  # an opaque pointer passed from one node to the next

    class Pack(Op):
        __props__ = ()

        def make_node(self, v):
            return Apply(self, [opkit.scalar.as_scalar(v)], [box()])

        def c_code(self, node, name, inputs, outputs, sub):
            return (f"{outputs[0]} = (double*)malloc(sizeof(double));"
                    f"if (!{outputs[0]}) {{ PyErr_NoMemory(); {sub['fail']} }}"
                    f"*{outputs[0]} = {inputs[0]};")

        def c_code_cache_version(self):
            return (1,)

    class Unpack(Op):
        __props__ = ()

        def make_node(self, v):
            return Apply(self, [v], [opkit.scalar.float64()])

        def c_code(self, node, name, inputs, outputs, sub):
            return f"{outputs[0]} = 2 * *{inputs[0]};"

        def c_code_cache_version(self):
            return (1,)

    s = opkit.scalar.float64("s")
    assert opkit.function([s], Unpack()(Pack()(s)))(1.5) == 3.0


def _big_graph():
    """A big graph is built from per-node objects (node.cpp.j2); large loops run on threads (threads.inc.j2)."""
    import numpy as np

    import opkit
    import opkit.tensor as ot

    x = ot.dvector("x")
    big = x
    for k in range(60):
        big = ot.exp(big * 0.5) - ot.sqrt(abs(big) + k)
    h = opkit.function([x], big)
    data = np.linspace(0, 1, 200_000)
    expected = data
    for k in range(60):
        expected = np.exp(expected * 0.5) - np.sqrt(abs(expected) + k)
    np.testing.assert_allclose(h(data), expected)


def _raw_handler():
    """The bridges' raw-buffer handler (templates/raw_call.cpp and slot_call.h, which the XLA handler shares)."""
    from opkit.bridge.slot_call import raw_module

    raw_module()


def _gpu_interpreted():
    """Built-in GPU ops through the CUDA interpreter (templates/gpu/, templates/gpu_ops/, gpu/ops/*.c)."""
    import numpy as np

    import opkit
    import opkit.gpu
    import opkit.tensor as ot

    x, y, m = ot.fvector("x"), ot.fvector("y"), ot.fmatrix("m")
    a, b = np.arange(1.0, 4.0, dtype="float32"), np.array([0.5, -1.0, 2.0], dtype="float32")
    c = np.arange(6.0, dtype="float32").reshape(2, 3)
    # a gradient: GpuAlloc, GpuSumToShape, GpuDimShuffle, GpuReshape
    grads = opkit.grad(ot.sum(ot.dot(m, x) * 2) + ot.sum(m.reshape((-1,))), [m, x])
    outputs = [(x * y + 1) * 2 - x, m.sum(axis=0), ot.max(m, axis=1), m.mean(), ot.dot(m, x), *grads]
    f = opkit.function([x, y, m], outputs, mode=opkit.Mode(device="cuda-interpret"))
    want = [(a * b + 1) * 2 - a, c.sum(axis=0), c.max(axis=1), c.mean(), c @ a, 2 * np.outer(np.ones(2), a) + 1,
            2 * c.sum(axis=0)]
    for index, (value, expected) in enumerate(zip(f(a, b, c), want)):
        np.testing.assert_allclose(value, expected, rtol=1e-6, err_msg=f"GPU output {index}")
    from opkit.core.builtin_ops import Shape_i, shape_op

    g = opkit.gpu.matrix("g", dtype="float32")  # a GPU input: its shape is read on the GPU (gpu_shape*.c)
    lengths = opkit.function([g], [shape_op(g), Shape_i(1)(g)], mode=opkit.Mode(device="cuda-interpret"))(c)
    np.testing.assert_array_equal(lengths[0], c.shape)
    assert lengths[1] == c.shape[1], lengths


def scaffold(directory):
    """Run `opkit new` (in this process, so its reads are seen): it renders templates/new."""
    import contextlib
    import io

    from opkit.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["new", "every_file_ops", "--cuda", "--directory", directory])
    if status != 0:
        sys.exit("opkit new failed")


def _source_files(source):
    """Return the files of the source tree's opkit/ (relative): those git tracks or would (not ignored), else all."""
    import subprocess

    listed = subprocess.run(["git", "-C", str(source), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                             "--", "."], capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        return [name for name in os.fsdecode(listed.stdout).split("\0") if name]
    return [str(p.relative_to(source)) for p in source.rglob("*") if p.is_file()]


def main(source_opkit):
    import tempfile

    import opkit

    sys.addaudithook(_record)
    package = pathlib.Path(opkit.__file__).resolve().parent
    source = pathlib.Path(source_opkit).resolve()
    if package == source:
        sys.exit(f"{sys.argv[0]}: opkit is imported from the source tree {source}; run this against an installed wheel")
    wanted = sorted(name for name in _source_files(source) if name.endswith(SUFFIXES))
    shipped = sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.suffix in SUFFIXES)
    missing = sorted(set(wanted) - set(shipped))
    if missing:
        sys.exit(f"the installed opkit at {package} lacks {len(missing)} file(s) of the source tree: {', '.join(missing)}")
    run_functions()
    with tempfile.TemporaryDirectory() as directory:
        scaffold(directory)
    unread = [name for name in wanted if str(package / name) not in opened
              and not any(name.startswith(prefix) for prefix in NOT_COMPILED)]
    scaffold_files = [name for name in wanted if name.startswith("templates/new/")]
    if unread:
        sys.exit(f"no function read {len(unread)} built-in file(s): {', '.join(unread)}\n"
                 f"reach them in {__file__} (or name what reads them in NOT_COMPILED)")
    print(f"{sys.argv[0]}: {len(wanted)} built-in section files, headers and templates: every one read "
          f"({len(scaffold_files)} by `opkit new`; {', '.join(NOT_COMPILED)} "
          f"by what NOT_COMPILED names), from {package}")


if __name__ == "__main__":
    main(sys.argv[1])
