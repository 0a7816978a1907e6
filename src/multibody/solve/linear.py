"""Linear algebra: dense/sparse LU behind one interface, saddle-point matrices, and the
rank-revealing search for linearly dependent (redundant) constraint rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numba import njit, types
from numba.np.linalg import _LAPACK, F_INT_nptype, ensure_lapack, get_blas_kind
from numpy.typing import NDArray
from scipy.sparse.csgraph import connected_components

from multibody.solve.sparse_lu import sparse_lu, sparse_lu_solve

Matrix = NDArray[np.float64] | sp.spmatrix


(_getrs,) = la.get_lapack_funcs(("getrs",), dtype=np.float64)
ensure_lapack()
_getrf = _LAPACK().numba_xxgetrf(types.float64)
"""LAPACK's ``getrf`` as numba's ``np.linalg`` calls it (through SciPy's LAPACK), so that compiled code
can factorize, and cache what it compiled (``dense_lu``)"""
_GETRF_KIND = ord(get_blas_kind(types.float64, "getrf"))
SINGULAR_PIVOT = 1e-14
"""Smallest to largest pivot of an LU factorization below which the matrix counts as singular."""


class SingularMatrixError(np.linalg.LinAlgError):
    """A matrix that had to be factorized is singular (or numerically so)."""


class Factorization:
    """LU factors of a square matrix, dense (LAPACK) or sparse (SuperLU); ``solve(b)`` reuses them."""

    def __init__(self, matrix: Matrix) -> None:
        self.sparse = sp.issparse(matrix)
        self._triangular: tuple | None = None
        """``kernel_factors`` of sparse factors, once asked for (``()``: not of that form)"""
        if matrix.shape[0] == 0:  # nothing to solve (a model of first-order states alone)
            self.sparse = False
            self._lu = (np.zeros((0, 0), order="F"), np.zeros(0, dtype=np.int32))
        elif self.sparse:
            try:
                self._lu = spla.splu(sp.csc_matrix(matrix))
            except RuntimeError as error:  # SuperLU: "Factor is exactly singular"
                raise SingularMatrixError(str(error)) from None
        else:
            # LAPACK getrf/getrs directly: scipy's lu_factor/lu_solve wrappers cost more than the
            # factorization itself for the small matrices of most models.
            lu, piv, regular = dense_lu(np.ascontiguousarray(matrix, dtype=float))  # one compiled variant
            if not regular:
                raise SingularMatrixError("matrix is singular to working precision")
            self._lu = (lu, piv)

    @classmethod
    def of_dense_factors(cls, lu: NDArray[np.float64], pivots: NDArray[np.int32]) -> Factorization:
        """The factorization whose factors are ``(lu, pivots)`` as ``dense_lu`` gives them (computed in
        compiled code)."""
        factorization = cls.__new__(cls)
        factorization.sparse, factorization._triangular, factorization._lu = False, None, (lu, pivots)
        return factorization

    @classmethod
    def of_sparse_factors(cls, factors: tuple) -> Factorization:
        """The factorization whose factors are ``kernel_factors``-like sparse ``factors`` (computed in
        compiled code: ``sparse_lu``, ``sparse_refactorization``)."""
        factorization = cls.__new__(cls)
        factorization.sparse, factorization._triangular, factorization._lu = True, factors, None
        return factorization

    def use_structure(self, matrix: sp.csc_matrix) -> None:
        """Let ``kernel_factors`` be factors of the (sparse) ``matrix`` it factorized in SuperLU's column
        order and with its pivots (``sparse_lu``: those it keeps), on patterns that count every stored
        position of ``matrix``, whatever its value, so that compiled code refactorizes matrices of its
        pattern (``sparse_refactorization``); SuperLU's own factors otherwise."""
        lu = self._lu
        start, row = matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64)
        regular, factors = sparse_lu(start, row, matrix.data, lu.perm_r.astype(np.int64), lu.perm_c.astype(np.int64))
        if regular:
            self._triangular = factors

    @property
    def dense_factors(self) -> tuple[NDArray[np.float64], NDArray[np.int32]] | None:
        """``(lu, pivots)`` as LAPACK ``getrf`` gives them (0-based pivots), None when sparse."""
        return None if self.sparse else self._lu

    @property
    def kernel_factors(self) -> tuple[NDArray, ...] | None:
        """The factors as compiled solvers take them (``multibody.formulation.dae_kernel.factored_solve``):
        dense ``(lu, pivots)``; sparse ``(L indptr, L indices, L values, U indptr, U indices, U values,
        row permutation, column permutation)`` of ``Pr A Pc = L U`` (SuperLU's, ``L`` with unit diagonal
        first in each column, ``U``'s diagonal last), taken out of SuperLU once; None should SuperLU's
        factors not have that form."""
        if not self.sparse:
            return self._lu
        if self._triangular is None:
            self._triangular = _triangular_factors(self._lu)
        return self._triangular or None

    def solve(self, rhs: NDArray[np.float64]) -> NDArray[np.float64]:
        """``matrix^-1 rhs`` for a vector or a matrix of right-hand sides."""
        if self.sparse and self._lu is None:  # factors from compiled code
            columns = np.asarray(rhs, dtype=float).reshape(len(rhs), -1)
            solved = [sparse_lu_solve(*self._triangular, np.ascontiguousarray(column)) for column in columns.T]
            return np.column_stack(solved).reshape(np.shape(rhs))
        if self.sparse:
            return self._lu.solve(rhs)
        if not len(rhs):
            return np.array(rhs, dtype=float)
        return _getrs(*self._lu, rhs)[0]


