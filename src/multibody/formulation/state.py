"""State: time, positions, velocities and multipliers, explicitly passed around."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class State:
    """``t`` [s]; ``q`` (7 nb,) CM positions and Euler parameters; ``v`` (6 nb,) CM velocities
    (world) and angular velocities (body); ``lam`` (m,) Lagrange multipliers of the active rows."""

    t: float
    q: NDArray[np.float64]
    v: NDArray[np.float64]
    lam: NDArray[np.float64]
