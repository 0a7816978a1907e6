"""Compliant contact kernel (``multibody.model.forces.contact``): broad phase by bounding spheres,
exact narrow phase per geometry pair, then the normal law and Coulomb friction at every contact
point. The primitive pairs and the laws are compiled passes over the whole group
(``contact_kernel``); mesh pairs take their convex hulls' numpy evaluation here.

Each pair is taken in its canonical order (A, B) (``PAIRS``): a contact point has a position
``P`` (world, midway between the two surfaces), a unit normal ``n`` from B towards A and a
penetration ``d > 0``; the load on A at ``P`` is ``F_n n + F_t``. The element's I body gets that
load (or its opposite when I is B), reduced to I's marker origin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.forces import contact_kernel
from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
)
from multibody.formulation.forces.friction import contact_mode
from multibody.model.forces.base import ForceElement
from multibody.model.forces.contact import LAWS, PAIRS, Contact
from multibody.model.geometry import Box, Capsule, Cylinder, Mesh, Shape, Sphere
from multibody.spatial.rotations import FloatArray

PAIR_NAMES = tuple(PAIRS.values())
LAW_CODE = {law: code for code, law in enumerate(LAWS)}


@dataclass(frozen=True)
class ContactGroup:
    """Every ``Contact`` as flat arrays (n pairs), in canonical (A, B) order."""

    element: IntArray
    pair: IntArray
    """(n,) index into ``PAIR_NAMES``"""
    marker_a: IntArray
    marker_b: IntArray
    i_is_a: FloatArray
    """(n,) +1 when the element's I geometry is A, -1 when it is B"""
    i_marker: IntArray
    size_a: FloatArray
    """(n, 3) A's dimensions: radius, half length (capsule) / box half extents"""
    size_b: FloatArray
    bound_a: FloatArray
    """(n,) bounding-sphere radius about A's frame origin [m] (inf for a plane)"""
    bound_b: FloatArray
    hull_a: tuple[ConvexHull | None, ...]
    """per pair, A's convex hull when A is a mesh"""
    hull_b: tuple[ConvexHull | None, ...]
    law: IntArray
    stiffness: FloatArray
    exponent: FloatArray
    damping: FloatArray
    penetration_depth: FloatArray
    restitution: FloatArray
    mu_static: FloatArray
    mu_dynamic: FloatArray
    stiction_velocity: FloatArray
    transition_velocity: FloatArray


@dataclass(frozen=True)
class ConvexHull:
    """A mesh's convex hull in its shape frame S: vertices (v, 3) [m] and face planes
    ``normal . x = offset`` (outward unit normals (f, 3), offsets (f,) [m])."""

    vertices: FloatArray
    normal: FloatArray
    offset: FloatArray

    @staticmethod
    def of(mesh: Mesh) -> ConvexHull:
        hull = mesh.mesh.convex_hull
        normal = np.asarray(hull.face_normals, dtype=float)
        offset = np.einsum("fc,fc->f", normal, np.asarray(hull.triangles_center, dtype=float))
        return ConvexHull(np.asarray(hull.vertices, dtype=float), normal, offset)


def _dimensions(shape: Shape) -> tuple[FloatArray, float]:
    """(radius or half extents (3,), bounding radius) of a contact shape."""
    if isinstance(shape, Mesh):
        return np.zeros(3), float(np.max(np.linalg.norm(shape.mesh.convex_hull.vertices, axis=1)))
    if isinstance(shape, Sphere):
        return np.array([shape.radius, 0.0, 0.0]), shape.radius
    if isinstance(shape, (Capsule, Cylinder)):
        return np.array([shape.radius, 0.5 * shape.length, 0.0]), float(np.hypot(shape.radius, 0.5 * shape.length))
    if isinstance(shape, Box):
        return 0.5 * shape.size, float(np.linalg.norm(0.5 * shape.size))
    return np.zeros(3), np.inf  # a plane


