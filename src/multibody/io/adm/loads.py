"""Load laws of the ADAMS force statements whose values are function expressions.

``ComponentLaw`` (VFORCE, VTORQUE, GFORCE): force and torque components along the axes of a
reference marker RM (ground when absent). ``ScalarLaw`` (SFORCE, rotational SPRINGDAMPER): one
value along the line from J to I (translational; positive pushes I away from J), along J's
z-axis (translational, action only), or about J's z-axis (rotational, positive turns I
right-handed about z_J). Expressions are in dataset units; ``unit`` factors turn them into N or N m.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from multibody.io.adm.expressions import Expression
from multibody.model.forces.expression import BoundLaw
from multibody.model.marker import Marker
from multibody.spatial.measurements import Measurements


def _union(*groups: Sequence[Marker | None]) -> tuple[Marker, ...]:
    """The markers of ``groups``, each once, in first-seen order (None left out)."""
    seen: list[Marker] = []
    for group in groups:
        seen += [m for m in group if m is not None and m not in seen]
    return tuple(seen)


def _bound(
    expression: Expression | None, index: dict[Marker, int], owner: str
) -> Callable[[Measurements], float] | None:
    """``expression`` bound to marker indices, raising ``ValueError`` naming ``owner`` when its
    value is not a finite number (SQRT of a negative, a STEP with x1 <= x0 ...)."""
    if expression is None:
        return None
    bound = expression.bind([index[m] for m in expression.markers])

    def checked(measurements: Measurements) -> float:
        try:
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                value = float(bound(measurements))
        except OverflowError:
            raise ValueError(f"{owner}: {expression.text!r} overflows at t = {measurements.time:g} s") from None
        except (ValueError, ArithmeticError) as error:
            raise ValueError(f"{owner}: {expression.text!r} at t = {measurements.time:g} s: {error}") from None
        if not np.isfinite(value):
            raise ValueError(f"{owner}: {expression.text!r} is {value} at t = {measurements.time:g} s")
        return value

    return checked


@dataclass(frozen=True)
class ComponentLaw:
    """Up to three force components [dataset force] and three torque components [dataset torque]
    in the axes of ``frame`` (None: ground); missing components are zero."""

    force: tuple[Expression | None, Expression | None, Expression | None]
    torque: tuple[Expression | None, Expression | None, Expression | None]
    frame: Marker | None
    force_unit: float
    torque_unit: float
    owner: str
    """the statement, for messages (``VFORCE/3``)"""
    markers: tuple[Marker, ...] = field(init=False)

    def __post_init__(self) -> None:
        reads = [m for e in (*self.force, *self.torque) if e is not None for m in e.markers]
        object.__setattr__(self, "markers", _union(reads, [self.frame]))

    def bind(self, marker_indices: Sequence[int]) -> BoundLaw:
        index = dict(zip(self.markers, marker_indices))
        force = [_bound(e, index, self.owner) for e in self.force]
        torque = [_bound(e, index, self.owner) for e in self.torque]
        frame = None if self.frame is None else index[self.frame]
        force_unit, torque_unit = self.force_unit, self.torque_unit

        def law(measurements: Measurements) -> tuple[np.ndarray, np.ndarray]:
            F = force_unit * np.array([0.0 if f is None else f(measurements) for f in force], dtype=float)
            T = torque_unit * np.array([0.0 if f is None else f(measurements) for f in torque], dtype=float)
            if frame is not None:
                R_WM = measurements.R_WM[frame]
                F, T = R_WM @ F, R_WM @ T
            return F, T

        return law


@dataclass(frozen=True)
class ScalarLaw:
    """One value [dataset force or torque] acting between ``i`` and ``j`` (see the module)."""

    expression: Expression
    rotational: bool
    action_only: bool
    i: Marker
    j: Marker
    unit: float
    owner: str
    """the statement, for messages (``SFORCE/3``)"""
    markers: tuple[Marker, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "markers", _union([self.i, self.j], self.expression.markers))

    def bind(self, marker_indices: Sequence[int]) -> BoundLaw:
        index = dict(zip(self.markers, marker_indices))
        value = _bound(self.expression, index, self.owner)
        i, j, unit = index[self.i], index[self.j], self.unit
        rotational, along_line = self.rotational, not (self.rotational or self.action_only)
        zero = np.zeros(3)

        def law(measurements: Measurements) -> tuple[np.ndarray, np.ndarray]:
            magnitude = unit * value(measurements)
            if along_line:
                d = measurements.p_WM_W[i] - measurements.p_WM_W[j]
                length = float(np.linalg.norm(d))
                return (magnitude / length) * d if length > 0.0 else zero, zero
            z_J = measurements.R_WM[j][:, 2]
            return (zero, magnitude * z_J) if rotational else (magnitude * z_J, zero)

        return law
