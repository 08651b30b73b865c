"""CDataType: an opaque C pointer kept in an op's struct or passed between nodes, freed exactly once."""

import gc

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
from opkit import Apply, CDataType, Op

STATE = CDataType("opkit_test_state*", freefunc="opkit_test_state_free")

# Every event goes to the file named by OPKIT_TEST_CDATA_LOG (read at run time: not in the C text).
SUPPORT = r"""
#include <cstdio>
#include <cstdlib>
struct opkit_test_state { double value; };
static void opkit_test_log(const char* what) {
    const char* path = getenv("OPKIT_TEST_CDATA_LOG");
    FILE* log = path ? fopen(path, "a") : NULL;
    if (log) { fprintf(log, "%s\n", what); fclose(log); }
}
static opkit_test_state* opkit_test_state_new(double value) {
    opkit_test_state* state = (opkit_test_state*)malloc(sizeof(opkit_test_state));
    if (state) { state->value = value; opkit_test_log("new"); }
    return state;
}
static void opkit_test_state_free(void* state) {
    opkit_test_log("free");
    free(state);
}
"""


class Accumulate(Op):
    """z = x + state, then state += 1: the state lives in the struct from init_code_struct on."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    def c_support_code(self):
        return SUPPORT

    def c_support_code_struct(self, node, name):
        return STATE.c_declare(f"state_{name}", {})

    def c_init_code_struct(self, node, name, sub):
        return f"""
        state_{name} = opkit_test_state_new(10.0);
        if (!state_{name}) {{ PyErr_NoMemory(); {sub['fail']} }}"""

    def c_cleanup_code_struct(self, node, name):
        return STATE.c_free(f"state_{name}")

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} + state_{name}->value;\nstate_{name}->value += 1;"

    def c_code_cache_version(self):
        return (1,)


class MakeState(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [STATE()])

    def c_support_code(self):
        return SUPPORT

    def c_code(self, node, name, inputs, outputs, sub):
        return f"""
        {outputs[0]} = opkit_test_state_new({inputs[0]});
        if (!{outputs[0]}) {{ PyErr_NoMemory(); {sub['fail']} }}"""

    def c_code_cache_version(self):
        return (1,)


class ReadState(Op):
    __props__ = ()

    def make_node(self, state):
        return Apply(self, [state], [os_.float64()])

    def c_support_code(self):
        return SUPPORT

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]}->value * 2;"

    def c_code_cache_version(self):
        return (1,)


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "cdata.log"
    monkeypatch.setenv("OPKIT_TEST_CDATA_LOG", str(path))
    return lambda: path.read_text().split() if path.exists() else []


def test_state_kept_from_init_code_struct_is_freed_once_with_the_function(log):
    x = os_.float64("x")
    f = opkit.function([x], Accumulate()(x), mode=opkit.Mode(linker="c", optimizer=None))
    assert [f(1.0), f(1.0), f(0.5)] == [11.0, 12.0, 12.5]
    assert log() == ["new"]
    del f
    gc.collect()
    assert log() == ["new", "free"]


@pytest.mark.parametrize("linker", ["c", "cop"])
def test_a_pointer_passed_between_nodes_is_freed_once(log, linker):
    x = os_.float64("x")
    f = opkit.function([x], ReadState()(MakeState()(x)), mode=opkit.Mode(linker=linker, optimizer=None))
    assert [f(1.5), f(2.0), f(-1.0)] == [3.0, 4.0, -2.0]
    events = log()
    assert events.count("new") == 3 and events.count("free") in (2, 3)  # the last one may be kept for reuse
    del f
    gc.collect()
    events = log()
    assert events.count("new") == 3 and events.count("free") == 3


def test_a_pointer_returned_to_python_is_a_capsule_freed_when_dropped(log):
    x = os_.float64("x")
    f = opkit.function([x], MakeState()(x), mode=opkit.Mode(linker="c", optimizer=None))
    capsule = f(4.0)
    assert type(capsule).__name__ == "PyCapsule" and STATE.filter(capsule) is capsule
    read = opkit.function([s := STATE("s")], ReadState()(s), mode=opkit.Mode(linker="c", optimizer=None))
    assert read(capsule) == 8.0
    assert log() == ["new"]
    del capsule
    gc.collect()
    assert log() == ["new", "free"]


def test_cdata_type_arguments_are_checked():
    with pytest.raises(TypeError, match="ctype must be a C pointer type"):
        CDataType("")
    with pytest.raises(TypeError, match="freefunc must name a C function"):
        CDataType("void*", freefunc="free me")
    with pytest.raises(TypeError, match="expected a capsule made by C code"):
        STATE.filter(np.float64(1.0))
