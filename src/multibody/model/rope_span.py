"""Moving-node rope spans and their contacts with pulleys, drums and anchors (Qi, Guo & Zhuo 2019).

A ``MovingNodeSpan`` is the free rope between two route points of a ``Rope(kind="moving_node")``:
an ANCF cable (``multibody.model.cable``) whose two end nodes are *spatial* points, the tangent
points on a pulley or drum or an anchor, while the rope's material flows through them: their
material coordinates ``s_0``, ``s_n`` [m of unstretched rope from the rope's first end] are two
more coordinates of the span (``multibody.formulation.bodies.rope_span``).

The span's end nodes are tied to the route by joints whose rows the constraint kernels know:

``RimContact``   the end node on a pulley's or drum's rim: in its mid-plane (``in_plane``; on a
                 grooved drum, in the groove: ``groove``), at the radius (``on_cylinder``), the
                 rope tangent to the rim (``rim_tangent``: ``x_I . d_r = 0``, the rope may leave
                 the plane: its fleet or swing angle is free), and stuck to the
                 rim (``rim_material``: ``s - s_ref = sense r psi``, ``psi`` the angle of the node
                 about the axle in the pulley's body axes). The rope on the rim keeps the strain it
                 was laid with (the rope's initial strain, ``k = sense r / (1 + strain)``): stuck,
                 it cannot stretch there, so a change of tension ``dT`` since then is off by
                 ``dT / EA`` on the rim (the paper carries the strain along the wrap instead).
``RopeAnchor``   the end node at an anchor marker, its material coordinate fixed.

On a pulley with belt friction (``Pulley(..., friction=mu)``) the rope is stuck not to the pulley
but to a ``RimRing``: a body on the pulley's axle (a revolute joint to it) with no mass of its own,
carrying the rope wrapped on the rim. The ring turns with the rope; the capstan law between ring
and pulley (``multibody.formulation.bodies.rope_span.add_sheave_friction``) lets it slide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from multibody.model.body import RigidBody
from multibody.model.cable import AncfCable, CableMarker
from multibody.model.element import ModelError
from multibody.model.joints.base import ConstraintRow, Joint, coincident, in_plane
from multibody.model.marker import Marker
from multibody.model.material import Material, Section

if TYPE_CHECKING:
    from multibody.model.forces.rope import Rope

FloatArray = np.ndarray


class MovingNodeSpan(AncfCable):
    """A free rope span through ``points`` (n+1, 3) [m] (its nodes; the first and last are the
    span's ends on the route) whose ends are at the material coordinates ``start``, ``end`` [m]
    (unstretched length ``end - start``; the nodes' slopes start at ``chord / rest length`` of
    each element, the strain of a straight span). ``axial_stiffness`` EA [N],
    ``mass_per_length`` [kg/m], ``damping`` eta [N s]: tension ``max(EA eps + eta d(eps)/dt, 0)``
    (0 when slack); ``smoothing`` h [s], the paper's stress smoothing ``EA (eps + h/2 d(eps)/dt +
    h^2/6 d2(eps)/dt2)``, besides; ``diameter`` [m] for drawing. Markers sit at the two ends only
    (``start_marker``, ``end_marker``): inside the span a node is not at a fixed material point."""

    kind = "rope span"

    def __init__(
        self,
        name: str,
        points: ArrayLike,
        start: float,
        end: float,
        axial_stiffness: float,
        mass_per_length: float,
        diameter: float,
        damping: float = 0.0,
        smoothing: float = 0.0,
    ) -> None:
        area = np.pi * diameter**2 / 4.0
        second_moment = np.pi * diameter**4 / 64.0
        section = Section(area=area, Iy=second_moment, Iz=second_moment, J=2.0 * second_moment)
        material = Material(E=axial_stiffness / area, nu=0.3, density=mass_per_length / area)
        super().__init__(name, points, section, material)
        owner = self.describe()
        self.material_ends = np.array([float(start), float(end)])
        """(2,) the ends' material coordinates [m] in the input configuration"""
        if not np.all(np.isfinite(self.material_ends)) or self.material_ends[1] <= self.material_ends[0]:
            raise ModelError(f"{owner}: its end's material coordinate {end!r} must exceed its start's {start!r} [m]")
        self.rope_damping = float(damping)
        self.smoothing = float(smoothing)
        """[s] the stress smoothing's time h (``multibody.formulation.bodies.rope_span.span_terms``)"""
        self.diameter = float(diameter)
        """[m] the rope's (its elements may not shrink below it)"""
        rest = (self.material_ends[1] - self.material_ends[0]) / self.n_elements
        if rest < self.diameter:
            raise ModelError(
                f"{owner}: its {self.n_elements} elements would be {rest:.3g} m long, shorter than the rope's diameter "
                f"{self.diameter:g} m; give the rope fewer elements_per_span"
            )
        n_nodes = self.n_elements + 1
        coordinates = self.reference_coordinates.reshape(n_nodes, 6)
        stretch = np.r_[self.lengths[:1], 0.5 * (self.lengths[:-1] + self.lengths[1:]), self.lengths[-1:]] / rest
        coordinates[:, 3:] *= stretch[:, None]
        self.reference_coordinates = coordinates.reshape(-1)
        self.start_marker = self.marker_at(f"{name}_start", 0.0)
        self.end_marker = self.marker_at(f"{name}_end", self.length)

    @property
    def initial_coordinates(self) -> FloatArray:
        """(6 (n+1) + 2,) the span's coordinates in the input configuration: nodes, then ``s_0, s_n``."""
        return np.r_[self.reference_coordinates, self.material_ends]

    @property
    def initial_rates(self) -> FloatArray:
        """(6 (n+1) + 2,) at rest."""
        return np.zeros(self.reference_coordinates.size + 2)

    def marker_at(self, name: str, arc_length: float) -> CableMarker:
        """A marker at the span's start (``arc_length`` 0) or end (its length); inside, refused."""
        if self.markers.keys() >= {f"{self.name}_start", f"{self.name}_end"}:
            raise ModelError(
                f"{self.describe()}: a moving-node span's nodes are not fixed in the material; "
                "use its start_marker and end_marker"
            )
        return super().marker_at(name, arc_length)


