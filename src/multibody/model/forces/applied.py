"""Applied loads: a force or a torque on one marker, from a constant, a time function or a callable."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from multibody.model.element import LawError, ModelError
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
                return self._checked(lambda t, state: value(t, state))
            return self._checked(lambda t, state: value(t))
        items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        if items is None or len(items) != 3:
            raise ModelError(
                f"{self.describe()}: give 3 components [{self.unit}] (numbers or time functions), "
                f"or a callable f(t) / f(t, state) returning 3 components; got {value!r}"
            )
        if all(isinstance(c, TimeFunction) or callable(c) for c in items):
            return self._checked(lambda t, state: [c(t) for c in items])
        try:
            constant = np.asarray(items, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(
                f"{self.describe()}: components must be numbers or time functions, got {value!r}"
            ) from None
        if not np.all(np.isfinite(constant)):
            raise ModelError(f"{self.describe()}: components must be finite, got {value!r}")
        return lambda t, state: constant

    def _checked(self, user_law: Callable[[float, MarkerState], object]) -> LoadLaw:
        """``user_law`` whose every failure is a ``LawError`` naming this element and the time:
        an exception it raises, a value that is not 3 numbers."""
        owner, unit = self.describe(), self.unit

        def law(t: float, state: MarkerState) -> NDArray[np.float64]:
            try:
                value = user_law(t, state)
            except Exception as error:
                raise LawError(
                    f"{owner}: its load function raised {type(error).__name__}: {error} at t = {t:.6g} s"
                ) from error
            try:
                vector = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                vector = None
            if vector is None or vector.shape != (3,):
                raise LawError(
                    f"{owner}: its load function returned {value!r} at t = {t:.6g} s; it must return 3 numbers [{unit}]"
                )
            return vector  # a non-finite value is the integrator's: it retries smaller steps, then names us

        return law


class PointForce(_AppliedLoad):
    """A force [N] applied at the origin of ``marker`` (action only, no reaction body)."""

    unit = "N"


class PointTorque(_AppliedLoad):
    """A torque [N m] applied to the body of ``marker`` (action only)."""

    unit = "N m"
