"""Nodal beams for large deformation: ``Beam(kind="geometrically_exact")``.

A beam of length L from its start marker along the marker's x axis (or along a world polyline
``points``, for a curved beam) is cut into ``n_elements`` elements of equal arc length. Each node
is a ``RigidBody`` ``<beam>_n0 .. <beam>_n<N>`` with the lumped mass ``rho A l`` and rotary
inertia ``rho l (Iy + Iz, Iy, Iz)`` (node axes: x along the beam, y and z the section's) of its
tributary length ``l`` (half of each neighbouring element), and a marker ``node`` at its origin;
each element ``<beam>_e1 .. <beam>_e<N>`` is a ``BeamElement`` (Simo-Reissner geometrically exact,
``multibody.model.forces.beam_element``) between its two nodes' markers. The input geometry is
the strain-free reference: a curved beam's reference curvature is its polyline's.

On a curved beam the node x axes are the tangents of the circle through each node and its
neighbours (exact on a circular arc), the y and z axes carried along from the start marker's by
the smallest rotation from tangent to tangent.

With ``clamped=True`` a ``Fixed`` joint ``<beam>_clamp`` holds the first node to the start
marker; otherwise the user joins ``beam.start`` to what carries it. ``beam.marker_at`` gives a
marker at any arc length (splitting the element there, before the beam is added to a model).
``Results.beam(name)`` gives node positions and section forces.

``kind="ancf_cable"``: one ``AncfCable`` ``<beam>_cable`` (a gradient-deficient ANCF cable, an
engine body kind of node positions and slopes: ``multibody.model.cable``) through the nodes, axial
and bending stiffness without torsion or shear; ``clamped=True`` holds its first node and tangent
to the start marker by a ``CableClamp``; ``marker_at`` puts a marker at any arc length without
splitting; ``damping`` is its Kelvin-Voigt coefficient. A cable's bending is stress-free straight:
``points`` only lays it out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.beam import check_beam_inputs, marker_world_state
from multibody.model.body import RigidBody
from multibody.model.cable import AncfCable, CableClamp
from multibody.model.element import Element, ModelError
from multibody.model.forces.applied import PointForce
from multibody.model.forces.beam_element import BeamElement, rotation_from_vector
from multibody.model.joints.fixed import Fixed
from multibody.model.marker import Marker, finite_vector
from multibody.model.material import Material, Section
from multibody.spatial import rotations

FloatArray = NDArray[np.float64]

BEAM_KINDS = ("geometrically_exact", "ancf_cable")
"""the nodal beam kinds ``Beam`` takes (``BUILDERS`` holds one builder per kind)"""
AT_NODE = 1e-9
"""relative to the length: how close to a node ``marker_at`` counts as at the node"""


class Beam(Element):
    """A nodal beam of ``length`` [m] (module docstring) from ``start_marker``, ``n_elements``
    elements of ``section`` and ``material``.

    ``kind``: one of ``BEAM_KINDS``; ``points``: a (k, 3) world polyline from the start marker's
    origin that the beam follows (``length`` may then be None: the polyline's); ``clamped``: fix
    the first node to ``start_marker``; ``damping`` [s]: stiffness-proportional damping;
    ``line_load`` (3,) [N/m]: a dead load per length in world axes besides gravity (lumped at the
    nodes as point forces ``<beam>_w<k>`` for the geometrically exact kind, consistent nodal loads of
    the cable for ``"ancf_cable"``).
    """

    kind = "beam"

    def __init__(
        self,
        name: str,
        start_marker: Marker,
        length: float | None,
        n_elements: int,
        section: Section,
        material: Material,
        kind: str = "geometrically_exact",
        points: ArrayLike | None = None,
        clamped: bool = False,
        damping: float = 0.0,
        line_load: ArrayLike | None = None,
    ) -> None:
        super().__init__(name)
        owner = self.describe()
        if kind not in BEAM_KINDS:
            raise ModelError(f"{owner}: kind must be one of {', '.join(map(repr, BEAM_KINDS))}, got {kind!r}")
        check_beam_inputs(owner, start_marker, section, material, "n_elements", n_elements, damping)
        self.beam_kind = kind
        self.start_marker = start_marker
        self.section, self.material = section, material
        self.clamped, self.damping = bool(clamped), float(damping)
        self.line_load = None if line_load is None else finite_vector(owner, "line_load [N/m]", line_load)
        """(3,) dead load per length [N/m], world axes, or None"""
        self.curve = _reference_curve(owner, start_marker, length, points)
        """(k, 3) world polyline of the reference (input) geometry [m]"""
        self.curve_arc_length = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(self.curve, axis=0), axis=1))])
        self.length = float(self.curve_arc_length[-1])
        self.model_name: str | None = None
        """the model the beam was added to (``Model.add`` sets it); after that it cannot be split"""
        self.node_arc_lengths = np.linspace(0.0, self.length, int(n_elements) + 1)
        """(N + 1,) [m] arc length of each node from the start"""
        self.nodes: list[RigidBody] = []
        self.elements: list[BeamElement] = []
        self.joints: list[Fixed | CableClamp] = []
        self.loads: list[PointForce] = []
        """the line load lumped at the nodes (geometrically exact kind): ``<beam>_w<k>``"""
        self.cable: AncfCable | None = None
        """the ANCF cable of a ``kind="ancf_cable"`` beam (None for the other kinds)"""
        BUILDERS[kind](self)

    @property
    def n_elements(self) -> int:
        """The number of elements (grows when ``marker_at`` splits one)."""
        return len(self.node_arc_lengths) - 1

    @property
    def parts(self) -> tuple[Element, ...]:  # type: ignore[override]
        """The nodes, elements (or the cable) and clamp (``Model.add`` adds them with the beam)."""
        cable = (self.cable,) if self.cable is not None else ()
        return (*self.nodes, *self.elements, *cable, *self.joints, *self.loads)

    @property
    def start(self) -> Marker:
        """The marker at the first node, to join to what carries the beam."""
        if self.cable is not None:
            return self.cable.markers["start"]
        return self.nodes[0].marker("node")

    @property
    def end(self) -> Marker:
        """The marker at the last node."""
        if self.cable is not None:
            return self.cable.markers["end"]
        return self.nodes[-1].marker("node")

    @property
    def drawing(self) -> dict:
        """What the results need to rebuild the beam (``Results.beam``): its node bodies, elements,
        the markers of each element's nodes (``body/marker``, A then B) and the tube radius [m]."""
        if self.cable is not None:
            return {"name": self.name, "kind": self.beam_kind, "cable": self.cable.name, "bodies": []}
        _, rotational = self.section_stiffness()
        return {
            "name": self.name,
            "kind": self.beam_kind,
            "bodies": [node.name for node in self.nodes],
            "elements": [element.name for element in self.elements],
            "element_markers": [[e.j_marker.full_name, e.i_marker.full_name] for e in self.elements],
            "radius": float(np.sqrt(self.section.area / np.pi)),
            "section_stiffness": rotational.tolist(),
        }

    def attached_markers(self) -> tuple[Marker, ...]:
        """The start marker (the model checks its body is in the model)."""
        return (self.start_marker,)

    def section_stiffness(self) -> tuple[FloatArray, FloatArray]:
        """``(C_N = (EA, kGA, kGA) [N], C_M = (GJ, EIy, EIz) [N m^2])`` of the section."""
        E, G, s = self.material.E, self.material.G, self.section
        shear = s.shear_coefficient * G * s.area
        return np.array([E * s.area, shear, shear]), np.array([G * s.J, E * s.Iy, E * s.Iz])

    def marker_at(self, name: str, arc_length: float) -> Marker:
        """A marker ``name`` at ``arc_length`` [m] from the start, with the node axes there (x along
        the beam). Off a node, the element holding that point is split there by a new node; this
        is possible only before the beam is added to a model."""
        owner = self.describe()
        if not isinstance(arc_length, (int, float)) or not np.isfinite(arc_length):
            raise ModelError(f"{owner}: marker_at needs a finite arc length in metres, got {arc_length!r}")
        if not 0.0 <= arc_length <= self.length:
            raise ModelError(
                f"{owner}: marker_at arc length {arc_length!r} m is off the beam; give 0 <= s <= {self.length:.6g} m"
            )
        if self.cable is not None:  # a cable's markers sit anywhere along it
            return self.cable.marker_at(name, arc_length)
        nearest = int(np.argmin(np.abs(self.node_arc_lengths - arc_length)))
        if abs(self.node_arc_lengths[nearest] - arc_length) <= AT_NODE * self.length:
            return self.nodes[nearest].add_marker(name)
        if self.model_name is not None:
            raise ModelError(
                f"{owner}: marker_at({name!r}, {arc_length:.6g}) falls inside an element, which must be split by a "
                f"new node, but the beam is already in model '{self.model_name}'; ask for the marker before "
                "model.add(beam), or use a node's arc length"
            )
        k = int(np.searchsorted(self.node_arc_lengths, arc_length))  # the new node's index
        fraction = (arc_length - self.node_arc_lengths[k - 1]) / (
            self.node_arc_lengths[k] - self.node_arc_lengths[k - 1]
        )
        before, after = self.nodes[k - 1], self.nodes[k]
        turn = rotations.rotation_vector(before.orientation.T @ after.orientation)
        orientation = before.orientation @ rotation_from_vector(fraction * turn)
        self.node_arc_lengths = np.insert(self.node_arc_lengths, k, arc_length)
        self.nodes.insert(k, self._node(_point_at(self.curve, self.curve_arc_length, arc_length), orientation))
        self._number_and_join()
        return self.nodes[k].add_marker(name)

    def _node(self, position: FloatArray, orientation: FloatArray) -> RigidBody:
        """A node body (named later by ``_number_and_join``), moving rigidly with the start marker."""
        p_WS, _, v_WS, w_WS = marker_world_state(self.start_marker)
        node = RigidBody(
            f"{self.name}_node",
            1.0,
            (2.0, 1.0, 1.0),
            position=position,
            orientation=orientation,
            velocity=v_WS + np.cross(w_WS, position - p_WS),
            angular_velocity=w_WS,
        )
        node.add_marker("node")
        return node

    def _number_and_join(self) -> None:
        """Name the nodes in order, give them the mass of their tributary length and join each
        neighbour pair by an element (the elements are rebuilt: nodes keep their markers)."""
        s, rho = self.section, self.material.density
        spans = np.diff(self.node_arc_lengths)
        tributary = 0.5 * (np.concatenate([[0.0], spans]) + np.concatenate([spans, [0.0]]))
        for k, (node, l) in enumerate(zip(self.nodes, tributary)):
            node.name = f"{self.name}_n{k}"
            node.mass = rho * s.area * l
            node.inertia = rho * l * np.diag([s.Iy + s.Iz, s.Iy, s.Iz])
        C_N, C_M = self.section_stiffness()
        self.elements = [
            BeamElement(f"{self.name}_e{k + 1}", b.marker("node"), a.marker("node"), C_N, C_M, self.damping)
            for k, (a, b) in enumerate(zip(self.nodes[:-1], self.nodes[1:]))
        ]
        if self.line_load is not None:  # lumped at the nodes like the mass: the tributary length's share
            self.loads = [
                PointForce(f"{self.name}_w{k}", node.marker("node"), l * self.line_load)
                for k, (node, l) in enumerate(zip(self.nodes, tributary))
            ]


def _build_geometrically_exact(beam: Beam) -> None:
    """Nodes on the reference curve, elements between them, the clamp."""
    positions = np.array([_point_at(beam.curve, beam.curve_arc_length, s) for s in beam.node_arc_lengths])
    _, R_WS, _, _ = marker_world_state(beam.start_marker)
    beam.nodes = [beam._node(p, R) for p, R in zip(positions, _node_frames(beam.describe(), positions, R_WS))]
    beam._number_and_join()
    if beam.clamped:
        beam.joints = [Fixed(f"{beam.name}_clamp", beam.start, beam.start_marker)]


def _build_ancf_cable(beam: Beam) -> None:
    """One cable through the nodes on the reference curve, moving rigidly with the start marker,
    markers ``start`` and ``end`` at its ends, the clamp."""
    positions = np.array([_point_at(beam.curve, beam.curve_arc_length, s) for s in beam.node_arc_lengths])
    p_WS, _, v_WS, w_WS = marker_world_state(beam.start_marker)
    velocities = v_WS + np.cross(w_WS, positions - p_WS)
    beam.cable = AncfCable(
        f"{beam.name}_cable",
        positions,
        beam.section,
        beam.material,
        damping=beam.damping,
        velocities=velocities,
        line_load=beam.line_load,
    )
    beam.cable.marker_at("start", 0.0)
    beam.cable.marker_at("end", beam.cable.length)
    if beam.clamped:
        beam.joints = [CableClamp(f"{beam.name}_clamp", beam.start, beam.start_marker)]


BUILDERS: dict[str, Callable[[Beam], None]] = {
    "geometrically_exact": _build_geometrically_exact,
    "ancf_cable": _build_ancf_cable,
}
"""kind -> the function that makes a ``Beam``'s nodes and elements (sets ``beam.nodes``,
``beam.elements``, ``beam.joints``)"""


def _reference_curve(owner: str, start_marker: Marker, length: float | None, points: ArrayLike | None) -> FloatArray:
    """The (k, 3) world polyline the beam is laid along: the start marker's x axis, or ``points``."""
    p_WS, R_WS, _, _ = marker_world_state(start_marker)
    if points is None:
        if not isinstance(length, (int, float)) or isinstance(length, bool) or not np.isfinite(length) or length <= 0:
            raise ModelError(f"{owner}: length must be a positive number of metres, got {length!r}")
        return np.array([p_WS, p_WS + float(length) * R_WS[:, 0]])
    curve = np.asarray(points, dtype=float) if np.ndim(points) == 2 else np.zeros((0, 0))
    if curve.ndim != 2 or curve.shape[1] != 3 or len(curve) < 2 or not np.all(np.isfinite(curve)):
        raise ModelError(f"{owner}: points must be a (k, 3) array of finite world positions [m] with k >= 2")
    spans = np.linalg.norm(np.diff(curve, axis=0), axis=1)
    total = float(np.sum(spans))
    if np.any(spans <= 1e-12 * total):
        raise ModelError(f"{owner}: points has repeated consecutive points; remove them")
    if np.linalg.norm(curve[0] - p_WS) > 1e-9 * total:
        raise ModelError(
            f"{owner}: points must start at the start marker's origin {np.round(p_WS, 9).tolist()}, "
            f"got {np.round(curve[0], 9).tolist()}"
        )
    if length is not None and (not isinstance(length, (int, float)) or abs(length - total) > 1e-6 * total):
        raise ModelError(
            f"{owner}: length {length!r} m differs from the length of points, {total:.9g} m; give length=None"
        )
    return curve


def _point_at(curve: FloatArray, arc_length: FloatArray, s: float) -> FloatArray:
    """The point at arc length ``s`` [m] along the polyline ``curve``."""
    k = int(np.clip(np.searchsorted(arc_length, s, side="right") - 1, 0, len(curve) - 2))
    fraction = (s - arc_length[k]) / (arc_length[k + 1] - arc_length[k])
    return curve[k] + fraction * (curve[k + 1] - curve[k])


def _node_frames(owner: str, positions: FloatArray, R_WS: FloatArray) -> list[FloatArray]:
    """Node orientations (x the tangent of the circle through the node and its neighbours; y, z
    carried from the start marker's by the smallest rotation between successive tangents)."""
    count = len(positions)
    tangents = []
    for k in range(count):
        first = min(max(k - 1, 0), max(count - 3, 0))
        three = positions[first : first + 3]
        tangents.append(_circle_tangent(three, k - first) if len(three) == 3 else three[1] - three[0])
    frames, previous_axis, previous = [], R_WS[:, 0], R_WS
    for tangent in tangents:
        tangent = tangent / np.linalg.norm(tangent)
        axis = np.cross(previous_axis, tangent)
        cosine = float(previous_axis @ tangent)
        if cosine < -0.999:
            raise ModelError(
                f"{owner}: the beam turns back on itself between two nodes; use more elements or fix points"
            )
        turn = axis / np.linalg.norm(axis) * np.arctan2(np.linalg.norm(axis), cosine) if np.any(axis) else axis
        previous = rotation_from_vector(turn) @ previous
        frames.append(previous)
        previous_axis = tangent
    return frames


def _circle_tangent(three: FloatArray, k: int) -> FloatArray:
    """Unit tangent, in the direction of travel, at ``three[k]`` of the circle through the three
    points (their chord direction when they are in line)."""
    a, b = three[1] - three[0], three[2] - three[0]
    normal = np.cross(a, b)
    travel = three[min(k + 1, 2)] - three[max(k - 1, 0)]
    if np.linalg.norm(normal) <= 1e-12 * np.linalg.norm(a) * np.linalg.norm(b):
        return travel / np.linalg.norm(travel)
    center = three[0] + np.cross(a @ a * b - b @ b * a, normal) / (2.0 * normal @ normal)
    tangent = np.cross(normal, three[k] - center)
    tangent /= np.linalg.norm(tangent)
    return tangent if tangent @ travel > 0.0 else -tangent
