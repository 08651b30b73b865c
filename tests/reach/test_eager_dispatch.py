"""op.compute's C dispatcher (opkit.link.eager, templates/fastcall.cpp): warm calls looked up on (op, input types) in C.

The dispatcher is Op.compute once a C call path exists. It serves an op's call only
when every argument is an exact ndarray in native byte order with the type number
and ndim of an entry made for that op object; everything else (numpy scalars, Python
numbers, lists, subclasses, byte-swapped arrays, an op or types not seen) goes to the
Python compute. The tests check that no argument ever reaches a function compiled for
other types, with every dtype, ndim and layout, interleaved, from 8 threads.

Few compiled modules: the every-dtype checks use perform-only ops (their functions
have the same C call path, and nothing to compile); the built-in ops use a fixed pool.
"""

import pathlib
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor  # noqa: F401  (imports opkit.link, which Op.compute needs)
from opkit.core.op import EAGER_MEMO, Op, python_compute
from helpers.section_ops import _times_op
from opkit.core.tensor.elementwise.basic import add, maximum, mul
from opkit.core.tensor.types.type import TensorType
from opkit.link import eager
from opkit.link.eager import input_types

from conftest import ROOT

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")
EXAMPLE_C = ROOT / "examples" / "vector_times_vector" / "vector_times_vector" / "vectorTimesVector.c"


class Doubled(Op):
    """x + x in the node's own dtype, by perform: a function served the wrong types shows it."""

    __props__ = ()

    def make_node(self, x):
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        expected = (np.dtype(node.inputs[0].type.dtype), node.inputs[0].type.ndim)
        if (x.dtype, x.ndim) != expected:
            raise AssertionError(f"perform of a node for {expected} got {(x.dtype, x.ndim)}")
        output_storage[0][0] = np.asarray(x + x, dtype=node.outputs[0].type.dtype)


class Combined(Op):
    """x + 2*y (numpy's result dtype) by perform, for pairs of types."""

    __props__ = ()

    def make_node(self, x, y):
        dtype = np.result_type(x.type.dtype, y.type.dtype)
        out = TensorType(dtype.name, (None,) * max(x.type.ndim, y.type.ndim))()
        return opkit.Apply(self, [x, y], [out])

    def perform(self, node, inputs, output_storage):
        for value, variable in zip(inputs, node.inputs):
            if (value.dtype, value.ndim) != (np.dtype(variable.type.dtype), variable.type.ndim):
                raise AssertionError(f"perform of {variable.type} got {value.dtype}, {value.ndim}-d")
        x, y = inputs
        output_storage[0][0] = np.asarray(x + y + y, dtype=node.outputs[0].type.dtype)


def _dispatcher():
    """The C dispatcher, installed as Op.compute by a first compute (a C call path exists in tests)."""
    Doubled().compute(np.zeros(1))
    assert eager._dispatcher, "no C dispatcher: Op.compute is still Python"
    assert Op.__dict__["compute"] is eager._dispatcher
    return eager._dispatcher


def _array(dtype, ndim, seed=0):
    rng = np.random.default_rng(seed)
    shape = (2, 2, 3)[3 - ndim:]
    values = rng.integers(0, 3, size=shape) if dtype == "bool" else rng.integers(-5, 40, size=shape)
    if np.dtype(dtype).kind == "u":
        values = np.abs(values)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.integers(-3, 3, size=shape)
    return np.asarray(values).astype(dtype)


def _served(op, *values):
    """Return the function the C path would call for `values`, and the one the Python memo holds."""
    entry = EAGER_MEMO.get(id(op))
    memo = entry[1].get(input_types(values)) if entry is not None else None
    return eager._dispatcher._lookup(op, *values), memo


