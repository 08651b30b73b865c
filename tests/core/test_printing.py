"""Looking inside: debugprint, to_dot and pydotprint (a real SVG and PNG through Graphviz's dot)."""

import io

import numpy as np
import pytest
from helpers.requires import needs_dot
from helpers.trust_ops import AddOneInplace

import opkit
import opkit.tensor as ot
from opkit.core.builtin_ops import ViewOp
from opkit.printing import debugprint, pydotprint, to_dot


def _graph():
    x, y = ot.dvector("x"), ot.dvector("y")
    z = ((x * y + x) * 2 - y).sum()
    z.name = "z"
    return x, y, z


def test_debugprint_of_a_variable_is_an_indented_tree_with_shared_ids():
    _, _, z = _graph()
    assert debugprint(z, file="str") == (
        "Sum{axis=None, keepdims=False} [id A] 'z'\n"
        " |sub [id B]\n"
        " | |mul [id C]\n"
        " | | |add [id D]\n"
        " | | | |mul [id E]\n"
        " | | | | |x [id F]\n"
        " | | | | |y [id G]\n"
        " | | | |x [id F]\n"
        " | | |2.0 [id H]\n"
        " | |y [id G]\n")
    assert debugprint(z, file="str", depth=1) == "Sum{axis=None, keepdims=False} [id A] 'z'\n |sub [id B]\n"
    assert opkit.debugprint is debugprint


def test_debugprint_prints_to_a_file_or_stdout_and_takes_lists_and_apply_nodes(capsys):
    x, y, z = _graph()
    out = io.StringIO()
    both = [z, x * 2]
    assert debugprint(both, file=out, print_type=True) is both
    assert out.getvalue().splitlines()[0] == "Sum{axis=None, keepdims=False} [id A] 'z' <TensorType(float64, scalar)>"
    assert out.getvalue().splitlines()[-3:] == ["mul [id I] <TensorType(float64, vector)>",
                                                " |x [id F] <TensorType(float64, vector)>",
                                                " |2.0 [id J] <TensorType(float64, scalar)>"]
    debugprint((x + y).owner)
    assert capsys.readouterr().out == "add [id A]\n |x [id B]\n |y [id C]\n"


def test_debugprint_of_a_compiled_function_shows_the_rewritten_graph_and_fused_expressions():
    x, y, z = _graph()
    f = opkit.function([x, y], z)
    assert f(np.ones(3), np.ones(3)) == 9.0
    assert debugprint(f, file="str") == (  # the sum and its elementwise input are one loop
        "FusedSum{mul,add,mul,sub; axis=None, keepdims=False}[sub(mul(add(mul(i0, i1), i0), i2), i1)] [id A] 'z'\n"
        " |x [id B]\n"
        " |y [id C]\n"
        " |2.0 [id D]\n")


def test_debugprint_says_which_inputs_are_destroyed_or_viewed():
    x = ot.dvector("x")
    text = debugprint([AddOneInplace()(x), ViewOp()(x)], file="str")
    assert "AddOneInplace{fold=True} [id A] (destroys input 0)" in text
    assert "ViewOp [id C] (views input 0)" in text


def test_debugprint_rejects_what_it_cannot_print():
    with pytest.raises(TypeError, match="debugprint takes a Variable, a list of Variables, an Apply or a "
                                        "compiled function, not int"):
        debugprint(3)


def test_to_dot_has_a_box_per_variable_and_an_ellipse_per_node():
    x, y, z = _graph()
    dot = to_dot(opkit.function([x, y], z))
    assert dot.startswith("digraph opkit {") and dot.rstrip().endswith("}")
    assert dot.count("shape=ellipse") == 1 and dot.count("shape=box") == 4  # one fused node; z, x, y, 2.0
    assert ('label="FusedSum{mul,add,mul,sub; axis=None, keepdims=False}[sub(mul(add(mul(i0, i1), i0), i2), i1)]"'
            in dot)


@needs_dot
@pytest.mark.parametrize("fmt, magic", [("svg", b"<svg"), ("png", b"\x89PNG\r\n\x1a\n")], ids=["svg", "png"])
def test_pydotprint_renders_a_real_picture_with_graphviz(tmp_path, fmt, magic):
    x, y, z = _graph()
    path = pydotprint(opkit.function([x, y], z), tmp_path / f"graph.{fmt}", format=fmt)
    data = open(path, "rb").read()
    assert magic in data[:1000] and len(data) > 1000
    if fmt == "svg":
        assert b"FusedSum{mul,add,mul,sub" in data


def test_pydotprint_without_graphviz_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"pydotprint needs Graphviz's `dot` program, which is not on PATH; "
                                           r"install Graphviz \(Debian/Ubuntu: apt-get install graphviz"):
        pydotprint(_graph()[2], tmp_path / "g.svg")


@needs_dot
def test_pydotprint_reports_a_failing_dot(tmp_path):
    with pytest.raises(RuntimeError, match=r"dot -Tnotaformat failed \(exit status 1\): .*notaformat"):
        pydotprint(_graph()[2], tmp_path / "g.x", format="notaformat")


def test_pydotprint_reports_what_a_failing_dot_program_said(tmp_path):
    """The same path on every machine: a `dot=` program that refuses, as Graphviz does an unknown format."""
    program = tmp_path / "dot"
    program.write_text('#!/bin/sh\necho "Format: \\"$1\\" not recognized" >&2\nexit 1\n')
    program.chmod(0o755)
    with pytest.raises(RuntimeError, match=r"dot -Tnotaformat failed \(exit status 1\): .*-Tnotaformat\" not "
                                           r"recognized"):
        pydotprint(_graph()[2], tmp_path / "g.x", format="notaformat", dot=str(program))
    assert not (tmp_path / "g.x").exists()
