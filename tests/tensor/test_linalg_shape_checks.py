"""linalg's shape checks: a non-square matrix (numpy's LinAlgError) and solve's row count (ValueError) raise the
same error, class and message, whether the op runs (FAST_COMPILE) or FAST_RUN computes its output's shape alone
(the compiled Assert of shape_checks, C)."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot

SQUARE = "the last 2 dimensions of the array must be square, got shape (2, 3)"
CASES = {
    "matrix_inverse": (lambda x, b: ot.matrix_inverse(x), np.linalg.LinAlgError, f"matrix_inverse: {SQUARE}"),
    "det": (lambda x, b: ot.det(x), np.linalg.LinAlgError, f"det: {SQUARE}"),
    "cholesky": (lambda x, b: ot.cholesky(x), np.linalg.LinAlgError, f"cholesky: {SQUARE}"),
    "eigh": (lambda x, b: ot.eigh(x)[1], np.linalg.LinAlgError, f"eigh: {SQUARE}"),
    "solve": (lambda x, b: ot.solve(x, b), np.linalg.LinAlgError, f"solve: {SQUARE}"),
}


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_non_square_matrix_raises_linalgerror_in_every_mode(name, mode):
    build, error, words = CASES[name]
    x, b = ot.dmatrix("x"), ot.dvector("b")
    out = build(x, b)
    f = opkit.function([x, b], out.shape if mode == "FAST_RUN" else out, mode=mode, on_unused_input="ignore")
    with pytest.raises(error) as caught:
        f(np.ones((2, 3)), np.ones(2))
    assert str(caught.value).splitlines()[0] == words  # then the failing node, in opkit's words


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_solve_with_the_wrong_number_of_rows_names_both_shapes(mode):
    a, b = ot.dmatrix("a"), ot.dmatrix("b")
    out = ot.solve(a, b)
    f = opkit.function([a, b], out.shape if mode == "FAST_RUN" else out, mode=mode)
    with pytest.raises(ValueError) as caught:
        f(np.eye(3), np.ones((4, 2)))
    assert str(caught.value).splitlines()[0] == "solve: b has 4 rows for the (3, 3) matrix a"
    a_value, b_value = np.eye(3) * 2.0, np.arange(6.0).reshape(3, 2)
    expected = np.linalg.solve(a_value, b_value)
    np.testing.assert_allclose(f(a_value, b_value), expected.shape if mode == "FAST_RUN" else expected)


def test_a_singular_matrix_is_a_value_error_only_the_op_can_raise():
    """A singular matrix has a square shape: FAST_RUN's shape of its inverse runs no inverse (as PyTensor)."""
    x = ot.dmatrix("x")
    singular = np.zeros((3, 3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        opkit.function([x], ot.matrix_inverse(x), mode="FAST_RUN")(singular)
    assert tuple(opkit.function([x], ot.matrix_inverse(x).shape, mode="FAST_RUN")(singular)) == (3, 3)