def test_every_dtype_and_ndim_reaches_the_function_of_its_own_types_interleaved():
    dispatcher = _dispatcher()
    op = Doubled()
    inputs = [_array(dtype, ndim, seed) for seed, (dtype, ndim) in
              enumerate((d, n) for d in DTYPES for n in (0, 1, 2))]
    order = np.random.default_rng(7).permutation(len(inputs) * 3) % len(inputs)
    served_by_c = 0
    for index in order:
        a = inputs[index]
        result = op.compute(a)
        assert result.dtype == a.dtype and result.shape == a.shape
        np.testing.assert_array_equal(result, a + a)
        from_c, memo = _served(op, a)
        assert from_c is None or from_c is memo  # an entry of exactly these types, or none (then Python)
        served_by_c += from_c is not None
    # 42 signatures, at most 16 per op in C: the others are served by the Python memo
    assert 16 <= served_by_c < len(order)
    assert dispatcher._ops() >= 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_pairs_of_types_never_share_a_function(dtype):
    _dispatcher()
    op = Combined()
    partners = [("float64", 1), (dtype, 1), (dtype, 0), (dtype, 2), ("int8", 1)]
    arrays = [_array(d, n, k) for k, (d, n) in enumerate(partners)]
    pairs = [(x, y) for x in arrays for y in arrays[:3]]
    for x, y in pairs + pairs[::-1]:
        result = op.compute(x, y)
        expected = x + y + y
        assert result.dtype == np.result_type(x.dtype, y.dtype) and result.shape == expected.shape
        np.testing.assert_array_equal(result, expected.astype(result.dtype))
        from_c, memo = _served(op, x, y)
        assert from_c is None or from_c is memo


def test_values_that_are_not_native_exact_arrays_go_to_python_and_are_converted_as_before():
    _dispatcher()
    op = Doubled()
    a = np.arange(4.0)
    np.testing.assert_array_equal(op.compute(a), a + a)
    assert _served(op, a)[0] is not None  # warm: the C path

    swapped = a.astype(">f8")
    readonly = a.copy()
    readonly.flags.writeable = False
    masked = np.ma.masked_array(a, mask=[0, 1, 0, 0])
    for value in (swapped, a.tolist(), np.float64(2.5), 2.5, masked, np.float32(1.0)):
        assert eager._dispatcher._lookup(op, value) is None, type(value)
    np.testing.assert_array_equal(op.compute(swapped), a + a)
    np.testing.assert_array_equal(op.compute(a.tolist()), a + a)
    assert op.compute(np.float64(2.5)) == 5.0 and op.compute(np.float64(2.5)).dtype == np.float64
    # read-only, strided, reversed, Fortran-ordered and broadcast (zero-stride) inputs are arrays of these
    # types: served by C, and the inputs are never written
    matrix = np.arange(12.0).reshape(3, 4)
    for value in (readonly, a[::2], a[::-1], np.broadcast_to(np.float64(3.0), (5,))):
        assert _served(op, value)[0] is not None
        np.testing.assert_array_equal(op.compute(value), value + value)
    np.testing.assert_array_equal(readonly, np.arange(4.0))
    for value in (np.asfortranarray(matrix), matrix.T, matrix[:, ::3]):
        np.testing.assert_array_equal(op.compute(value), value + value)
        assert _served(op, value)[0] is _served(op, matrix)[0] is not None
    # Python numbers next to arrays are weak (NEP 50): the Python path, as numpy
    for x, y, expected in ((np.arange(3, dtype=np.int8), 5, np.arange(3, dtype=np.int8) + 5),
                           (np.arange(3.0, dtype=np.float32), 0.5, np.arange(3.0, dtype=np.float32) + 0.5)):
        assert eager._dispatcher._lookup(add, x, y) is None
        result = add.compute(x, y)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)


def test_outputs_are_fresh_arrays_every_call():
    _dispatcher()
    a, b = np.arange(5.0), np.full(5, 2.0)
    first = add.compute(a, b)
    outputs = [add.compute(a, b) for _ in range(4)]
    assert _served(add, a, b)[0] is not None
    for k, out in enumerate([first, *outputs]):
        for other in outputs[k:]:
            assert out is other or not np.shares_memory(out, other)
        assert not np.shares_memory(out, a) and not np.shares_memory(out, b)
    first[:] = -1.0
    np.testing.assert_array_equal(add.compute(a, b), a + b)


# A fixed pool of compiled signatures (op, dtypes, ndim): few modules, every call drawn from it.
POOL = [(add, ("float64", "float64"), 1), (add, ("int8", "int8"), 1), (add, ("float64", "float64"), 2),
        (mul, ("float32", "float32"), 0), (mul, ("uint16", "uint16"), 1), (maximum, ("bool", "bool"), 1),
        (maximum, ("float64", "float64"), 1), (add, ("complex128", "complex128"), 1), (add, ("int8", "float32"), 1)]
REFERENCE = {add: np.add, mul: np.multiply, maximum: np.maximum}
LAYOUTS = ("contiguous", "strided", "reversed", "readonly", "fortran", "broadcast", "swapped", "list", "scalar")


