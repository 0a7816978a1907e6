"""Ropes over pulleys and winches.

A ``Rope`` runs along a ``route``, end to end: an anchor marker or a ``Winch`` first, any number
of ``Pulley``\\ s, an anchor marker or a ``Winch`` last. A pulley or winch in the route may carry
the sense in which the rope runs round it, ``(pulley, +1)`` or ``(pulley, -1)``: +1 when the
rope, travelling from the first end to the last, goes counterclockwise about the marker's z-axis
(the axle, right-handed), -1 clockwise. Without it a pulley's sense is the way the route turns
there in the input configuration (the rope bends round the pulley) and a winch's is +1.

``kind="moving_node"`` lays the rope as moving-node spans (``multibody.model.rope_span``: the rope
has mass, flows over the pulleys stuck to them, or sliding by the same capstan law on pulleys with
belt friction, and onto the drums). ``kind="massless"`` (the
default) is a massless path: the exact tangent lines
between the wrap circles and the arcs on them (``multibody.spatial.wrapping``), an axial
spring-damper law, tension only. Each free span acts on its two ends' bodies at its tangent
points; a winch reels rope in or pays it out as its drum turns. The rope adds one force element
per free span, named ``<rope>_span<k>`` (k = 1, 2 ...), whose value is the span's tension; the
rope's own value is the largest tension along it.

Over frictionless pulleys (the default) the tension is one all along. Pulleys with belt friction
or without slip (``Pulley(..., friction=mu | "no_slip")``) cut the rope into segments, each with
its own tension and its rest length a first-order state of the rope (after the winches' drum
angles; a pulley's arc is split between its two segments at its middle). Stuck to such a
pulley, the rope's material moves with its rim: the pulley's spin pays rope from one segment to
the other (rest length ``r spin dt / (1 + mean strain)``) and the span loads give it the torque
``(T_out - T_in) r``; beyond the capstan limit the rope slides (regularized, see ``Pulley``)
and the friction's work is booked as dissipated. The energy balance is exact with the rope's
strain energy ``1/2 EA (L_j - l_j)^2 / l_j`` per segment: the mean strain in the flow is what
makes the transfer of rest length between segments cost exactly the pulley's work. Statics
keeps the segments' rest lengths (the rope as it was laid, stuck); beyond the capstan limit it
has no equilibrium.

Pulleys may be tilted: the rope touches each in its plane (the tangent points of a span between
two circles in different planes are found by a fixed-point iteration, see
``multibody.spatial.wrapping``). Where a span leaves a pulley's plane (a fleet angle b) the
wrapped length is not stationary in the tangent point, so a span's loads are not just ``T u`` at
its tangent points: they are the exact gradient ``T dL/dq`` of the path length
(``multibody.spatial.wrapping.span_sensitivity``: a correction of order ``T b^2`` in force and
couple, the groove taking the side force), and the energy balance is exact whatever the fleet
angles. Over a frictionless pulley the massless path exerts no torque about its axle (one
tension, no bearing friction), so its spin is free; a winch takes ``T r`` (with a groove pitch the
stored length per radian is the helix's, the torque still ``T r``: a relative difference of
``(p / 2 pi r)^2 / 2``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from multibody.model.body import Ground
from multibody.model.element import Element, ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.marker import Marker
from multibody.spatial.rotations import FloatArray

ANCHOR, PULLEY, WINCH = 0, 1, 2
SLACK_TOLERANCE = 1e-6
"""the largest relative excess of a given rope length over the input path length"""
KINDS = ("massless", "moving_node")


def _positive(owner: str, what: str, value: float, unit: str) -> float:
    value = float(value)
    if not np.isfinite(value) or value <= 0.0:
        raise ModelError(f"{owner}: {what} must be a positive number [{unit}], got {value!r}")
    return value


class Pulley:
    """A sheave the rope runs over: the marker's z-axis is the axle, its origin the centre,
    ``radius`` [m] the pitch radius of the rope's centre line. The marker's body turns with the
    pulley (a body with a revolute joint, a free block); a marker on ground is a fixed guide
    (with friction: a fixed drum the rope slides over).

    ``friction`` between rope and sheave: ``None`` (default, also 0) a frictionless groove, the
    rope's tension the same on both sides and the sheave's spin free; a belt friction coefficient
    ``mu`` > 0 (capstan law: the rope sticks to the sheave while the tensions on its two sides
    stay within ``T_high / T_low <= exp(mu theta)`` for the wrap angle ``theta``, and slides
    towards the higher tension beyond); or ``"no_slip"`` (stuck whatever the tensions). With
    friction the sheave's spin pays rope from one side to the other and takes the torque
    ``(T_out - T_in) r``. ``slip_speed`` [m/s] regularizes sliding: the rope slides at
    ``slip_speed * excess / (T_in + T_out)``, the excess being by how much the higher tension
    exceeds ``exp(mu theta)`` times the lower (so at a sliding speed ``v`` the tension ratio
    exceeds ``exp(mu theta)`` by a relative ``(1 + exp(-mu theta)) v / slip_speed``). A moving-node
    rope sticks to a ring on such a pulley (``multibody.model.rope_span.RimRing``) whose sliding obeys
    the same law as a force, with stiction regularized below ``1e-4 slip_speed``: held within the
    limit, the rope creeps, at about that speed (``multibody.formulation.bodies.rope_span.STICKING_SPEED``)."""

    kind = "pulley"

    def __init__(
        self,
        name: str,
        marker: Marker,
        radius: float,
        friction: float | str | None = None,
        slip_speed: float = 1.0,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ModelError(f"{self.kind} name must be a non-empty string, got {name!r}")
        self.name = name
        if not isinstance(marker, Marker):
            raise ModelError(f"{self.describe()}: marker must be a Marker (from body.add_marker), got {marker!r}")
        self.marker = marker
        self.radius = _positive(self.describe(), "radius", radius, "m")
        self.friction = _friction(self.describe(), friction)
        self.slip_speed = _positive(self.describe(), "slip_speed", slip_speed, "m/s")

    def describe(self) -> str:
        return f"{self.kind} '{self.name}'"


def _friction(owner: str, friction: float | str | None) -> float | None:
    """``None`` (frictionless), a coefficient > 0, or ``inf`` for ``"no_slip"``."""
    if friction is None:
        return None
    if isinstance(friction, str):
        if friction != "no_slip":
            raise ModelError(f"{owner}: friction must be None, a coefficient mu > 0 or 'no_slip', got {friction!r}")
        return float("inf")
    mu = float(friction)
    if not np.isfinite(mu) or mu < 0.0:
        raise ModelError(
            f"{owner}: friction must be None, a coefficient mu >= 0 or 'no_slip' (not inf), got {friction!r}"
        )
    return mu or None


class Winch(Pulley):
    """A drum that pays rope out and reels it in: the marker's z-axis is the axle, ``radius``
    [m] the drum's pitch radius, ``groove_pitch`` [m] the axial advance per turn of a grooved
    drum (the rope on it is a helix, ``sqrt((2 pi r)^2 + p^2)`` per turn), ``stored_length`` [m] the
    rope wound on it at t = 0 (a moving-node rope carries the rope on the drum as part of the drum's
    inertia, paid out or reeled in; the massless kind ignores it). Drive it by a
    ``Motion`` on the revolute joint of the drum's body or by a torque."""

    kind = "winch"

    def __init__(
        self, name: str, marker: Marker, radius: float, groove_pitch: float | None = None, stored_length: float = 0.0
    ) -> None:
        super().__init__(name, marker, radius)
        self.stored_length = float(stored_length)
        """rope on the drum at t = 0 [m, unstretched]: its inertia turns with the drum (moving-node ropes)"""
        if not np.isfinite(self.stored_length) or self.stored_length < 0.0:
            raise ModelError(
                f"{self.describe()}: stored_length must be a non-negative length [m], got {stored_length!r}"
            )
        if isinstance(marker.body, Ground):
            raise ModelError(
                f"{self.describe()}: marker '{marker.name}' is on ground, so the drum cannot turn; "
                "put the marker on the drum's body (a body with a revolute joint)"
            )
        self.groove_pitch = (
            None if groove_pitch is None else _positive(self.describe(), "groove_pitch", groove_pitch, "m")
        )

    @property
    def length_per_radian(self) -> float:
        """Rope stored per radian of drum rotation [m/rad] (the helix's, with a groove pitch)."""
        pitch = 0.0 if self.groove_pitch is None else self.groove_pitch
        return float(np.hypot(self.radius, pitch / (2.0 * np.pi)))


