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