def build_group(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> ContactGroup:
    """Flatten the contact elements ``members`` ((element index, element) pairs)."""
    contacts = [c for _, c in members if isinstance(c, Contact)]
    ordered = [(c.j_geometry, c.i_geometry) if c.swapped else (c.i_geometry, c.j_geometry) for c in contacts]
    markers = [(c.j_marker, c.i_marker) if c.swapped else (c.i_marker, c.j_marker) for c in contacts]
    a = [_dimensions(g.shape) for g, _ in ordered]
    b = [_dimensions(g.shape) for _, g in ordered]

    def column(attribute: str) -> FloatArray:
        return np.array([getattr(c, attribute) for c in contacts], dtype=float)

    return ContactGroup(
        element=element_indices(members),
        pair=np.array([PAIR_NAMES.index(c.pair) for c in contacts], dtype=np.int64),
        marker_a=np.array([context.marker(m) for m, _ in markers], dtype=np.int64),
        marker_b=np.array([context.marker(m) for _, m in markers], dtype=np.int64),
        i_is_a=np.array([-1.0 if c.swapped else 1.0 for c in contacts]),
        i_marker=np.array([context.marker(c.i_marker) for c in contacts], dtype=np.int64),
        size_a=np.array([s for s, _ in a]).reshape(-1, 3),
        size_b=np.array([s for s, _ in b]).reshape(-1, 3),
        bound_a=np.array([r for _, r in a]),
        bound_b=np.array([r for _, r in b]),
        hull_a=tuple(ConvexHull.of(g.shape) if isinstance(g.shape, Mesh) else None for g, _ in ordered),
        hull_b=tuple(ConvexHull.of(g.shape) if isinstance(g.shape, Mesh) else None for _, g in ordered),
        law=np.array([LAW_CODE[c.law] for c in contacts], dtype=np.int64),
        **{
            name: column(name)
            for name in (
                "stiffness",
                "exponent",
                "damping",
                "penetration_depth",
                "restitution",
                "mu_static",
                "mu_dynamic",
                "stiction_velocity",
                "transition_velocity",
            )
        },
    )


@dataclass(frozen=True)
class ContactPoints:
    """Contact points of one instant (k points): owning pair row, position, normal (B to A), depth."""

    row: IntArray
    point: FloatArray
    normal: FloatArray
    depth: FloatArray

    @staticmethod
    def join(parts: list[ContactPoints]) -> ContactPoints:
        if not parts:
            return ContactPoints(np.zeros(0, dtype=np.int64), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0))
        return ContactPoints(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in ("row", "point", "normal", "depth"))
        )


def _against_plane(
    row: IntArray, centre: FloatArray, radius: FloatArray, p_B: FloatArray, n: FloatArray
) -> ContactPoints:
    """Spheres (centre (k,3), radius (k,)) against planes through ``p_B`` with normal ``n``."""
    depth = radius - np.einsum("kc,kc->k", n, centre - p_B)
    point = centre - (radius - 0.5 * depth)[:, None] * n
    return ContactPoints(row, point, n, depth)


def _inside_hull(
    row: int, points: FloatArray, hull: ConvexHull, p_W: FloatArray, R_W: FloatArray, outward: float
) -> ContactPoints:
    """The ``points`` (world, (v,3)) inside ``hull`` placed at ``p_W``, ``R_W``: depth to the
    nearest face plane, normal ``outward`` x that face's world normal, point mid-penetration."""
    normal_W = hull.normal @ R_W.T
    height = (points - p_W) @ normal_W.T - hull.offset  # (v, f): > 0 in front of a face
    nearest = np.argmax(height, axis=1)
    depth = -height[np.arange(len(points)), nearest]
    inside = depth > 0.0
    n = outward * normal_W[nearest[inside]]
    return ContactPoints(
        np.full(int(inside.sum()), row, dtype=np.int64),
        points[inside] + outward * 0.5 * depth[inside, None] * n,
        n,
        depth[inside],
    )


def _mesh_pairs(group: ContactGroup, rows: IntArray, p_M: FloatArray, R_WM: FloatArray) -> list[ContactPoints]:
    """Mesh-plane and mesh-mesh pairs, one numpy evaluation per pair (hulls differ in size)."""
    parts = []
    for k in rows:
        hull_a, hull_b = group.hull_a[k], group.hull_b[k]
        assert hull_a is not None
        p_A, R_A = p_M[group.marker_a[k]], R_WM[group.marker_a[k]]
        p_B, R_B = p_M[group.marker_b[k]], R_WM[group.marker_b[k]]
        vertices_A = p_A + hull_a.vertices @ R_A.T
        if hull_b is None:  # a plane
            count = len(vertices_A)
            parts.append(
                _against_plane(
                    np.full(count, k),
                    vertices_A,
                    np.zeros(count),
                    np.tile(p_B, (count, 1)),
                    np.tile(R_B[:, 2], (count, 1)),
                )
            )
            continue
        parts.append(_inside_hull(k, vertices_A, hull_b, p_B, R_B, 1.0))
        parts.append(_inside_hull(k, p_B + hull_b.vertices @ R_B.T, hull_a, p_A, R_A, -1.0))
    return parts


def narrow_phase(group: ContactGroup, p_M: FloatArray, R_WM: FloatArray) -> ContactPoints:
    """Broad and narrow phase: the penetrating contact points of every pair."""
    row, point, normal, depth, meshes = contact_kernel.primitive_points(
        group.pair, group.marker_a, group.marker_b, group.size_a, group.size_b, group.bound_a, group.bound_b, p_M, R_WM
    )
    primitive = ContactPoints(row, point, normal, depth)
    if not meshes.size:
        return primitive
    found = ContactPoints.join([primitive, *_mesh_pairs(group, meshes, p_M, R_WM)])
    touching = found.depth > 0.0
    return ContactPoints(found.row[touching], found.point[touching], found.normal[touching], found.depth[touching])