RoutePoint = Marker | Pulley | tuple[Pulley, int]


@dataclass(frozen=True)
class Reeving:
    """A rope's route in the input configuration: per route point (n) its marker, kind (ANCHOR,
    PULLEY, WINCH), radius [m], sense (+1/-1), stored length per radian [m/rad] (winches), the
    angle of its tangent point in the marker's x-y plane [rad] (winches), and the rest length of
    the free rope [m]."""

    markers: tuple[Marker, ...]
    names: tuple[str, ...]
    kind: tuple[int, ...]
    radius: FloatArray
    sense: FloatArray
    length_per_radian: FloatArray
    tangent_angle: FloatArray
    reference_axis: FloatArray
    """(n, 3) a winch marker's x-axis in world in the input configuration (zero at other points)"""
    rest_length: float
    path_length: float
    friction: FloatArray
    """(n,) a pulley's belt friction coefficient (inf: no slip; 0: frictionless, and at the ends)"""
    slip_speed: FloatArray
    """(n,) [m/s] (see ``Pulley``)"""
    segment_rest_length: FloatArray
    """(s,) [m] the rest length of each segment of the rope between pulleys with friction (one
    segment without), a pulley with friction split between its two segments at its arc's middle"""


class Rope(ForceElement):
    """A rope along ``route`` (see the module docstring).

    ``diameter`` [m] (drawing), ``axial_stiffness`` EA [N], ``mass_per_length`` [kg/m] (not used
    by the massless kind: its weight is neglected), ``elements_per_span`` (moving-node kind),
    ``damping``: the massless kind's [N s/m] on the rate of stretch, the moving-node kind's [N s] on
    the strain rate (tension ``max(EA eps + damping d(eps)/dt, 0)``); ``smoothing`` h [s]
    (moving-node kind: the paper's stress smoothing, the stress averaged over h, ``EA (eps + h/2
    d(eps)/dt + h^2/6 d2(eps)/dt2)``, which filters the axial modes above about ``sqrt(6) / h``
    rad/s). The rope is unstretched in the input configuration unless ``pretension`` [N] (its
    initial tension) or ``length`` [m] (its unstretched free length at t = 0, at most the input path
    length) is given.

    Tension ``T = EA (L - L0 - p) / (L0 + p) + damping * rate`` (0 when slack) for the path
    length ``L`` (free spans, arcs on pulleys, and the arc on a winch from its initial tangent
    point), rest length ``L0`` and paid-out length ``p`` (winch drum rotation since t = 0 times
    the length per radian; paying out is positive). Each winch's drum angle [rad] is a
    first-order state of the rope (``results.state(name)``).
    """

    kind = "rope"
    marker_roles = ()

    def __init__(
        self,
        name: str,
        route: Sequence[RoutePoint],
        diameter: float,
        axial_stiffness: float,
        mass_per_length: float,
        elements_per_span: int = 5,
        kind: str = "massless",
        damping: float = 0.0,
        pretension: float = 0.0,
        length: float | None = None,
        smoothing: float = 0.0,
    ) -> None:
        Element.__init__(self, name)
        if kind not in KINDS:
            raise ModelError(f"{self.describe()}: kind must be 'massless' or 'moving_node', got {kind!r}")
        self.rope_kind = kind
        owner = self.describe()
        self.diameter = _positive(owner, "diameter", diameter, "m")
        self.axial_stiffness = _positive(owner, "axial_stiffness (EA)", axial_stiffness, "N")
        self.mass_per_length = _positive(owner, "mass_per_length", mass_per_length, "kg/m")
        if not isinstance(elements_per_span, int | np.integer) or elements_per_span < 1:
            raise ModelError(f"{owner}: elements_per_span must be a positive integer, got {elements_per_span!r}")
        self.elements_per_span = int(elements_per_span)
        self.damping = float(damping)
        if not np.isfinite(self.damping) or self.damping < 0.0:
            raise ModelError(f"{owner}: damping must be a non-negative number [N s/m], got {damping!r}")
        self.smoothing = float(smoothing)
        if not np.isfinite(self.smoothing) or self.smoothing < 0.0 or (self.smoothing and kind != "moving_node"):
            raise ModelError(
                f"{owner}: smoothing must be a non-negative time [s] and is for kind='moving_node', got {smoothing!r}"
            )
        self.pretension = float(pretension)
        if not np.isfinite(self.pretension) or self.pretension < 0.0:
            raise ModelError(f"{owner}: pretension must be a non-negative number [N], got {pretension!r}")
        if length is not None and self.pretension:
            raise ModelError(f"{owner}: give pretension or length, not both")
        self.length = None if length is None else _positive(owner, "length", length, "m")
        self.points, self.given_sense = self._route(route)
        self.i_marker = None
        self.j_marker = None
        if kind == "moving_node":
            from multibody.model.rope_span import moving_node_parts

            self.parts = moving_node_parts(self)
            return
        self.parts = tuple(
            RopeSpan(f"{name}_span{k + 1}", self, k, self._marker(a), self._marker(b))
            for k, (a, b) in enumerate(zip(self.points[:-1], self.points[1:]))
        )

    @property
    def initial_states(self) -> FloatArray:  # type: ignore[override]
        """Each winch's drum angle [rad] (0), then, with pulleys with friction on the route, the
        rest length [m] of each segment between them (``Reeving.segment_rest_length``)."""
        winches = np.zeros(sum(isinstance(p, Winch) for p in self.points))
        if not self.has_friction:
            return winches
        return np.concatenate([winches, self.reeving().segment_rest_length])

    @property
    def has_friction(self) -> bool:
        """Whether a pulley of the route has friction (the rope is then in segments)."""
        return any(getattr(p, "friction", None) is not None for p in self.points)

    @staticmethod
    def _marker(point: Marker | Pulley) -> Marker:
        return point if isinstance(point, Marker) else point.marker

    def _route(self, route: Sequence[RoutePoint]) -> tuple[tuple[Marker | Pulley, ...], tuple[float, ...]]:
        owner = self.describe()
        if isinstance(route, str | bytes) or not isinstance(route, Sequence) or len(route) < 2:
            raise ModelError(
                f"{owner}: route must list at least two points, end to end (an anchor marker or a winch first "
                f"and last, pulleys between), got {route!r}"
            )
        points: list[Marker | Pulley] = []
        senses: list[float] = []
        for position, entry in enumerate(route):
            point, sense = entry if isinstance(entry, tuple) else (entry, 0.0)
            end = position in (0, len(route) - 1)
            if isinstance(point, Marker):
                if isinstance(entry, tuple):
                    raise ModelError(f"{owner}: anchor marker '{point.name}' has no wrap sense; list it alone")
                if not end:
                    raise ModelError(
                        f"{owner}: marker '{point.name}' is in the middle of the route; only the two ends are "
                        "anchor markers: put a Pulley there for the rope to run over"
                    )
            elif isinstance(point, Winch):
                if not end:
                    raise ModelError(f"{owner}: {point.describe()} is in the middle of the route; a winch is an end")
            elif isinstance(point, Pulley):
                if end:
                    raise ModelError(
                        f"{owner}: {point.describe()} is an end of the route; the ends are anchor markers or winches"
                    )
            else:
                raise ModelError(f"{owner}: route point {position} must be a Marker, Pulley or Winch, got {point!r}")
            if isinstance(entry, tuple) and (len(entry) != 2 or sense not in (1, -1)):
                raise ModelError(
                    f"{owner}: the wrap sense of {point.describe()} must be +1 (counterclockwise about the marker's "
                    f"z-axis) or -1 (clockwise), as (pulley, +1); got {entry!r}"
                )
            points.append(point)
            senses.append(float(sense))
        markers = [self._marker(p) for p in points]
        for k, marker in enumerate(markers):
            if any(marker is other for other in markers[:k]):
                raise ModelError(f"{owner}: marker '{marker.name}' appears twice in the route; give each point its own")
        return tuple(points), tuple(senses)

    def attached_markers(self) -> tuple[Marker, ...]:
        """The markers of the route, end to end."""
        return tuple(self._marker(p) for p in self.points)

    def reeving(self) -> Reeving:
        """The route in the input configuration (bodies where the model puts them): default
        senses, winch tangent angles and the rest length; ``ModelError`` naming the problem
        when the path cannot be laid or the rope would start slack."""
        from multibody.spatial.wrapping import wrapped_path

        owner = self.describe()
        markers = self.attached_markers()
        poses = [_input_pose(m) for m in markers]
        C = np.array([p for p, _ in poses])
        z = np.array([R[:, 2] for _, R in poses])
        kind = tuple(
            WINCH if isinstance(p, Winch) else PULLEY if isinstance(p, Pulley) else ANCHOR for p in self.points
        )
        radius = np.array([0.0 if isinstance(p, Marker) else p.radius for p in self.points])
        sense = np.array(self.given_sense)
        for k in range(len(sense)):
            if kind[k] == WINCH and not sense[k]:
                sense[k] = 1.0
            elif kind[k] == PULLEY and not sense[k]:
                incoming, outgoing = C[k] - C[k - 1], C[k + 1] - C[k]
                turn = z[k] @ np.cross(incoming, outgoing)
                if abs(turn) <= 1e-9 * np.linalg.norm(incoming) * np.linalg.norm(outgoing):
                    raise ModelError(
                        f"{owner}: the route runs straight past {self.points[k].describe()} in the input configuration, "
                        "so its wrap sense is not clear; give it as (pulley, +1) or (pulley, -1)"
                    )
                sense[k] = np.sign(turn)
        X_in, X_out, spans, wraps = wrapped_path(C, z, radius, sense)
        if not np.all(np.isfinite(spans)):
            k = int(np.flatnonzero(~np.isfinite(spans))[0])
            raise ModelError(
                f"{owner}: no tangent line from route point {k} ('{markers[k].name}') to route point {k + 1} "
                f"('{markers[k + 1].name}') in the input configuration: one lies inside the other's circle; "
                "move the bodies apart or reduce the radii"
            )
        tangent_angle = np.zeros(len(kind))
        reference_axis = np.zeros((len(kind), 3))
        for k in (0, len(kind) - 1):
            if kind[k] == WINCH:
                _, R_WM = poses[k]
                arm = R_WM.T @ ((X_out[k] if k == 0 else X_in[k]) - C[k])
                tangent_angle[k] = np.arctan2(arm[1], arm[0])
                reference_axis[k] = R_WM[:, 0]
        path_length = float(spans.sum() + radius @ wraps)
        friction = np.array([getattr(p, "friction", None) or 0.0 for p in self.points])
        segment_length = segment_lengths(spans, radius * wraps, friction > 0.0)
        if self.length is not None:
            if self.length > path_length * (1.0 + SLACK_TOLERANCE):
                raise ModelError(
                    f"{owner}: the rope starts slack: length {self.length:.6g} m exceeds the input path length "
                    f"{path_length:.6g} m by {self.length - path_length:.3g} m; shorten it to at most the path length "
                    "(or give a pretension instead)"
                )
            rest_length = self.length
        else:
            rest_length = path_length / (1.0 + self.pretension / self.axial_stiffness)
        segment_rest_length = segment_length * (rest_length / path_length)  # one initial strain all along
        per_radian = np.array([p.length_per_radian if isinstance(p, Winch) else 0.0 for p in self.points])
        return Reeving(
            markers=markers,
            names=tuple(p.name if isinstance(p, Pulley) else p.full_name for p in self.points),
            kind=kind,
            radius=radius,
            sense=sense,
            length_per_radian=per_radian,
            tangent_angle=tangent_angle,
            reference_axis=reference_axis,
            rest_length=float(rest_length),
            path_length=path_length,
            friction=friction,
            slip_speed=np.array([getattr(p, "slip_speed", 0.0) if isinstance(p, Pulley) else 0.0 for p in self.points]),
            segment_rest_length=segment_rest_length,
        )

    @property
    def drawing(self) -> dict[str, object]:
        """What the animation and ``Results.rope`` need: the route (marker full names, kinds,
        radii, senses, stored length per radian, winch tangent angles, friction: 0, mu or
        "no_slip"), rest length [m] (of a rope in one segment), diameter [m], EA [N]; a moving-node
        rope's kind and span names."""
        reeving = self.reeving()
        moving_node = (
            {"kind": "moving_node", "spans": [part.name for part in self.parts if part.kind == "rope span"]}
            if self.rope_kind == "moving_node"
            else {}
        )
        return moving_node | {
            "diameter": self.diameter,
            "axial_stiffness": self.axial_stiffness,
            "rest_length": reeving.rest_length,
            "route": [
                {
                    "name": name,
                    "marker": marker.full_name,
                    "kind": int(kind),
                    "radius": float(radius),
                    "sense": float(sense),
                    "length_per_radian": float(per_radian),
                    "tangent_angle": float(angle),
                    "friction": "no_slip" if np.isinf(friction) else float(friction),
                }
                for name, marker, kind, radius, sense, per_radian, angle, friction in zip(
                    reeving.names,
                    reeving.markers,
                    reeving.kind,
                    reeving.radius,
                    reeving.sense,
                    reeving.length_per_radian,
                    reeving.tangent_angle,
                    reeving.friction,
                )
            ],
        }


