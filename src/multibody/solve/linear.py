"""Linear algebra: dense/sparse LU behind one interface, saddle-point matrices, and the
rank-revealing search for linearly dependent (redundant) constraint rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import NDArray

Matrix = NDArray[np.float64] | sp.spmatrix


_getrf, _getrs = la.get_lapack_funcs(("getrf", "getrs"), dtype=np.float64)


class SingularMatrixError(np.linalg.LinAlgError):
    """A matrix that had to be factorized is singular (or numerically so)."""


class Factorization:
    """LU factors of a square matrix, dense (LAPACK) or sparse (SuperLU); ``solve(b)`` reuses them."""

    def __init__(self, matrix: Matrix) -> None:
        self.sparse = sp.issparse(matrix)
        if self.sparse:
            try:
                self._lu = spla.splu(sp.csc_matrix(matrix))
            except RuntimeError as error:  # SuperLU: "Factor is exactly singular"
                raise SingularMatrixError(str(error)) from None
        else:
            # LAPACK getrf/getrs directly: scipy's lu_factor/lu_solve wrappers cost more than the
            # factorization itself for the small matrices of most models.
            lu, piv, _ = _getrf(matrix)
            diagonal = np.abs(np.diag(lu))
            if not np.all(np.isfinite(lu)) or diagonal.min(initial=np.inf) <= 1e-14 * max(
                diagonal.max(initial=0.0), 1e-300
            ):
                raise SingularMatrixError("matrix is singular to working precision")
            self._lu = (lu, piv)

    def solve(self, rhs: NDArray[np.float64]) -> NDArray[np.float64]:
        """``matrix^-1 rhs`` for a vector or a matrix of right-hand sides."""
        if self.sparse:
            return self._lu.solve(rhs)
        return _getrs(*self._lu, rhs)[0]


def saddle_point_matrix(A: Matrix, G: Matrix) -> Matrix:
    """``[[A, G^T], [G, 0]]``, sparse if either block is."""
    if sp.issparse(A) or sp.issparse(G):
        return sp.bmat([[sp.csr_matrix(A), sp.csr_matrix(G).T], [sp.csr_matrix(G), None]], format="csc")
    n, m = A.shape[0], G.shape[0]
    matrix = np.zeros((n + m, n + m))
    matrix[:n, :n] = A
    matrix[:n, n:] = G.T
    matrix[n:, :n] = G
    return matrix


def to_dense(matrix: Matrix) -> NDArray[np.float64]:
    """A dense copy of a dense or sparse matrix."""
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


@dataclass(frozen=True)
class DependentRow:
    """Row ``row`` of a matrix lies in the span of earlier rows ``depends_on`` (indices)."""

    row: int
    depends_on: tuple[int, ...]


def dependent_rows(matrix: Matrix, tolerance: float = 1e-9) -> list[DependentRow]:
    """Rows of ``matrix`` that are linear combinations of the rows before them, in order.

    A pivoted QR first tells whether there are any (the usual answer, no, costs one
    factorization). Otherwise Gram-Schmidt in row order (with one re-orthogonalization pass)
    keeps the model order: row ``k`` is dependent when its part orthogonal to the earlier
    independent rows is below ``tolerance`` times its norm. It depends on the earlier
    independent rows with a coefficient above ``tolerance`` in the least-squares combination.
    """
    G = to_dense(matrix)
    m = G.shape[0]
    if m == 0:
        return []
    norms = np.linalg.norm(G, axis=1)
    if np.all(norms > 0.0):
        R = la.qr((G / norms[:, None]).T, mode="r", pivoting=True, check_finite=False)[0]
        if m <= min(R.shape) and abs(R[m - 1, m - 1]) > tolerance * abs(R[0, 0]):
            return []
    basis = np.zeros((m, G.shape[1]))
    n_basis = 0
    independent: list[int] = []
    found = []
    for row, g in enumerate(G):
        B = basis[:n_basis]
        residual = g - B.T @ (B @ g)
        residual -= B.T @ (B @ residual)
        remainder = np.linalg.norm(residual)
        if remainder > tolerance * max(norms[row], 1e-300):
            basis[n_basis] = residual / remainder
            n_basis += 1
            independent.append(row)
            continue
        coefficients = np.linalg.lstsq(G[independent].T, g, rcond=None)[0] if independent else np.zeros(0)
        depends_on = tuple(
            independent[n] for n in np.flatnonzero(np.abs(coefficients) > tolerance * max(norms[row], 1e-300))
        )
        found.append(DependentRow(row, depends_on))
    return found
