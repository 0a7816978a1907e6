"""State: time, positions, velocities and multipliers, explicitly passed around."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class State:
    """``t`` [s]; ``q`` (nq,) positions (rigid bodies: CM positions and Euler parameters); ``v``
    (nv,) velocities (rigid bodies: CM velocities, world, and angular velocities, body axes);
    ``lam`` (m,) Lagrange multipliers of the active rows; ``x`` (nx,) first-order states, laid out
    as ``System.layout`` says."""

    t: float
    q: NDArray[np.float64]
    v: NDArray[np.float64]
    lam: NDArray[np.float64]
    x: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
