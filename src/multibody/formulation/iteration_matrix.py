"""The Newton matrix of one implicit step of the Cartesian equations, bordered by the
first-order states and by the loads that read multipliers.

One function for every implicit method: a step moves positions by ``c_position`` and velocities
and states by ``c_velocity`` times its unknowns (BDF: ``c^2`` and ``c``; the alpha methods:
``beta' h^2`` and ``gamma' h``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from multibody.formulation.cartesian import StateCoupling
from multibody.solve.linear import Matrix, saddle_point_matrix
from multibody.solve.sparse_lu import sparse_lu, sparse_refactorization


def coupled_iteration_matrix(
    A: Matrix, G: Matrix, coupling: StateCoupling | None, c_position: float, c_velocity: float
) -> Matrix:
    """The Newton matrix of a step in the unknowns (velocity-like increment, state increment,
    multiplier increment) when positions move by ``c_position`` and velocities and states by
    ``c_velocity`` times the unknowns: ``[[A, G^T], [G, 0]]`` (``A = M - c_v C - c_q K``) bordered,
    when ``coupling`` is given, by the rows and columns of the first-order states and by the
    loads' dependence on the multipliers::

        [[A,                        -c_v Q_x,      G^T - Q_lam],
         [-c_q F_q - c_v F_v,       I - c_v F_x,   -F_lam     ],
         [G,                        0,             0          ]]

    (The BDF form of ``multibody.formulation.dae`` is the case ``c_q = c^2``, ``c_v = c``.)"""
    if coupling is None:
        return saddle_point_matrix(A, G)
    nx = coupling.F_x.shape[0]
    G_dense = G.toarray() if sp.issparse(G) else np.asarray(G)
    blocks = [
        [A, -c_velocity * coupling.Q_x, G_dense.T - coupling.Q_lam],
        [
            -c_position * coupling.F_q - c_velocity * coupling.F_v,
            np.eye(nx) - c_velocity * coupling.F_x,
            -coupling.F_lam,
        ],
        [G_dense, np.zeros((G_dense.shape[0], nx)), np.zeros((G_dense.shape[0],) * 2)],
    ]
    if sp.issparse(A):
        return sp.bmat([[sp.csr_matrix(block) for block in row] for row in blocks], format="csc")
    return np.block(blocks)


class SparseIterationPattern:
    """Fixed CSC patterns of the sparse iteration matrix ``[[M - c_v C - c_q K, G^T], [G, 0]]`` and
    of ``G G^T`` (SI2) of rigid bodies without state coupling, refilled per step from the values
    alone: one compiled scatter each instead of assembling sparse matrices block by block.

    ``mass_matrix`` (nv, nv) sparse is constant; ``K`` and ``C`` share the pattern of
    ``CartesianFormulation.force_jacobians`` (fixed until they are refreshed: make a new pattern
    then); ``G``'s entries are the kernel values at ``(row, column)`` of
    ``constraints.JacobianAssembler.pattern``.
    """

    def __init__(
        self,
        mass_matrix: sp.spmatrix,
        K: sp.csr_matrix,
        C: sp.csr_matrix,
        m: int,
        g_row: np.ndarray,
        g_column: np.ndarray,
    ) -> None:
        nv = mass_matrix.shape[0]
        mass, stiffness, damping = mass_matrix.tocoo(), K.tocoo(), C.tocoo()  # entries in the order of K.data, C.data
        self._mass_values = mass.data
        rows = np.concatenate([mass.row, stiffness.row, damping.row, nv + g_row, g_column])
        columns = np.concatenate([mass.col, stiffness.col, damping.col, g_column, nv + g_row])
        self._iteration = _CSCPattern(rows, columns, nv + m)
        # G G^T: every pair of entries that share a column adds to (row of one, row of the other).
        order = np.argsort(g_column, kind="stable")
        starts = np.searchsorted(g_column[order], np.arange(nv + 1))
        first, second = [], []
        for column in range(nv):
            here = order[starts[column] : starts[column + 1]]
            first.append(np.repeat(here, here.size))
            second.append(np.tile(here, here.size))
        self._first = np.concatenate(first) if first else np.zeros(0, np.int64)
        self._second = np.concatenate(second) if second else np.zeros(0, np.int64)
        self._gram = _CSCPattern(g_row[self._first], g_row[self._second], m)

    def iteration_matrix(
        self, K: sp.csr_matrix, C: sp.csr_matrix, c_position: float, c_velocity: float, entries: np.ndarray
    ) -> sp.csc_matrix:
        """``[[M - c_v C - c_q K, G^T], [G, 0]]`` (CSC) for the ``K``, ``C`` this pattern was made
        with and the entries of ``G``."""
        return self._iteration.matrix(
            np.concatenate([self._mass_values, -c_position * K.data, -c_velocity * C.data, entries, entries])
        )

    def gram(self, entries: np.ndarray) -> sp.csc_matrix:
        """``G G^T`` (CSC) from the entries of ``G``."""
        return self._gram.matrix(_pair_products(entries, self._first, self._second))

    @property
    def structure(self) -> tuple:
        """What ``structured_factors`` takes: ``(mass values, the iteration matrix's
        ``_CSCPattern.structure``, G's entry pairs (first, second), G G^T's)``: the stored patterns, which
        ``iteration_matrix``, ``gram`` and ``structured_factors`` grow in place."""
        return (self._mass_values, self._iteration.structure, self._first, self._second, self._gram.structure)


class _CSCPattern:
    """A square CSC pattern (n, n) fixed by the positions ``(rows, columns)`` of the values that
    fill it (duplicates summed), and the pattern stored of it: the positions that have held a nonzero
    so far. The entries of ``K``, ``C`` and ``G`` that always vanish, e.g. out of a plane of motion,
    would fill the sparse factors; those that pass through zero stay, so that compiled code
    refactorizes on the same pattern. Its arrays (``structure``) are its state, which compiled code
    grows in place (``grown_values``)."""

    def __init__(self, rows: np.ndarray, columns: np.ndarray, n: int) -> None:
        key = columns.astype(np.int64) * n + rows
        unique, slot = np.unique(key, return_inverse=True)
        self._shape = (n, n)
        self.structure = (
            slot.astype(np.int64),
            (unique % n).astype(np.int64),
            np.searchsorted(unique // n, np.arange(n + 1)).astype(np.int64),
            np.zeros(unique.size, np.bool_),
            np.full(unique.size, -1, np.int64),
            np.zeros(n + 1, np.int64),
            np.zeros(unique.size, np.int64),
        )
        """``(slot of each value, row of each position, start of each column's positions (n+1,), whether
        each position has held a nonzero, its entry in the stored pattern (-1: not there), the stored
        pattern's start (n+1,), its rows (the first ``start[n]``))``"""

    def matrix(self, values: np.ndarray) -> sp.csc_matrix:
        """The matrix whose entries are ``values`` (one per position given at construction) on the
        stored pattern, which takes its new nonzeros in."""
        data = grown_values(self.structure, values)
        *_, start, row = self.structure
        return sp.csc_matrix((data, row[: start[-1]].copy(), start.copy()), shape=self._shape)


@njit(cache=True)
def _pair_products(entries: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``entries[first] * entries[second]``."""
    out = np.empty(first.size)
    for k in range(first.size):
        out[k] = entries[first[k]] * entries[second[k]]
    return out


@njit(cache=True)
def _summed(slot: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Per position (``size``), the sum of the ``values`` whose ``slot`` it is."""
    summed = np.zeros(size)
    for k in range(slot.size):
        summed[slot[k]] += values[k]
    return summed


@njit(cache=True)
def grown_values(structure: tuple, values: np.ndarray) -> np.ndarray:
    """The entries, on the stored pattern of ``_CSCPattern.structure``, of the matrix whose position
    ``slot[k]`` sums ``values[k]``, after the pattern has taken this matrix's new nonzeros in (in
    place)."""
    slot, position_row, position_start, seen, place, start, row = structure
    summed = _summed(slot, values, seen.size)
    data = np.empty(seen.size)
    count = 0
    for column in range(start.size - 1):
        for k in range(position_start[column], position_start[column + 1]):
            seen[k] = seen[k] or summed[k] != 0.0
            place[k] = -1
            if seen[k]:
                data[count] = summed[k]
                row[count] = position_row[k]
                place[k] = count
                count += 1
        start[column + 1] = count
    return data[:count]


@njit(cache=True)
def stored_values(structure: tuple, values: np.ndarray) -> tuple[bool, np.ndarray]:
    """``(whether every nonzero is on the stored pattern, the entries there)`` of the matrix of
    ``_CSCPattern.structure`` whose position ``slot[k]`` sums ``values[k]``."""
    slot, _, _, _, place, start, _ = structure
    summed = _summed(slot, values, place.size)
    stored = np.zeros(start[-1])
    holds = True
    for k in range(place.size):
        if place[k] >= 0:
            stored[place[k]] = summed[k]
        elif summed[k] != 0.0:
            holds = False
    return holds, stored


@njit(cache=True)
def _pattern_factors(structure: tuple, values: np.ndarray, factors: tuple) -> tuple[bool, tuple]:
    """``(whether it is regular, the sparse factors)`` of the matrix of ``_CSCPattern.structure`` whose
    position ``slot[k]`` sums ``values[k]``: refactorized on the patterns and pivots of ``factors``
    (``sparse_refactorization``) when they fit, else factorized in their column order, pivoting
    (``sparse_lu``), on the stored pattern grown by the matrix's new nonzeros."""
    holds, stored = stored_values(structure, values)
    start, row = structure[5], structure[6]
    if holds:
        refactorized, refactorized_factors = sparse_refactorization(start, row, stored, factors)
        if refactorized:
            return True, refactorized_factors
    else:
        stored = grown_values(structure, values)
    return sparse_lu(start, row, stored, factors[6], factors[7])


@njit(cache=True)
def structured_factors(
    structure: tuple,
    K_data: np.ndarray,
    C_data: np.ndarray,
    c_position: float,
    c_velocity: float,
    entries: np.ndarray,
    stabilized: bool,
    factors: tuple,
) -> tuple:
    """The iteration matrix ``[[M - c_v C - c_q K, G^T], [G, 0]]`` and (``stabilized``) ``G G^T`` of
    ``SparseIterationPattern.structure`` from the data of ``K``, ``C`` (the pattern's) and the entries
    of ``G``, factorized in compiled code on the patterns and pivots of the sparse ``factors =
    (iteration matrix's, G G^T's)`` or, should they not fit, pivoting afresh in their column order
    (``_pattern_factors``): ``(whether both are regular, the iteration matrix's factors, G G^T's)``."""
    mass_values, iteration, first, second, gram = structure
    values = np.concatenate((mass_values, -c_position * K_data, -c_velocity * C_data, entries, entries))
    matrix_factors, gram_factors = factors
    regular, matrix_factors = _pattern_factors(iteration, values, matrix_factors)
    if regular and stabilized:
        regular, gram_factors = _pattern_factors(gram, _pair_products(entries, first, second), gram_factors)
    return regular, matrix_factors, gram_factors
