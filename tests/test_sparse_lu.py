"""The compiled sparse LU (``multibody.solve.sparse_lu``) against dense solves and its own promises.

References: ``numpy.linalg.solve`` of the same matrices (LAPACK, partial pivoting). The tolerance on
the residual, 1e-10 relative, is round-off of well-conditioned random matrices (condition numbers
below 1e4 here) with pivots no smaller than a tenth of their column (entries of ``L`` below 10).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from multibody.solve.sparse_lu import REFACTORED_PIVOT, sparse_lu, sparse_lu_solve, sparse_refactorization


def csc_arrays(matrix: sp.csc_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, row, value)`` of a CSC matrix with int64 indices, as the compiled kernels take them."""
    return matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data.astype(float)


def random_matrices(count: int) -> list[sp.csc_matrix]:
    """Random sparse square matrices (sizes 1-60, densities 2-30 %), shifted so they are regular."""
    rng = np.random.default_rng(7)
    matrices = []
    while len(matrices) < count:
        n = int(rng.integers(1, 60))
        matrix = sp.random(n, n, density=rng.uniform(0.02, 0.3), random_state=rng) + rng.uniform(0.5, 2) * sp.eye(n)
        matrix = sp.csc_matrix(matrix)
        if np.linalg.cond(matrix.toarray()) < 1e4:
            matrices.append(matrix)
    return matrices


def test_factors_solve_as_dense_lu_does_in_any_preferred_pivot_order():
    """With SuperLU's column order and either its pivots or a random preference, the factors solve
    the system to round-off, ``L`` keeps its entries below ``1 / REFACTORED_PIVOT`` and the factors'
    patterns serve a refactorization of the same matrix."""
    rng = np.random.default_rng(3)
    for trial, matrix in enumerate(random_matrices(60)):
        n = matrix.shape[0]
        superlu = spla.splu(matrix)
        preferred = superlu.perm_r.astype(np.int64) if trial % 2 else rng.permutation(n).astype(np.int64)
        start, row, value = csc_arrays(matrix)
        regular, factors = sparse_lu(start, row, value, preferred, superlu.perm_c.astype(np.int64))
        assert regular
        assert np.max(np.abs(factors[2])) <= 1.0 / REFACTORED_PIVOT
        rhs = rng.normal(size=n)
        expected = np.linalg.solve(matrix.toarray(), rhs)
        np.testing.assert_allclose(sparse_lu_solve(*factors, rhs), expected, rtol=1e-10, atol=1e-10)
        refactorized, again = sparse_refactorization(start, row, value, factors)
        assert refactorized
        np.testing.assert_allclose(sparse_lu_solve(*again, rhs), expected, rtol=1e-10, atol=1e-10)


def test_preferred_pivots_are_kept_while_they_are_large_enough():
    """The preferred row is the pivot while it is at least ``REFACTORED_PIVOT`` of its column, even
    where a larger entry sits below it; below that, the largest takes its place."""
    matrix = np.array([[0.5, 1.0], [1.0, 1.0]])
    start, row, value = csc_arrays(sp.csc_matrix(matrix))
    identity = np.arange(2, dtype=np.int64)
    _, factors = sparse_lu(start, row, value, identity, identity)
    np.testing.assert_array_equal(factors[6], identity)  # 0.5 >= 0.1 * 1: row 0 stays first
    small = np.array([[0.05, 1.0], [1.0, 1.0]])
    start, row, value = csc_arrays(sp.csc_matrix(small))
    _, factors = sparse_lu(start, row, value, identity, identity)
    np.testing.assert_array_equal(factors[6], [1, 0])  # 0.05 < 0.1: the rows swap
    solved = sparse_lu_solve(*factors, np.array([1.0, 2.0]))
    np.testing.assert_allclose(solved, np.linalg.solve(small, [1.0, 2.0]), rtol=1e-10)  # round-off, as above


def test_singular_and_non_finite_matrices_are_not_regular():
    """A column without a nonzero candidate, two equal columns, or a NaN entry: not regular (the
    caller factorizes with SuperLU, which names the singularity), never factors of garbage."""
    identity = np.arange(3, dtype=np.int64)
    with_nan = sp.csc_matrix(np.eye(3))
    with_nan.data[1] = np.nan
    for matrix in (
        sp.csc_matrix(np.diag([1.0, 0.0, 1.0])),
        sp.csc_matrix(np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0], [0.0, 0.0, 1.0]])),
        with_nan,
    ):
        regular, _ = sparse_lu(*csc_arrays(matrix), identity, identity)
        assert not regular
