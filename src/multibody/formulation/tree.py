"""Spanning tree of a compiled System for relative coordinates: lower-body array and joint layout.

Huston's numbering: the ground is the root, bodies are reached breadth-first over the joints,
and ``lower_body[b]`` (Huston's L(k)) is the body that carries body ``b`` (-1: the ground). Each
body is the child of exactly one tree joint. A body that no tree joint reaches but a ``Bushing``
ties to a body already in the tree hangs from that body by a free joint between the bushing's
two markers (the finite-segment method of the MDAS II thesis: the segments of a
``FiniteSegmentBeam``, joined by bushings, form a chain whose small relative displacements and
rotations are generalized coordinates, segment k's lower body being segment k - 1; the bushing
stays a force element acting across the joint). Joints take precedence: the bushings only
attach what the joints leave loose, so a bushing never turns a joint into a cut. A body neither
a tree joint nor a bushing reaches hangs from the ground by a free joint. Every constraint
element that is not a tree joint (a joint closing a loop, a joint primitive other than
``AtPoint``, a ``Distance``, a ``Motion``) becomes a cut constraint of the Kane formulation.

A tree joint moves its outer frame O (a marker on the child) relative to its inner frame N
(a marker on the parent). Its coordinates come in two parts, translation then rotation:

=============  ===========  ==========================  ===========================
family          translation  rotation                    q / u per joint
=============  ===========  ==========================  ===========================
revolute        --           angle about N's z           1 / 1
translational   along N's z  --                          1 / 1
cylindrical     along N's z  angle about N's z           2 / 2
universal       --           about a_N, then about b_O   2 / 2
hooke           --           about a_N, then about b_O   2 / 2
spherical       --           Euler parameters            4 / 3 (angular velocity, O axes)
planar          in N's xy    angle about N's z           3 / 3
fixed           --           --                          0 / 0
free            in N's xyz   Euler parameters            7 / 6
=============  ===========  ==========================  ===========================

A free joint from the ground has N = the world frame; one across a bushing has N = the bushing's
marker on the parent and O = its marker on the child, so its coordinates are the bushing's
deflection (exactly so for a bushing undeflected at the reference configuration, as a beam's are).

The joint's I marker may be on the parent or on the child: every family is symmetric under
swapping I and J, except for the cross axes of ``Hooke`` (x on I, y on J), which follow their
markers.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from multibody.model.joints import (
    AtPoint,
    Cylindrical,
    Fixed,
    Hooke,
    Planar,
    Revolute,
    Spherical,
    Translational,
    Universal,
)
from multibody.model.joints.base import AXIS_INDEX, Joint
from multibody.spatial.rotations import FloatArray
from multibody.system.system import ConstraintRows, System

GROUND = -1

ROTATION_POSITIONS = {"none": 0, "axis": 1, "two_axes": 2, "ball": 4}
"""Position coordinates of each kind of rotation part."""
ROTATION_SPEEDS = {"none": 0, "axis": 1, "two_axes": 2, "ball": 3}
"""Generalized speeds of each kind of rotation part."""


@dataclass(frozen=True)
class Family:
    """How a joint family moves: its rotation kind, its translation directions (N axes) and, for
    two-axis joints, the cross axis on the I marker and on the J marker."""

    rotation: str
    translation: tuple[int, ...] = ()
    cross_axes: tuple[str, str] = ("z", "z")


FAMILIES: dict[str, Family] = {
    "revolute": Family("axis"),
    "translational": Family("none", (2,)),
    "cylindrical": Family("axis", (2,)),
    "universal": Family("two_axes", (), ("z", "z")),
    "hooke": Family("two_axes", (), ("x", "y")),
    "spherical": Family("ball"),
    "planar": Family("axis", (0, 1)),
    "fixed": Family("none"),
    "free": Family("ball", (0, 1, 2)),
}

JOINT_CLASSES: dict[str, type[Joint]] = {
    "revolute": Revolute,
    "translational": Translational,
    "cylindrical": Cylindrical,
    "universal": Universal,
    "hooke": Hooke,
    "spherical": Spherical,
    "planar": Planar,
    "fixed": Fixed,
    "at_point": AtPoint,
}
"""Constraint elements a tree can hold; an ``AtPoint`` primitive is a spherical joint."""


@dataclass(frozen=True)
class TreeJoint:
    """One joint of the spanning tree; frames N (on ``parent``) and O (on ``child``)."""

    name: str
    """the constraint element's name, the bushing's for a free joint across one, or ``free <body>``
    for a free joint from the ground"""
    family: str
    element: int
    """index into ``System.constraint_names``; -1 for a free joint"""
    parent: int
    """body index, -1 for the ground"""
    child: int
    r_PN: FloatArray
    """(3,) N origin from the parent's CM, parent axes (ground: world) [m]"""
    R_PN: FloatArray
    """(3, 3) N axes in parent axes"""
    r_CO: FloatArray
    """(3,) O origin from the child's CM, child axes [m]"""
    R_CO: FloatArray
    """(3, 3) O axes in child axes"""
    translation_axes: FloatArray
    """(3, nt) directions of the translation coordinates, N axes"""
    rotation: str
    """"none", "axis", "two_axes" or "ball"""
    axis_N: FloatArray
    """(3,) rotation axis in N axes ("axis"; first axis of "two_axes")"""
    axis_O: FloatArray
    """(3,) second axis of "two_axes", O axes"""
    q_start: int
    u_start: int
    bushing: int = -1
    """index into ``System.force_names`` of the bushing a free joint spans; -1 for none"""

    @property
    def n_translations(self) -> int:
        return self.translation_axes.shape[1]

    @property
    def n_q(self) -> int:
        return self.n_translations + ROTATION_POSITIONS[self.rotation]

    @property
    def n_u(self) -> int:
        return self.n_translations + ROTATION_SPEEDS[self.rotation]

    @property
    def u_slice(self) -> slice:
        return slice(self.u_start, self.u_start + self.n_u)