def _laid_out(value, layout):
    """`value` (an array) in `layout`: the same numbers, another memory layout or another kind of object."""
    if layout == "strided":
        wide = np.repeat(value[..., None], 2, axis=-1) if value.ndim else value.reshape(1)
        return wide[..., 0] if value.ndim else value
    if layout == "reversed":
        return value[::-1].copy()[::-1] if value.ndim else value
    if layout == "readonly":
        copy = value.copy()
        copy.flags.writeable = False
        return copy
    if layout == "fortran":
        return np.asfortranarray(value)
    if layout == "broadcast":
        return np.broadcast_to(value, value.shape) if value.ndim else value
    if layout == "swapped":
        return value.astype(value.dtype.newbyteorder())
    if layout == "list":  # only where the list converts back to these types (no new module to compile)
        listed = value.tolist()
        return listed if value.ndim and np.asarray(listed).dtype == value.dtype else value
    if layout == "scalar":
        return value[()] if value.ndim == 0 else value
    return value


def _pool_values(signature, seed):
    op, dtypes, ndim = signature
    return [_array(dtype, ndim, seed + k) for k, dtype in enumerate(dtypes)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(range(len(POOL))), st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS),
                          st.integers(0, 3)), min_size=1, max_size=10))
def test_builtin_ops_on_any_sequence_of_types_and_layouts_equal_numpy(calls):
    _dispatcher()
    kept = []
    for index, first_layout, second_layout, seed in calls:
        op, dtypes, ndim = POOL[index]
        x, y = _pool_values(POOL[index], seed)
        args = [_laid_out(x, first_layout), _laid_out(y, second_layout)]
        expected = np.asarray(REFERENCE[op](*args))
        result = op.compute(*args)
        assert isinstance(result, np.ndarray) and result.shape == expected.shape
        assert result.dtype == expected.dtype.newbyteorder("="), (op, dtypes, first_layout, second_layout)
        np.testing.assert_array_equal(result, expected)
        if all(isinstance(v, np.ndarray) and v.dtype.isnative for v in args):
            from_c, memo = _served(op, *args)
            assert from_c is None or from_c is memo
        for value, snapshot in kept:  # no output is written by a later call
            np.testing.assert_array_equal(value, snapshot)
        kept.append((result, np.copy(result)))


@pytest.mark.parametrize("number", [3, 0.5])
def test_python_numbers_interleaved_with_warm_array_calls_follow_nep50(number):
    _dispatcher()
    x, y = _array("float64", 1, 1), _array("float64", 1, 2)
    small = _array("int8", 1, 3)
    calls = [(x, number), (small, number)] if isinstance(number, int) else [(x, number), (number, x)]
    for _ in range(2):
        for args in calls:
            np.testing.assert_array_equal(add.compute(x, y), x + y)
            expected = np.add(*args)
            result = add.compute(*args)
            assert result.dtype == expected.dtype
            np.testing.assert_array_equal(result, expected)
            assert eager._dispatcher._lookup(add, *args) is None
            np.testing.assert_array_equal(add.compute(small, small), small + small)


def test_eight_threads_calling_compute_concurrently_get_their_own_correct_results():
    _dispatcher()
    signatures = [POOL[0], POOL[1], POOL[3], POOL[6]]
    for signature in signatures:  # warm
        op, _, _ = signature
        op.compute(*_pool_values(signature, 0))
    doubled = Doubled()
    barrier = threading.Barrier(8)
    failures = []

    def work(thread_index):
        try:
            barrier.wait()
            for step in range(150):
                signature = signatures[(thread_index + step) % len(signatures)]
                op = signature[0]
                x, y = _pool_values(signature, thread_index + step % 3)
                result = op.compute(x, y)
                expected = REFERENCE[op](x, y)
                if result.dtype != expected.dtype or not np.array_equal(result, expected):
                    failures.append((thread_index, step, signature, result, expected))
                a = _array(DTYPES[(thread_index * 3 + step) % len(DTYPES)], step % 3, step)
                if not np.array_equal(doubled.compute(a), np.asarray(a + a, dtype=a.dtype)):
                    failures.append((thread_index, step, "doubled", a.dtype))
                if thread_index == 7 and step % 50 == 49:  # what the memos' bound does, mid-flight
                    EAGER_MEMO.clear()
                    eager._dispatcher._clear()
        except Exception as exc:  # reported below with the thread's index
            failures.append((thread_index, repr(exc)))

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: between a lookup and its call
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(previous)
    assert failures == []


