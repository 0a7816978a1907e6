"""Element blocks added into dense matrices: a compiled scatter over fixed index arrays (NumPy's
``np.add.at`` costs tens of microseconds a call on the small blocks of the per-step path)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray


@njit(cache=True)
def add_blocks(matrix: NDArray[np.float64], columns: NDArray[np.int64], blocks: NDArray[np.float64]) -> None:
    """``matrix[columns[k, i], columns[k, j]] += blocks[k, i, j]`` for every block ``k`` (k, w, w)
    at its coordinates ``columns`` (k, w), in place on the dense ``matrix`` (n, n); repeated
    coordinates add up."""
    for k in range(columns.shape[0]):
        for i in range(columns.shape[1]):
            row = columns[k, i]
            for j in range(columns.shape[1]):
                matrix[row, columns[k, j]] += blocks[k, i, j]


@njit(cache=True)
def add_entries(
    matrix: NDArray[np.float64], rows: NDArray[np.int64], columns: NDArray[np.int64], values: NDArray[np.float64]
) -> None:
    """``matrix[rows[k], columns[k]] += values[k]`` for every entry ``k``, in place on the dense ``matrix``;
    repeated places add up (``np.add.at`` on 2-d indices, without its cost per call)."""
    for k in range(rows.size):
        matrix[rows[k], columns[k]] += values[k]


def block_places(columns: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(rows, columns)`` (k w^2,) of the entries of blocks (k, w, w) at coordinates ``columns`` (k, w),
    in the row-major order of the blocks' values: ``add_entries(matrix, *block_places(columns),
    blocks.reshape(-1))`` is ``add_blocks(matrix, columns, blocks)``."""
    width = columns.shape[1]
    return np.repeat(columns, width, axis=1).reshape(-1), np.tile(columns, (1, width)).reshape(-1)