@dataclass(frozen=True)
class SpanningTree:
    """The tree joints in breadth-first order (a parent's joint before its children's)."""

    joints: tuple[TreeJoint, ...]
    lower_body: np.ndarray
    """(nb,) Huston's L(k): the parent body of each body, -1 for the ground"""
    body_joint: np.ndarray
    """(nb,) index into ``joints`` of the joint whose child is each body"""
    n_q: int
    n_u: int
    cut_elements: tuple[int, ...]
    """constraint elements that are not tree joints (closed loops, primitives, motions)"""
    cut_rows: ConstraintRows
    """every row of the cut elements (also rows the Cartesian compile found redundant)"""

    def ancestors(self, body: int) -> list[int]:
        """Tree joints from ``body`` down to the ground (indices into ``joints``): the path that
        the lower-body array L(k), L^2(k), ... traces."""
        path = []
        while body != GROUND:
            path.append(int(self.body_joint[body]))
            body = int(self.lower_body[body])
        return path


def joint_family(system: System, element: int) -> str | None:
    """The tree-joint family of constraint element ``element`` (as the System records it; an
    ``AtPoint`` primitive is a spherical joint), or None if a tree cannot hold it."""
    family = system.constraint_families[element]
    if family not in JOINT_CLASSES:
        return None
    return "spherical" if family == "at_point" else family


@dataclass(frozen=True)
class _Edge:
    """How a body joins the tree: a constraint element, a bushing (force element) or neither (a
    free joint from the ground)."""

    element: int
    bushing: int
    parent: int
    child: int