def _triangular_factors(lu: spla.SuperLU) -> tuple[NDArray, ...]:
    """``Factorization.kernel_factors`` of SuperLU factors ``lu``; ``()`` when a column of ``L`` does not
    start at a unit diagonal or one of ``U`` does not end at its diagonal."""
    lower, upper = sp.csc_matrix(lu.L), sp.csc_matrix(lu.U)
    lower.sort_indices()
    upper.sort_indices()
    columns = np.arange(lower.shape[0])
    if lower.indptr[-1] == 0 or upper.indptr[-1] == 0:
        return ()
    first, last = lower.indptr[:-1], upper.indptr[1:] - 1
    if not (
        np.all(np.diff(lower.indptr) > 0)
        and np.all(np.diff(upper.indptr) > 0)
        and np.array_equal(lower.indices[first], columns)
        and np.all(lower.data[first] == 1.0)
        and np.array_equal(upper.indices[last], columns)
    ):
        return ()
    index = np.int64
    return (
        lower.indptr.astype(index),
        lower.indices.astype(index),
        lower.data,
        upper.indptr.astype(index),
        upper.indices.astype(index),
        upper.data,
        lu.perm_r.astype(index),
        lu.perm_c.astype(index),
    )


def saddle_point_matrix(A: Matrix, G: Matrix) -> Matrix:
    """``[[A, G^T], [G, 0]]``, sparse if either block is."""
    if isinstance(A, np.ndarray) and isinstance(G, np.ndarray):
        return _dense_saddle_point_matrix(A, G)
    A, G = sp.coo_matrix(A), sp.coo_matrix(G)
    n, m = A.shape[0], G.shape[0]
    rows = np.concatenate([A.row, G.col, n + G.row])
    columns = np.concatenate([A.col, n + G.row, G.col])
    return sp.csc_matrix((np.concatenate([A.data, G.data, G.data]), (rows, columns)), shape=(n + m, n + m))


@njit(cache=True)
def _dense_saddle_point_matrix(A: NDArray[np.float64], G: NDArray[np.float64]) -> NDArray[np.float64]:
    """``saddle_point_matrix`` of dense blocks (one compiled call: the small matrices of most models
    cost more in NumPy calls than in arithmetic)."""
    n, m = A.shape[0], G.shape[0]
    matrix = np.zeros((n + m, n + m))
    matrix[:n, :n] = A
    for r in range(m):
        for i in range(n):
            matrix[i, n + r] = G[r, i]
            matrix[n + r, i] = G[r, i]
    return matrix


@njit(cache=True)
def dense_lu(matrix: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.int32], bool]:
    """LAPACK's ``getrf`` of the square ``matrix`` (n, n), left unchanged: ``(lu (n, n) in column-major
    order, 0-based row interchanges (n,), whether it is regular)``; ``Factorization``'s dense factors,
    from Python or compiled code. Regular: the smallest pivot above ``SINGULAR_PIVOT`` times the
    largest, all finite (a non-finite entry of the matrix reaches the pivots through the elimination).
    The pivots come back 0-based, as SciPy gives them."""
    n = matrix.shape[0]
    lu = np.empty((n, n)).T
    lu[:, :] = matrix
    pivots = np.empty(n, dtype=F_INT_nptype)
    if n:
        _getrf(_GETRF_KIND, n, n, lu.ctypes, n, pivots.ctypes)
    smallest, largest, finite = np.inf, 0.0, True
    for i in range(n):
        pivots[i] -= 1
        d = abs(lu[i, i])
        finite = finite and not np.isnan(d)
        smallest, largest = min(smallest, d), max(largest, d)
    regular = finite and smallest > SINGULAR_PIVOT * max(largest, 1e-300) and largest < np.inf
    return lu, pivots, regular


