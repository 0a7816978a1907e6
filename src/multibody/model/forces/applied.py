"""Applied loads: a force or a torque on one marker, from a constant, a time function or a callable."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.functions import TimeFunction
from multibody.model.marker import Marker


class MarkerState(NamedTuple):
    """What a load callable ``f(t, state)`` is told about its marker, world components."""

    position: NDArray[np.float64]
    """Marker origin [m], (3,)."""
    velocity: NDArray[np.float64]
    """Velocity of the marker origin [m/s], (3,)."""
    rotation: NDArray[np.float64]
    """``R_WM``, (3, 3)."""
    angular_velocity: NDArray[np.float64]
    """[rad/s], (3,)."""


LoadLaw = Callable[[float, MarkerState], NDArray[np.float64]]


class _AppliedLoad(ForceElement):
    """A 3-vector load on ``marker``: constant, three time functions, ``f(t)`` or ``f(t, state)``.

    ``frame`` says whether the vector is in world axes ("world") or in the marker's own axes
    ("marker", which turn with the body).
    """

    unit = ""
    marker_roles = ("marker",)

    def __init__(self, name: str, marker: Marker, value: object, frame: str = "world") -> None:
        super().__init__(name, marker)
        if frame not in ("world", "marker"):
            raise ModelError(f"{self.describe()}: frame must be 'world' or 'marker', got {frame!r}")
        self.frame = frame
        self.law = self._law(value)

    def _law(self, value: object) -> LoadLaw:
        if callable(value) and not isinstance(value, TimeFunction):
            try:
                arity = len(inspect.signature(value).parameters)
            except (TypeError, ValueError):
                arity = 1
            if arity >= 2:
                return lambda t, state: np.asarray(value(t, state), dtype=float)
            return lambda t, state: np.asarray(value(t), dtype=float)
        items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        if items is None or len(items) != 3:
            raise ModelError(
                f"{self.describe()}: give 3 components [{self.unit}] (numbers or time functions), "
                f"or a callable f(t) / f(t, state) returning 3 components; got {value!r}"
            )
        if all(isinstance(c, TimeFunction) or callable(c) for c in items):
            return lambda t, state: np.array([c(t) for c in items], dtype=float)
        try:
            constant = np.asarray(items, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(
                f"{self.describe()}: components must be numbers or time functions, got {value!r}"
            ) from None
        if not np.all(np.isfinite(constant)):
            raise ModelError(f"{self.describe()}: components must be finite, got {value!r}")
        return lambda t, state: constant


class PointForce(_AppliedLoad):
    """A force [N] applied at the origin of ``marker`` (action only, no reaction body)."""

    unit = "N"


class PointTorque(_AppliedLoad):
    """A torque [N m] applied to the body of ``marker`` (action only)."""

    unit = "N m"