def spanning_tree(system: System) -> SpanningTree:
    """Choose the tree breadth-first from the ground over the joints, attach the bodies left
    loose across bushings, hang the rest from the ground; cut every other constraint element."""
    nb = system.n_bodies
    markers = system.constraint_markers
    incident: list[list[int]] = [[] for _ in range(nb + 1)]  # last entry: the ground
    families: dict[int, str] = {}
    for element in range(len(system.constraint_names)):
        family = joint_family(system, element)
        if family is None:
            continue
        families[element] = family
        for marker in markers[element]:
            incident[system.marker_body[marker]].append(element)
    bushings: list[list[int]] = [[] for _ in range(nb + 1)]
    group = system.force_group("bushing")
    for force in () if group is None else group.element:
        for marker in system.force_markers[force]:
            bushings[system.marker_body[marker]].append(int(force))

    parent_of = np.full(nb, -2, dtype=np.int64)
    order: list[_Edge] = []
    used: set[int] = set()
    placed: list[int] = [GROUND]
    """bodies in the order they joined the tree (the ground first)"""
    scanned = 0
    """``placed[:scanned]`` have had their bushings looked at"""

    def join(edge: _Edge) -> None:
        parent_of[edge.child] = edge.parent
        order.append(edge)
        placed.append(edge.child)

    def grow(root: int) -> None:
        queue = deque([root])
        while queue:
            body = queue.popleft()
            for element in incident[body]:
                if element in used:
                    continue
                i_body, j_body = system.marker_body[markers[element]]
                other = j_body if i_body == body else i_body
                if other == GROUND or parent_of[other] != -2:
                    continue
                used.add(element)
                join(_Edge(element, -1, int(body), int(other)))
                queue.append(other)

    def attach_across_bushings() -> None:
        nonlocal scanned
        while scanned < len(placed):
            body = placed[scanned]
            scanned += 1
            for force in bushings[body]:
                i_body, j_body = system.marker_body[system.force_markers[force]]
                other = j_body if i_body == body else i_body
                if other == GROUND or parent_of[other] != -2:
                    continue
                join(_Edge(-1, force, int(body), int(other)))
                grow(other)

    grow(GROUND)
    attach_across_bushings()
    for body in range(nb):
        if parent_of[body] == -2:
            join(_Edge(-1, -1, GROUND, body))
            grow(body)
            attach_across_bushings()

    joints: list[TreeJoint] = []
    q_start = u_start = 0
    for edge in order:
        joint = _tree_joint(system, edge, families.get(edge.element, "free"), q_start, u_start)
        joints.append(joint)
        q_start += joint.n_q
        u_start += joint.n_u
    body_joint = np.zeros(nb, dtype=np.int64)
    for k, joint in enumerate(joints):
        body_joint[joint.child] = k
    cut_elements = tuple(e for e in range(len(system.constraint_names)) if e not in used)
    cut = np.flatnonzero(np.isin(system.all_rows.element, cut_elements))
    return SpanningTree(
        joints=tuple(joints),
        lower_body=parent_of,
        body_joint=body_joint,
        n_q=q_start,
        n_u=u_start,
        cut_elements=cut_elements,
        cut_rows=system.all_rows.subset(cut),
    )


def _tree_joint(system: System, edge: _Edge, family_name: str, q_start: int, u_start: int) -> TreeJoint:
    family = FAMILIES[family_name]
    identity = np.eye(3)
    if edge.element < 0 and edge.bushing < 0:
        r_PN, R_PN, r_CO, R_CO = np.zeros(3), identity, np.zeros(3), identity
        name, i_is_outer = f"free {system.body_names[edge.child]}", True
    else:
        if edge.element >= 0:
            i_marker, j_marker = system.constraint_markers[edge.element]
            name = system.constraint_names[edge.element]
        else:
            i_marker, j_marker = system.force_markers[edge.bushing]
            name = system.force_names[edge.bushing]
        i_is_outer = system.marker_body[i_marker] == edge.child
        inner, outer = (j_marker, i_marker) if i_is_outer else (i_marker, j_marker)
        r_PN, R_PN = system.marker_position[inner], system.marker_orientation[inner]
        r_CO, R_CO = system.marker_position[outer], system.marker_orientation[outer]
    i_axis, j_axis = (identity[AXIS_INDEX[a]] for a in family.cross_axes)
    if family.rotation == "two_axes":
        axis_N, axis_O = (j_axis, i_axis) if i_is_outer else (i_axis, j_axis)
    else:
        axis_N, axis_O = identity[2], identity[2]
    return TreeJoint(
        name=name,
        family=family_name,
        element=edge.element,
        parent=edge.parent,
        child=edge.child,
        r_PN=r_PN,
        R_PN=R_PN,
        r_CO=r_CO,
        R_CO=R_CO,
        translation_axes=identity[:, list(family.translation)],
        rotation=family.rotation,
        axis_N=axis_N,
        axis_O=axis_O,
        q_start=q_start,
        u_start=u_start,
        bushing=edge.bushing,
    )