class RimContact(Joint):
    """The end node of a moving-node span (I: its ``start_marker`` or ``end_marker``) on the rim of
    radius ``radius`` [m] of the pulley or drum whose marker is J (z-axis the axle), the rope
    running ``sense`` (+1: counterclockwise about z, travelling towards increasing material
    coordinate) and stuck to the rim from the input configuration on, ``stretch`` [-] (1 + strain)
    the rope's stretch on the rim (see the module). On a drum with a helical groove of pitch
    ``groove_pitch`` [m] (right-handed: advancing along +z as the rope runs counterclockwise) the
    node follows the groove instead of the mid-plane, and a radian of the drum holds the helix's
    length ``sqrt(r^2 + (p / 2 pi)^2)``."""

    def __init__(
        self,
        name: str,
        node: CableMarker,
        rim: Marker,
        radius: float,
        sense: float,
        stretch: float = 1.0,
        groove_pitch: float | None = None,
    ) -> None:
        super().__init__(name, node, rim)
        _check_span_end(self, node)
        self.radius, self.sense, self.stretch = float(radius), float(sense), float(stretch)
        self.groove_pitch = groove_pitch

    def constraint_rows(self) -> tuple[ConstraintRow, ...]:
        span, end = _span_end(self.i_marker)
        advance = 0.0 if self.groove_pitch is None else self.groove_pitch / (2.0 * np.pi)  # [m/rad]
        per_radian = self.sense * np.hypot(self.radius, advance) / self.stretch  # material [m/rad]
        angle, axial = _rim_position(self)
        material = float(span.material_ends[end])
        if self.groove_pitch is None:
            plane = in_plane("z")
        else:  # z . d = axial + (advance / per_radian) (s - s_0)
            per_length = advance / per_radian
            plane = ConstraintRow(
                "groove",
                j_axis=2,
                label="in the groove",
                parameter=per_length,
                coordinate_owner=span,
                coordinate=end,
                reference=material - axial / per_length,
            )
        return (
            plane,
            ConstraintRow("on_cylinder", label="on the rim", parameter=self.radius),
            ConstraintRow("rim_tangent", i_axis=0, label="tangent to the rim"),
            ConstraintRow(
                "rim_material",
                label="stuck to the rim",
                parameter=per_radian,
                coordinate_owner=span,
                coordinate=end,
                reference=material - per_radian * angle,
            ),
        )