@njit(cache=True)
def lu_solve(lu: np.ndarray, pivots: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``A^-1 rhs`` (n,) from the LAPACK ``getrf`` factors ``lu`` (n, n) of ``A`` and its 0-based
    row interchanges ``pivots`` (n,). Column by column (LAPACK's factors are in column-major order:
    25 % faster than by rows for n = 110)."""
    n = rhs.size
    x = rhs.copy()
    for i in range(n):
        p = pivots[i]
        if p != i:
            x[i], x[p] = x[p], x[i]
    for j in range(n):
        x_j = x[j]
        for i in range(j + 1, n):
            x[i] -= lu[i, j] * x_j
    for j in range(n - 1, -1, -1):
        x[j] /= lu[j, j]
        x_j = x[j]
        for i in range(j):
            x[i] -= lu[i, j] * x_j
    return x


def to_dense(matrix: Matrix) -> NDArray[np.float64]:
    """A dense copy of a dense or sparse matrix."""
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


@dataclass(frozen=True)
class DependentRow:
    """Row ``row`` of a matrix lies in the span of earlier rows ``depends_on`` (indices)."""

    row: int
    depends_on: tuple[int, ...]


PEEL_SINGULAR_VALUE = 1e-6
"""Rows are set aside as independent when their block on a column group, each row scaled to unit
norm, has no singular value below this (then none of them is within this of the others' span)."""


def dependent_rows(
    matrix: Matrix, tolerance: float = 1e-9, column_groups: NDArray[np.int64] | None = None
) -> list[DependentRow]:
    """Rows of ``matrix`` that are linear combinations of the rows before them, in order.

    Row ``k`` is dependent when the rank of rows ``0..k`` equals that of rows ``0..k-1``; it
    depends on the earlier independent rows whose coefficient in the (unique) combination,
    rows scaled to unit norm, exceeds ``tolerance``. Rank is judged on rows scaled to unit
    norm: a row whose part orthogonal to the others is below ``tolerance`` counts as dependent.

    The cost is one factorization, not one solve per row, and sparse structure is used:

    1. Peeling (``column_groups`` labels each column, e.g. with the body owning it): when all the
       rows touching a group of columns have full row rank on those columns, they are
       independent of every other row and do not change which other rows are dependent; set
       them aside and repeat. A tree of joints peels away completely from its leaves.
    2. The rows left (the closed loops) split into blocks that share no column; each block is
       factorized densely (``_dependent_rows_dense``: a pivoted QR, then the left null space
       read in row order).
    """
    G = sp.csr_matrix(matrix, copy=True)
    G.eliminate_zeros()  # structural zeros would couple rows that share no value
    m = G.shape[0]
    if m == 0:
        return []
    groups = np.zeros(G.shape[1], dtype=np.int64) if column_groups is None else np.asarray(column_groups)
    remaining = _peel_independent_rows(G, groups) if column_groups is not None else np.arange(m)
    if remaining.size == 0:
        return []
    core = G[remaining]
    columns = np.unique(core.indices)
    core = core[:, columns]
    # Blocks of rows coupled through shared columns (the bipartite graph rows - columns).
    n_core = core.shape[0]
    coupling = sp.bmat([[None, core != 0], [(core != 0).T, None]], format="csr")
    _, label = connected_components(coupling, directed=False)
    found: list[DependentRow] = []
    for block in np.unique(label[:n_core]):
        rows = np.flatnonzero(label[:n_core] == block)
        block_matrix = core[rows]
        block_columns = np.unique(block_matrix.indices)
        dense = block_matrix[:, block_columns].toarray()
        for dependent in _dependent_rows_dense(dense, tolerance):
            found.append(
                DependentRow(
                    int(remaining[rows[dependent.row]]),
                    tuple(int(remaining[rows[r]]) for r in dependent.depends_on),
                )
            )
    return sorted(found, key=lambda d: d.row)


def _peel_independent_rows(G: sp.csr_matrix, groups: NDArray[np.int64]) -> NDArray[np.int64]:
    """Indices of the rows of ``G`` left after setting aside, repeatedly, the rows that touch a
    column group on which they have full row rank (see ``dependent_rows``)."""
    m = G.shape[0]
    entry_row = np.repeat(np.arange(m), np.diff(G.indptr))
    norms = np.sqrt(np.bincount(entry_row, G.data**2, minlength=m))
    entry_group = groups[G.indices]
    n_groups = int(groups.max(initial=-1)) + 1
    group_size = np.bincount(groups, minlength=n_groups)
    first_column = np.concatenate([[0], np.cumsum(group_size)])
    column_order = np.argsort(groups, kind="stable")
    local_column = np.empty_like(column_order)
    local_column[column_order] = np.arange(column_order.size) - first_column[groups[column_order]]
    # Entries sorted by group (then row): group g's entries are entries[entry_start[g]:entry_start[g + 1]].
    entries = np.lexsort((entry_row, entry_group))
    entry_start = np.searchsorted(entry_group[entries], np.arange(n_groups + 1))
    # The (row, group) incidence, both ways.
    pairs = np.unique(entry_row * n_groups + entry_group)
    pair_row, pair_group = pairs // n_groups, pairs % n_groups
    groups_of_row = np.split(pair_group, np.searchsorted(pair_row, np.arange(1, m)))
    rows_touching = np.bincount(pair_group, minlength=n_groups)
    peeled = np.zeros(m, dtype=bool)
    pending = [int(g) for g in np.flatnonzero((rows_touching > 0) & (rows_touching <= group_size))]
    while pending:
        group = pending.pop()
        if not 0 < rows_touching[group] <= group_size[group]:
            continue
        here = entries[entry_start[group] : entry_start[group + 1]]
        here = here[~peeled[entry_row[here]]]
        rows, position = np.unique(entry_row[here], return_inverse=True)
        block = np.zeros((rows.size, group_size[group]))
        block[position, local_column[G.indices[here]]] = G.data[here] / norms[entry_row[here]]
        if la.svdvals(block, check_finite=False).min() <= PEEL_SINGULAR_VALUE:
            continue
        peeled[rows] = True
        others = np.concatenate([groups_of_row[row] for row in rows])
        np.subtract.at(rows_touching, others, 1)
        pending.extend(int(g) for g in np.unique(others) if 0 < rows_touching[g] <= group_size[g])
    return np.flatnonzero(~peeled)


def _dependent_rows_dense(G: NDArray[np.float64], tolerance: float) -> list[DependentRow]:
    """``dependent_rows`` of a dense matrix by one pivoted QR of its transpose.

    The rank ``r`` comes from the pivoted QR of the row-scaled ``G^T``; its left null space
    ``Y`` (m x (m - r), ``Y^T G = 0``) follows from the triangular factor. Row ``k`` is
    dependent on earlier rows exactly when some null vector ends at ``k``: scanning ``Y``'s rows
    from the last, each row that adds to the rank of those after it is a dependent row. Then
    ``Z = Y Y[dependent]^-1`` holds in column ``j`` the unique combination that writes dependent
    row ``j`` with earlier independent rows (``Z`` is 1 on it, 0 on the other dependent rows and
    after it).
    """
    m = G.shape[0]
    norms = np.linalg.norm(G, axis=1)
    zero = norms == 0.0
    scaled = G / np.where(zero, 1.0, norms)[:, None]
    R, pivots = la.qr(scaled.T, mode="r", pivoting=True, check_finite=False)
    diagonal = np.abs(np.diagonal(R))
    rank = int(np.count_nonzero(diagonal > tolerance))
    if rank == m:
        return []
    null = np.zeros((m, m - rank))
    null[pivots[:rank]] = -la.solve_triangular(R[:rank, :rank], R[:rank, rank:m], check_finite=False)
    null[pivots[rank:]] = np.eye(m - rank)
    dependent = _last_spanning_rows(null)
    combination = null @ np.linalg.inv(null[dependent])
    return [
        DependentRow(
            int(row),
            tuple(int(i) for i in np.flatnonzero(np.abs(combination[:, j]) > tolerance) if i != row and not zero[row]),
        )
        for j, row in enumerate(dependent)
    ]


def _last_spanning_rows(Y: NDArray[np.float64]) -> NDArray[np.int64]:
    """Indices, increasing, of the rows of ``Y`` (m x k, rank k) picked from the last row backwards
    whenever a row adds to the rank of those picked (Gram-Schmidt on k-vectors, twice).

    A row adds to the rank when its part orthogonal to the rows picked exceeds sqrt(eps) times
    the largest row (round-off of ``Y`` is far below); should that pick fewer than k rows (an
    ill-conditioned ``Y``), the scan is repeated down to the round-off itself.
    """
    m, k = Y.shape
    scale = float(np.max(np.linalg.norm(Y, axis=1), initial=0.0))
    for threshold in (np.sqrt(np.finfo(float).eps) * scale, 16.0 * np.finfo(float).eps * scale):
        basis = np.zeros((k, k))
        picked: list[int] = []
        for row in range(m - 1, -1, -1):
            B = basis[: len(picked)]
            residual = Y[row] - B.T @ (B @ Y[row])
            residual -= B.T @ (B @ residual)
            remainder = float(np.linalg.norm(residual))
            if remainder > threshold:
                basis[len(picked)] = residual / remainder
                picked.append(row)
                if len(picked) == k:
                    return np.array(sorted(picked), dtype=np.int64)
    raise SingularMatrixError(f"the left null space of rank {k} is spanned by only {len(picked)} rows")