@dataclass(frozen=True)
class ContactState:
    """Everything the contact points carry at one instant (k points): geometry and loads on A."""

    points: ContactPoints
    normal_force: FloatArray
    friction_force: FloatArray
    """(k, 3) [N] on A"""
    slip: FloatArray
    """(k, 3) tangential velocity of A's material point relative to B's [m/s]"""
    rate: FloatArray
    """(k,) penetration rate [m/s]"""


def _law_arrays(group: ContactGroup) -> tuple[FloatArray, ...]:
    """The group's arrays the laws read, in the kernels' argument order."""
    return (
        group.marker_a,
        group.marker_b,
        group.law,
        group.stiffness,
        group.exponent,
        group.damping,
        group.penetration_depth,
        group.restitution,
        group.mu_static,
        group.mu_dynamic,
        group.stiction_velocity,
        group.transition_velocity,
    )


def contact_state(group: ContactGroup, inputs: LoadInputs) -> ContactState:
    """Broad and narrow phase, then the laws, at one instant (only penetrating points kept)."""
    points = narrow_phase(group, inputs.p_M, inputs.R_WM)
    normal_force, friction, slip, rate, _ = contact_kernel.point_loads(
        points.row, points.point, points.normal, points.depth, *_law_arrays(group), inputs.p_M, inputs.v_M, inputs.w_M
    )
    return ContactState(points, normal_force, friction, slip, rate)


def evaluate_loads(group: ContactGroup, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Contact loads on each element's I body at its marker origin, stored and dissipated energy."""
    p_M = inputs.p_M
    points = narrow_phase(group, p_M, inputs.R_WM)
    potential, dissipated = contact_kernel.element_loads(
        group.element,
        points.row,
        points.point,
        points.normal,
        points.depth,
        *_law_arrays(group),
        group.i_is_a,
        group.i_marker,
        p_M,
        inputs.v_M,
        inputs.w_M,
        out.force,
        out.torque,
        out.value,
    )
    out.potential += potential
    out.dissipated += dissipated


def contact_quantities(group: ContactGroup, inputs: LoadInputs) -> dict[str, FloatArray]:
    """What ``res.contact(name)`` reports per pair: deepest penetration, the centre of the normal
    forces (I's geometry frame origin when apart), the mean normal and the friction on I, the
    force-weighted slip speed and the mode."""
    state = contact_state(group, inputs)
    points, row = state.points, state.points.row
    n = group.element.size
    sign = group.i_is_a[row][:, None]
    penetration, total, slip = np.zeros(n), np.zeros(n), np.zeros(n)
    moment, normal, friction = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3))
    np.maximum.at(penetration, row, points.depth)
    np.add.at(total, row, state.normal_force)
    np.add.at(moment, row, state.normal_force[:, None] * points.point)
    np.add.at(normal, row, sign * state.normal_force[:, None] * points.normal)
    np.add.at(friction, row, sign * state.friction_force)
    np.add.at(slip, row, state.normal_force * np.linalg.norm(state.slip, axis=1))
    touching = total > 0.0
    weight = np.where(touching, total, 1.0)
    point = np.where(touching[:, None], moment / weight[:, None], inputs.p_M[group.i_marker])
    length = np.linalg.norm(normal, axis=1)
    speed = slip / weight
    mode = np.where(touching, contact_mode(speed, group.stiction_velocity, group.transition_velocity), 0.0)
    return {
        "penetration": penetration,
        "point": point,
        "normal": normal / np.where(length > 0.0, length, 1.0)[:, None],
        "normal_force": total,
        "friction_force": friction,
        "slip_speed": speed,
        "mode": mode,
    }


APPROACH_FRACTION = 0.25
"""A step may carry a pair that is apart at most this fraction of its smaller bounding radius into
contact: enough that approaching pairs are not crept up on, little enough that none is jumped."""


def approach_step_limit(group: ContactGroup, inputs: LoadInputs) -> float:
    """The longest step [s] in which no pair that is apart closes its bounding-sphere gap (a
    plane's: the distance along its normal) by more than that gap plus ``APPROACH_FRACTION`` of
    its smaller bounding radius, at the current closing speed (the bounding spheres' rims moving
    with the bodies' spin included). Inf when no pair approaches."""
    return contact_kernel.approach_step_limit(
        group.marker_a,
        group.marker_b,
        group.bound_a,
        group.bound_b,
        APPROACH_FRACTION,
        inputs.p_M,
        inputs.v_M,
        inputs.R_WM,
        inputs.w_M,
    )


CONTACT = ForceFamily(
    "contact", (Contact,), build_group, evaluate_loads, contact_quantities, step_limit=approach_step_limit
)