class RimRing(RigidBody):
    """The rope on the rim of a pulley with belt friction, as a body: on the pulley's axle at
    ``marker`` (its origin and axes; ``axle`` is the ring's marker there), turning with the rope,
    which may slide on the pulley. It has no mass of its own: the rope wrapped on it is its mass
    (``multibody.formulation.bodies.rope_span.rim_arcs``)."""

    kind = "rim ring"

    def __init__(self, name: str, marker: Marker) -> None:
        from multibody.model.forces.rope import _input_pose

        position, orientation = _input_pose(marker)
        # a RigidBody refuses to be massless, which this one is by design: built with unit mass
        # properties, then emptied (the rope on it is counted per evaluation)
        super().__init__(name, 1.0, np.ones(3), position=position, orientation=orientation)
        self.mass, self.inertia = 0.0, np.zeros((3, 3))
        self.axle = self.add_marker("axle")


class RopeAnchor(Joint):
    """The end node of a moving-node span (I) held at marker J's origin, its material coordinate fixed."""

    def __init__(self, name: str, node: CableMarker, anchor: Marker) -> None:
        super().__init__(name, node, anchor)
        _check_span_end(self, node)

    def constraint_rows(self) -> tuple[ConstraintRow, ...]:
        span, end = _span_end(self.i_marker)
        material = ConstraintRow(
            "rim_material",
            label="material fixed",
            coordinate_owner=span,
            coordinate=end,
            reference=float(span.material_ends[end]),
        )
        return (*coincident(), material)


def _check_span_end(joint: Joint, node: Marker) -> None:
    if not isinstance(node, CableMarker) or not isinstance(node.body, MovingNodeSpan):
        raise ModelError(f"{joint.describe()}: its I marker must be a moving-node span's start_marker or end_marker")


def _span_end(marker: CableMarker) -> tuple[MovingNodeSpan, int]:
    """The span and which end (0: start, 1: end) a span end marker is at."""
    span = marker.body
    return span, int(marker is span.end_marker)


def _rim_position(contact: RimContact) -> tuple[float, float]:
    """``(angle [rad] in (-pi, pi], axial offset [m])`` of the contact's node about and along the
    rim marker's z-axis, the angle from its x-axis, in the input configuration."""
    from multibody.model.forces.rope import _input_pose

    p_rim, R_rim = _input_pose(contact.j_marker)
    offset = R_rim.T @ (contact.i_marker.position - p_rim)  # a span marker's position is its world position
    return float(np.arctan2(offset[1], offset[0])), float(offset[2])