def test_an_op_created_again_after_its_c_file_changed_is_not_served_the_old_entry(tmp_path):
    _dispatcher()
    c_file = tmp_path / "op.c"
    c_file.write_text(EXAMPLE_C.read_text())
    op_class = _times_op(c_file)
    a, b = np.arange(1.0, 6.0), np.full(5, 10.0)
    old = op_class()
    for _ in range(2):
        np.testing.assert_array_equal(old.compute(a, b), a * b)
    assert _served(old, a, b)[0] is not None  # the old op is served by C
    c_file.write_text(c_file.read_text().replace("x_ptr[i * x_str] * y_ptr[i * y_str]",
                                                 "x_ptr[i * x_str] + y_ptr[i * y_str]"))
    new = op_class()
    assert new == old and eager._dispatcher._lookup(new, a, b) is None  # equal by props, not the same entry
    for _ in range(2):
        np.testing.assert_array_equal(new.compute(a, b), a + b)
        np.testing.assert_array_equal(old.compute(a, b), a * b)
    assert _served(new, a, b)[0] is not _served(old, a, b)[0]


def test_a_redefined_python_op_class_is_not_served_the_old_class_s_entry():
    _dispatcher()

    def make(factor):
        class Scale(Op):
            __props__ = ()

            def make_node(self, x):
                return opkit.Apply(self, [x], [x.type()])

            def perform(self, node, inputs, output_storage):
                output_storage[0][0] = inputs[0] * factor

        return Scale()

    a = np.arange(3.0)
    first = make(2.0)
    for _ in range(2):
        np.testing.assert_array_equal(first.compute(a), a * 2)
    second = make(3.0)
    assert second == second and eager._dispatcher._lookup(second, a) is None
    for _ in range(2):
        np.testing.assert_array_equal(second.compute(a), a * 3)
        np.testing.assert_array_equal(first.compute(a), a * 2)


def test_errors_from_a_warm_call_are_the_first_call_s():
    _dispatcher()
    a, short = np.ones(3), np.ones(2)
    messages = []
    for _ in range(3):  # the first call compiles (Python path); the next ones are served by C
        with pytest.raises(ValueError) as info:
            add.compute(a, short)
        messages.append(str(info.value))
    assert eager._dispatcher._lookup(add, a, short) is not None
    assert messages[0] == messages[1] == messages[2]
    assert "shape" in messages[0].lower() or "broadcast" in messages[0].lower(), messages[0]
    with pytest.raises(TypeError, match=r"compute\(\) got an unexpected keyword argument 'out'"):
        add.compute(a, a, out=a)
    with pytest.raises(TypeError, match=r"Doubled\.compute: the op does not take inputs of types") as refused:
        Doubled().compute(a, a)
    assert isinstance(refused.value.__cause__, TypeError)  # make_node's own error is kept as the cause


def test_the_dispatcher_is_a_method_of_every_op_and_keeps_the_python_compute_s_face():
    dispatcher = _dispatcher()
    a = np.arange(3.0)
    assert Op.compute is dispatcher and dispatcher.__wrapped__ is python_compute
    assert dispatcher.__doc__ == python_compute.__doc__ and dispatcher.__name__ == "compute"
    bound = add.compute
    np.testing.assert_array_equal(bound(a, a), a + a)
    np.testing.assert_array_equal(Op.compute(add, a, a), a + a)
    np.testing.assert_array_equal(type(add).compute(add, a, a), a + a)
    with pytest.raises(TypeError):
        Op.compute()


def test_an_op_s_code_identity_is_the_same_with_the_dispatcher_installed_and_without():
    import subprocess

    from opkit.core.code_identity import class_identity, python_identity

    _dispatcher()
    here = [python_identity(add), python_identity(Doubled()), class_identity(Op)]
    script = ("import sys; sys.path[:0] = sys.argv[1:]; import opkit.tensor\n"
              "from opkit.core.op import Op\nfrom opkit.core.tensor.elementwise.basic import add\n"
              "from opkit.core.code_identity import class_identity, python_identity\n"
              "from test_eager_dispatch import Doubled\n"
              "assert 'EagerCompute' not in type(Op.__dict__['compute']).__name__\n"
              "print(python_identity(add), python_identity(Doubled()), class_identity(Op))")
    result = subprocess.run([sys.executable, "-c", script, str(pathlib.Path(__file__).parent), str(ROOT / "tests")],
                            capture_output=True, text=True, check=True, timeout=300)
    assert result.stdout.split() == here