class RopeSpan(ForceElement):
    """One free span of a ``Rope`` (added with it): the tension along the span acts at the
    tangent points on the bodies of the span's start (I) and end (J) markers."""

    kind = "rope span"

    def __init__(self, name: str, rope: Rope, index: int, i_marker: Marker, j_marker: Marker) -> None:
        Element.__init__(self, name)  # the two ends may share a body (a span between two fixed guides)
        self.rope = rope
        self.index = index
        self.i_marker = i_marker
        self.j_marker = j_marker


def segment_lengths(spans: FloatArray, arcs: FloatArray, boundary: NDArray[np.bool_]) -> FloatArray:
    """(s,) [m] the lengths of a rope's segments between the route points where ``boundary``
    (n,) holds (pulleys with friction), from its ``spans`` (n - 1,) and the arcs (n,) on its
    points; a boundary's arc is split between its two segments."""
    segment = np.concatenate([[0], np.cumsum(boundary[1:-1])])  # the segment of each span
    lengths = np.zeros(segment[-1] + 1)
    np.add.at(lengths, segment, spans)
    for k in range(1, len(arcs) - 1):
        if boundary[k]:
            lengths[segment[k - 1]] += arcs[k] / 2
            lengths[segment[k]] += arcs[k] / 2
        else:
            lengths[segment[k]] += arcs[k]
    return lengths


def _input_pose(marker: Marker) -> tuple[FloatArray, FloatArray]:
    """``(p_WM (3,), R_WM (3, 3))`` of ``marker`` with its body where the model puts it."""
    body = marker.body
    p_WB = getattr(body, "position", np.zeros(3))
    R_WB = getattr(body, "orientation", np.eye(3))
    return p_WB + R_WB @ marker.position, R_WB @ marker.orientation