def moving_node_parts(rope: Rope) -> tuple[MovingNodeSpan | Joint, ...]:
    """The spans (``<rope>_span<k>``, k = 1, 2 ...) and contacts of a ``Rope(kind="moving_node")``
    laid along its route in the input configuration: each span straight between its tangent points
    (``multibody.spatial.wrapping.wrapped_path``) with ``rope.elements_per_span`` elements, the
    material coordinate 0 at the route's first point and the rope at one strain all along (its
    pretension, ``Rope.reeving``). Contacts: ``<rope>_start`` and ``<rope>_end`` at the route's ends
    (a ``RopeAnchor`` at an anchor marker, a ``RimContact`` on a winch), ``<rope>_<pulley>_in`` and
    ``_out`` on each pulley. Sets ``rope.rims``: per pulley, ``(marker, radius, sense, stretch, span
    arriving, span leaving)``, and ``rope.drums``: per winch, ``(marker, radius, sense, stretch,
    span, which end of it, stored length, length per radian)`` (the rope on a rim or drum is a rigid
    part of it, ``multibody.formulation.bodies.rope_span.rim_arcs``). A pulley with belt friction
    gets a ``RimRing`` (``<rope>_<pulley>_ring``, on a revolute joint ``<rope>_<pulley>_slip``) that
    the rope sticks to instead; ``rope.sheave_frictions`` lists, per such pulley, ``(ring's axle
    marker, pulley's marker, friction coefficient, slip speed [m/s], its place in rope.rims)``."""
    from multibody.model.body import Ground
    from multibody.model.forces.rope import ANCHOR, WINCH, Pulley, Winch, _input_pose
    from multibody.model.joints.revolute import Revolute
    from multibody.spatial.wrapping import wrapped_path

    rings: dict[int, RimRing] = {}  # per pulley with belt friction (its place in the route), its ring
    ring_parts: list[RimRing | Joint] = []
    for k, point in enumerate(rope.points):
        if not isinstance(point, Pulley) or isinstance(point, Winch):
            continue
        sliding = point.friction is not None and np.isfinite(point.friction)
        if isinstance(point.marker.body, Ground) and not sliding:
            raise ModelError(
                f"{rope.describe()}: a moving-node rope sticks to its pulleys, but {point.describe()} is on ground and "
                "cannot turn; put its marker on a body with a revolute joint, give it belt friction (a fixed drum the "
                "rope slides over), or use kind='massless' for a fixed guide"
            )
        if sliding:
            ring = rings[k] = RimRing(f"{rope.name}_{point.name}_ring", point.marker)
            ring_parts += [ring, Revolute(f"{rope.name}_{point.name}_slip", ring.axle, point.marker)]
    reeving = rope.reeving()
    poses = [_input_pose(m) for m in reeving.markers]
    centres = np.array([p for p, _ in poses])
    axles = np.array([R[:, 2] for _, R in poses])
    tangent_in, tangent_out, spans, wraps = wrapped_path(centres, axles, reeving.radius, reeving.sense)
    stretch = reeving.path_length / reeving.rest_length  # 1 + the initial strain, all along
    span_rest = spans / stretch
    fractions = np.linspace(0.0, 1.0, rope.elements_per_span + 1)[:, None]
    parts: list[MovingNodeSpan] = []
    contacts: list[Joint] = []
    # the rope sticks to a pulley's marker, or to its ring where it has belt friction
    rims_at: dict[int, int] = {}  # route point -> its place in rims
    rim_markers = [rings[k].axle if k in rings else marker for k, marker in enumerate(reeving.markers)]
    rims: list[tuple[Marker, float, float, float, MovingNodeSpan, MovingNodeSpan]] = []
    drums: list[tuple[Marker, float, float, float, MovingNodeSpan, int, float, float]] = []
    material = 0.0
    last = len(reeving.markers) - 1
    for k in range(last):
        start, end = tangent_out[k], tangent_in[k + 1]
        span = MovingNodeSpan(
            f"{rope.name}_span{k + 1}",
            start + (end - start) * fractions,
            material,
            material + span_rest[k],
            rope.axial_stiffness,
            rope.mass_per_length,
            rope.diameter,
            rope.damping,
            rope.smoothing,
        )
        if k > 0 and reeving.kind[k] != ANCHOR:
            rims_at[k] = len(rims)
            rims.append((rim_markers[k], float(reeving.radius[k]), float(reeving.sense[k]), stretch, parts[-1], span))
        for point, end in ((k, 0), (k + 1, 1)):
            if point in (0, last) and reeving.kind[point] == WINCH:
                winch = rope.points[point]
                drums.append(
                    (
                        winch.marker,
                        winch.radius,
                        float(reeving.sense[point]),
                        stretch,
                        span,
                        end,
                        winch.stored_length,
                        winch.length_per_radian,
                    )
                )
        parts.append(span)
        material += span_rest[k] + reeving.radius[k + 1] * wraps[k + 1] / stretch
        for point, node, role in ((k, span.start_marker, "out"), (k + 1, span.end_marker, "in")):
            marker, radius, sense = rim_markers[point], reeving.radius[point], reeving.sense[point]
            name = f"{rope.name}_{'start' if point == 0 else 'end' if point == last else reeving.names[point] + '_' + role}"
            if reeving.kind[point] == ANCHOR:
                contacts.append(RopeAnchor(name, node, marker))
            else:
                pitch = getattr(rope.points[point], "groove_pitch", None)
                contacts.append(RimContact(name, node, marker, radius, sense, stretch, pitch))
    rope.rims, rope.drums = tuple(rims), tuple(drums)
    rope.sheave_frictions = tuple(
        (ring.axle, rope.points[k].marker, rope.points[k].friction, rope.points[k].slip_speed, rims_at[k])
        for k, ring in rings.items()
    )
    return (*ring_parts, *parts, *contacts)
