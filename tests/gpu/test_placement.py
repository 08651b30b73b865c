"""Placement (device="cuda" / "cuda-interpret"): ops with a registered GPU version move to the GPU, with
to_gpu/to_host only at the edges; ops without one stay on the host with transfers around them; numpy in,
numpy out at the graph's boundary."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.gpu import GpuArrayType, ToGpu, ToHost, register_gpu_version, to_gpu, to_host
from opkit.gpu.placement import gpu_version, registered_gpu_versions

from tests.helpers.gpu import device, on_device, to_numpy  # noqa: F401 (fixtures)


class HostScale(opkit.Op):
    """x * factor on the host (a tensor op with a GPU version registered below)."""

    __props__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * np.asarray(self.factor, dtype=inputs[0].dtype)


class HostNegate(HostScale):
    """A subclass: it finds its base's GPU version."""


class HostOnly(opkit.Op):
    """x + 1 on the host: no GPU version."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 1


class GpuScale(opkit.Op):
    """The GPU version of HostScale (perform on CuPy arrays, numpy ones under the interpreter)."""

    __props__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def make_node(self, x):
        assert isinstance(x.type, GpuArrayType), x.type
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x * x.dtype.type(self.factor)


register_gpu_version(HostScale, lambda node, inputs: GpuScale(node.op.factor).make_node(*inputs))


def _ops(f):
    return [type(node.op).__name__ for node in f.maker.fgraph.toposort()]


def _count(f, cls):
    return sum(isinstance(node.op, cls) for node in f.maker.fgraph.toposort())


def test_registry():
    assert gpu_version(HostScale(2)) is not None and gpu_version(HostNegate(1)) is gpu_version(HostScale(2))
    assert gpu_version(HostOnly()) is None
    assert HostScale in registered_gpu_versions()
    with pytest.raises(TypeError, match="op_class must be an Op class, not HostOnly"):
        register_gpu_version(HostOnly(), lambda node, inputs: None)
    with pytest.raises(TypeError, match="make_gpu_node must be callable, not 3"):
        register_gpu_version(HostOnly, 3)


def test_a_chain_moves_with_transfers_only_at_the_edges(device):
    x = ot.dvector("x")
    out = HostScale(3.0)(HostScale(2.0)(HostNegate(-1.0)(x)))
    f = opkit.function([x], out, mode=opkit.Mode(device=device))
    assert _ops(f) == ["ToGpu", "GpuScale", "GpuScale", "GpuScale", "ToHost"]
    result = f(np.arange(4.0))
    assert type(result) is np.ndarray and np.array_equal(result, np.arange(4.0) * -6.0)


def test_cpu_device_places_nothing():
    x = ot.dvector("x")
    f = opkit.function([x], HostScale(2.0)(x), mode=opkit.Mode(device="cpu"))
    assert _ops(f) == ["HostScale"]
    with opkit.config.change_flags(device="cuda-interpret"):  # config.device is the default of Mode(device=None)
        g = opkit.function([x], HostScale(2.0)(x), mode=opkit.Mode(linker="py"))
    assert _ops(g) == ["ToGpu", "GpuScale", "ToHost"]
    assert np.array_equal(g(np.arange(3.0)), [0.0, 2.0, 4.0])


def test_a_host_op_in_the_middle_gets_transfers_around_it(device):
    x = ot.dvector("x")
    out = HostScale(2.0)(HostOnly()(HostScale(3.0)(x)))
    f = opkit.function([x], out, mode=opkit.Mode(device=device))
    assert _ops(f) == ["ToGpu", "GpuScale", "ToHost", "HostOnly", "ToGpu", "GpuScale", "ToHost"]
    assert np.array_equal(f(np.arange(3.0)), (np.arange(3.0) * 3 + 1) * 2)


def test_one_transfer_per_value(device):
    x = ot.dvector("x")
    a, b = HostScale(2.0)(x), HostScale(5.0)(x)
    mid = HostScale(1.0)(a)
    f = opkit.function([x], [mid, HostOnly()(mid), b], mode=opkit.Mode(device=device))
    assert _count(f, ToGpu) == 1  # x moves once for its two GPU readers
    assert _count(f, ToHost) == 2  # mid once (an output and a host op's input), b once (an output)
    r = f(np.arange(3.0))
    assert np.array_equal(r[0], np.arange(3.0) * 2) and np.array_equal(r[1], np.arange(3.0) * 2 + 1)
    assert np.array_equal(r[2], np.arange(3.0) * 5)


def test_gpu_inputs_and_outputs_stay_on_the_gpu(device):
    g = GpuArrayType("float64", (None,))("g")
    x = ot.dvector("x")
    out_gpu = to_gpu(HostScale(2.0)(to_host(g) + x))
    f = opkit.function([g, x], [out_gpu, HostScale(3.0)(to_host(g))], mode=opkit.Mode(device=device))
    gpu_result, host_result = f(on_device(device, np.arange(3.0)), np.ones(3))
    assert np.array_equal(to_numpy(gpu_result), (np.arange(3.0) + 1) * 2)
    assert type(host_result) is np.ndarray and np.array_equal(host_result, np.arange(3.0) * 3)
    assert _ops(f).count("GpuScale") == 2 and "HostScale" not in _ops(f)


def test_user_round_trips_are_removed():
    x = ot.dvector("x")
    f = opkit.function([x], HostOnly()(to_host(to_gpu(to_host(to_gpu(x))))), mode=opkit.Mode(device="cuda-interpret"))
    assert _count(f, ToGpu) == 0 and _count(f, ToHost) == 0
    assert np.array_equal(f(np.arange(3.0)), [1.0, 2.0, 3.0])


class HostAxpb(opkit.Op):
    """x * a + b on the host, with a GPU version (GpuAxpb) that takes a and b as GPU values."""

    __props__ = ()

    def make_node(self, x, a, b):
        x, a, b = (ot.as_tensor_variable(v) for v in (x, a, b))
        return opkit.Apply(self, [x, a, b], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, a, b = inputs
        output_storage[0][0] = x * a + b


class GpuAxpb(HostAxpb):
    def make_node(self, x, a, b):
        return opkit.Apply(self, [x, a, b], [x.type()])


register_gpu_version(HostAxpb, lambda node, inputs: GpuAxpb().make_node(*inputs))


def test_constants_are_put_on_the_gpu_once(device):
    x = ot.dvector("x")
    f = opkit.function([x], HostAxpb()(x, np.float64(3.0), np.array([1.0, 2.0, 3.0])), mode=opkit.Mode(device=device))
    assert _count(f, ToGpu) == 1  # x's: the constants are GPU constants of the function
    constants = [v for v in f.maker.fgraph.variables() if isinstance(v, opkit.Constant)]
    assert len(constants) == 2 and all(isinstance(c.type, GpuArrayType) for c in constants)
    assert np.array_equal(f(np.zeros(3)), [1.0, 2.0, 3.0])
    assert np.array_equal(f(np.ones(3)), [4.0, 5.0, 6.0])


def test_transfers_are_bound_to_the_functions_device():
    x = ot.dvector("x")
    f = opkit.function([x], to_host(to_gpu(x) * 1.5), mode=opkit.Mode(device="cuda-interpret"))
    assert {n.op.device for n in f.maker.fgraph.toposort() if isinstance(n.op, (ToGpu, ToHost))} <= \
        {"cuda-interpret"}
    assert str(ToGpu("cuda-interpret")) == "ToGpu{cuda-interpret}" and str(ToHost()) == "ToHost"


def test_a_wrong_gpu_version_is_named():
    class Wrong(HostOnly):
        pass

    register_gpu_version(Wrong, lambda node, inputs: HostOnly().make_node(ot.dvector()))
    x = ot.dvector("x")
    with pytest.raises(TypeError, match=r"the GPU version .* of Wrong made output 0 of type TensorType\(float64, "
                                        r"vector\); expected a GpuArrayType of dtype float64 with 1 dimension"):
        opkit.function([x], Wrong()(x), mode=opkit.Mode(device="cuda-interpret"))


def test_a_gpu_version_may_decline():
    class Declined(HostOnly):
        pass

    register_gpu_version(Declined, lambda node, inputs: None)
    x = ot.dvector("x")
    f = opkit.function([x], Declined()(x), mode=opkit.Mode(device="cuda-interpret"))
    assert _ops(f) == ["Declined"]


def test_a_transfer_of_a_constant_becomes_a_gpu_constant(device):
    x = GpuArrayType("float64", (None,))("x")
    f = opkit.function([x], to_host(x) + to_host(to_gpu(np.float64(2.5))), mode=opkit.Mode(device=device))
    assert _count(f, ToGpu) == 0
    assert np.array_equal(f(on_device(device, np.arange(3.0))), np.arange(3.0) + 2.5)


def test_the_gpu_ops_between_transfers_meet_in_one_c_region():
    """Transfers run as Python steps; the C linker still compiles the GPU ops between them as one module (the
    transfers in, then every GPU op, then the transfers out), in an order that computes every value first."""
    from opkit.cop.generate.region import Region
    from opkit.link.partition import partition

    x, m = ot.fvector("x"), ot.fmatrix("m")
    outputs = [ot.sum(m, axis=0), ot.max(m, axis=1), (m * 2).mean(), ot.exp(x) - 1, ot.sum(x * x)]
    f = opkit.function([x, m], outputs, mode=opkit.Mode(device="cuda-interpret"))
    steps = partition(f.maker.fgraph, f.maker.backend.target)
    regions = [step for step in steps if isinstance(step, Region)]
    assert len(regions) == 1, steps
    computed = set(map(id, f.maker.fgraph.inputs))
    for step in steps:
        nodes = step.nodes if isinstance(step, Region) else [step]
        for node in nodes:
            assert all(id(v) in computed or getattr(v, "data", None) is not None for v in node.inputs), node
            computed.update(map(id, node.outputs))
    a, c = np.linspace(-1, 1, 5, dtype="float32"), np.arange(6, dtype="float32").reshape(2, 3)
    for got, want in zip(f(a, c), [c.sum(0), c.max(1), (c * 2).mean(), np.exp(a) - 1, np.sum(a * a)]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
