"""Sparse LU factors in compiled code: factorization with threshold partial pivoting, refactorization on
fixed patterns and pivots, and substitution.

The factors are ``Pr A Pc = L U`` by compressed columns: each column of ``L`` starts at its unit
diagonal, each column of ``U`` holds its rows ascending and ends at its diagonal; ``(Pr b)[row_permutation[i]]
= b[i]`` and ``(Pc z)[i] = z[column_permutation[i]]`` (SciPy's ``SuperLU.perm_r``, ``perm_c``), as the tuple
``(L start, L rows, L values, U start, U rows, U values, row_permutation, column_permutation)``
(``linear.Factorization.kernel_factors``). The column order (fill-reducing) comes from a factorization
by SuperLU; the elimination is left-looking, column by column (Gilbert & Peierls): a column's rows are
those its rows of ``A`` reach through the columns of ``L`` before it. The patterns count every entry the
elimination reaches, whatever its value, so that matrices of the same pattern refactorize on them.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

REFACTORED_PIVOT = 0.1
"""Smallest pivot, relative to the entries below it, that ``sparse_refactorization`` keeps and that
``sparse_lu`` prefers to the largest (SuperLU pivots partially: at 1, the largest of the column);
entries of ``L`` stay below 10."""


@njit(cache=True)
def sparse_lu(
    start: NDArray[np.int64],
    row: NDArray[np.int64],
    value: NDArray[np.float64],
    preferred_permutation: NDArray[np.int64],
    column_permutation: NDArray[np.int64],
) -> tuple[bool, tuple]:
    """The factors ``Pr A Pc = L U`` of the CSC matrix ``A`` (``start`` (n+1,), ``row``, ``value``: every
    stored position counts, whatever its value) in the column order ``column_permutation``, pivoting
    partially: in column ``j`` the row ``preferred_permutation`` puts at ``j`` (the last pivots) while it
    is at least ``REFACTORED_PIVOT`` times the largest candidate, else the largest. Returns ``(whether
    it is regular, the factors)``: not when a column has no nonzero candidate or a value is not finite
    (then the factors are meaningless)."""
    n = start.size - 1
    column_of = np.empty(n, np.int64)
    preferred_row = np.empty(n, np.int64)
    for k in range(n):
        column_of[column_permutation[k]] = k
        preferred_row[preferred_permutation[k]] = k
    pivot_of = np.full(n, -1, np.int64)  # original row -> its pivot's column
    capacity = max(4 * n, 2 * start[n]) + 1
    lower_start, upper_start = np.zeros(n + 1, np.int64), np.zeros(n + 1, np.int64)
    lower_row, upper_row = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
    lower, upper = np.empty(capacity), np.empty(capacity)
    work = np.zeros(n)
    marked = np.zeros(n, np.bool_)
    reach, stack, resume = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    for j in range(n):
        source = column_of[j]
        top = n
        for k in range(start[source], start[source + 1]):
            if not marked[row[k]]:
                top = _depth_first(row[k], pivot_of, lower_start, lower_row, marked, stack, resume, reach, top)
            work[row[k]] = value[k]
        # the rows of pivots before j in an order that eliminates each after those it depends on
        upper_count, n_above = upper_start[j], 0
        upper_row, upper = _grown(upper_row, upper_count + n - top + 1), _grown(upper, upper_count + n - top + 1)
        finite = True
        for p in range(top, n):
            r = reach[p]
            column = pivot_of[r]
            if column < 0:
                continue
            u = work[r]
            finite = finite and np.isfinite(u)
            upper_row[upper_count + n_above] = column
            upper[upper_count + n_above] = u
            n_above += 1
            for i in range(lower_start[column] + 1, lower_start[column + 1]):
                work[lower_row[i]] -= lower[i] * u
        largest, chosen = 0.0, -1
        for p in range(top, n):
            r = reach[p]
            if pivot_of[r] < 0:
                finite = finite and np.isfinite(work[r])
                if abs(work[r]) > largest:
                    largest, chosen = abs(work[r]), r
        preferred = preferred_row[j]
        if marked[preferred] and pivot_of[preferred] < 0 and abs(work[preferred]) >= REFACTORED_PIVOT * largest:
            chosen = preferred
        if chosen < 0 or not finite or not largest < np.inf or work[chosen] == 0.0:
            return False, (lower_start, lower_row, lower, upper_start, upper_row, upper, pivot_of, column_permutation)
        pivot = work[chosen]
        pivot_of[chosen] = j
        _sort_pairs(upper_row, upper, upper_count, n_above)
        upper_row[upper_count + n_above] = j
        upper[upper_count + n_above] = pivot
        upper_start[j + 1] = upper_count + n_above + 1
        lower_count = lower_start[j]
        lower_row, lower = _grown(lower_row, lower_count + n - top + 1), _grown(lower, lower_count + n - top + 1)
        lower_row[lower_count] = chosen
        lower[lower_count] = 1.0
        n_below = 1
        for p in range(top, n):
            r = reach[p]
            if pivot_of[r] < 0:
                lower_row[lower_count + n_below] = r
                lower[lower_count + n_below] = work[r] / pivot
                n_below += 1
            work[r] = 0.0
            marked[r] = False
        lower_start[j + 1] = lower_count + n_below
    lower_count = lower_start[n]
    for k in range(lower_count):
        lower_row[k] = pivot_of[lower_row[k]]
    factors = (
        lower_start,
        lower_row[:lower_count].copy(),
        lower[:lower_count].copy(),
        upper_start,
        upper_row[: upper_start[n]].copy(),
        upper[: upper_start[n]].copy(),
        pivot_of,
        column_permutation,
    )
    return True, factors


@njit(cache=True, inline="always")
def _depth_first(
    origin: int,
    pivot_of: NDArray[np.int64],
    lower_start: NDArray[np.int64],
    lower_row: NDArray[np.int64],
    marked: NDArray[np.bool_],
    stack: NDArray[np.int64],
    resume: NDArray[np.int64],
    reach: NDArray[np.int64],
    top: int,
) -> int:
    """``sparse_lu``'s search: the rows that row ``origin`` reaches through the columns of ``L`` of the
    pivots so far (``pivot_of``: -1 for rows not yet pivots; ``L``'s rows original), marked and put
    before ``reach[top:]`` in reverse post-order (each row before those it reaches); returns the new
    ``top``."""
    depth = 0
    stack[0] = origin
    marked[origin] = True
    column = pivot_of[origin]
    resume[0] = lower_start[column] + 1 if column >= 0 else 0
    while depth >= 0:
        r = stack[depth]
        column = pivot_of[r]
        descended = False
        if column >= 0:
            for i in range(resume[depth], lower_start[column + 1]):
                child = lower_row[i]
                if not marked[child]:
                    resume[depth] = i + 1
                    depth += 1
                    stack[depth] = child
                    marked[child] = True
                    below = pivot_of[child]
                    resume[depth] = lower_start[below] + 1 if below >= 0 else 0
                    descended = True
                    break
        if not descended:
            depth -= 1
            top -= 1
            reach[top] = r
    return top


@njit(cache=True, inline="always")
def _sort_pairs(keys: NDArray[np.int64], values: NDArray[np.float64], offset: int, count: int) -> None:
    """``keys[offset : offset + count]`` ascending, ``values`` alongside (insertion sort: a column's few
    rows, without the allocations of ``np.argsort``)."""
    for k in range(offset + 1, offset + count):
        key, value, i = keys[k], values[k], k
        while i > offset and keys[i - 1] > key:
            keys[i], values[i] = keys[i - 1], values[i - 1]
            i -= 1
        keys[i], values[i] = key, value


@njit(cache=True)
def _grown(array: np.ndarray, needed: int) -> np.ndarray:
    """``array`` itself when it holds ``needed`` entries, else a copy twice as long (or as needed)."""
    if needed <= array.size:
        return array
    grown = np.empty(max(2 * array.size, needed), array.dtype)
    grown[: array.size] = array
    return grown


@njit(cache=True)
def sparse_refactorization(
    start: NDArray[np.int64], row: NDArray[np.int64], value: NDArray[np.float64], factors: tuple
) -> tuple[bool, tuple]:
    """The factors ``Pr A Pc = L U`` of the CSC matrix ``A`` (``start`` (n+1,), ``row``, ``value``) with the
    permutations and the patterns of ``L`` and ``U`` of ``factors`` (``Factorization.kernel_factors``
    of a matrix of this pattern), only the values computed afresh: a left-looking elimination column
    by column (Gilbert & Peierls) without pivoting, so that compiled code refactorizes a sparse matrix
    of a fixed pattern. Returns ``(whether it holds, the factors)``; it does not hold -- factorize
    afresh, pivoting (SuperLU) -- when a nonzero or its fill falls outside the patterns, or when a
    pivot is below ``REFACTORED_PIVOT`` times an entry below it (the pivot order no longer fits the
    values), zero or not finite; ``sparse_lu`` then pivots afresh in compiled code."""
    lower_start, lower_row, lower_value, upper_start, upper_row, upper_value, row_permutation, column_permutation = (
        factors
    )
    n = start.size - 1
    lower, upper = np.empty_like(lower_value), np.empty_like(upper_value)
    column_of = np.empty(n, np.int64)
    for k in range(n):
        column_of[column_permutation[k]] = k
    work = np.zeros(n)
    allowed = np.zeros(n, np.bool_)
    holds = True
    for j in range(n):
        for k in range(upper_start[j], upper_start[j + 1]):
            allowed[upper_row[k]] = True
        for k in range(lower_start[j], lower_start[j + 1]):
            allowed[lower_row[k]] = True
        source = column_of[j]
        for k in range(start[source], start[source + 1]):
            if value[k] != 0.0:
                target = row_permutation[row[k]]
                holds = holds and allowed[target]
                work[target] = value[k]
        diagonal = upper_start[j + 1] - 1
        for k in range(upper_start[j], diagonal):
            r = upper_row[k]
            u = work[r]
            upper[k] = u
            if u != 0.0:
                for i in range(lower_start[r] + 1, lower_start[r + 1]):
                    target = lower_row[i]
                    holds = holds and allowed[target]
                    work[target] -= lower[i] * u
        pivot = work[j]
        below = 0.0
        for k in range(lower_start[j] + 1, lower_start[j + 1]):
            below = max(below, abs(work[lower_row[k]]))
        holds = holds and abs(pivot) >= REFACTORED_PIVOT * below and 0.0 < abs(pivot) < np.inf
        if not holds:
            return False, factors
        upper[diagonal] = pivot
        lower[lower_start[j]] = 1.0
        for k in range(lower_start[j] + 1, lower_start[j + 1]):
            lower[k] = work[lower_row[k]] / pivot
        for k in range(upper_start[j], upper_start[j + 1]):
            work[upper_row[k]] = 0.0
            allowed[upper_row[k]] = False
        for k in range(lower_start[j], lower_start[j + 1]):
            work[lower_row[k]] = 0.0
            allowed[lower_row[k]] = False
    return True, (lower_start, lower_row, lower, upper_start, upper_row, upper, row_permutation, column_permutation)


@njit(cache=True)
def sparse_lu_solve(
    lower_start: np.ndarray,
    lower_row: np.ndarray,
    lower_value: np.ndarray,
    upper_start: np.ndarray,
    upper_row: np.ndarray,
    upper_value: np.ndarray,
    row_permutation: np.ndarray,
    column_permutation: np.ndarray,
    rhs: np.ndarray,
) -> np.ndarray:
    """``A^-1 rhs`` (n,) from the sparse factors ``Pr A Pc = L U`` in the form the module describes
    (``sparse_lu``'s, ``linear.Factorization.kernel_factors``), by substitution column by column."""
    n = rhs.size
    w = np.empty(n)
    for i in range(n):
        w[row_permutation[i]] = rhs[i]
    for j in range(n):
        wj = w[j]
        if wj != 0.0:
            for k in range(lower_start[j] + 1, lower_start[j + 1]):
                w[lower_row[k]] -= lower_value[k] * wj
    for j in range(n - 1, -1, -1):
        diagonal = upper_start[j + 1] - 1
        w[j] /= upper_value[diagonal]
        wj = w[j]
        if wj != 0.0:
            for k in range(upper_start[j], diagonal):
                w[upper_row[k]] -= upper_value[k] * wj
    x = np.empty(n)
    for i in range(n):
        x[i] = w[column_permutation[i]]
    return x
