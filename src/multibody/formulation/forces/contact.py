"""Compliant contact kernel (``multibody.model.forces.contact``): broad phase by bounding spheres,
exact narrow phase per geometry pair (vectorized over the pairs of one kind), then the normal
law and Coulomb friction vectorized over every contact point.

Each pair is taken in its canonical order (A, B) (``PAIRS``): a contact point has a position
``P`` (world, midway between the two surfaces), a unit normal ``n`` from B towards A and a
penetration ``d > 0``; the load on A at ``P`` is ``F_n n + F_t``. The element's I body gets that
load (or its opposite when I is B), reduced to I's marker origin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
)
from multibody.formulation.forces.friction import adams_step, contact_mode
from multibody.model.forces.base import ForceElement
from multibody.model.forces.contact import LAWS, PAIRS, POISSON_BLEND, Contact
from multibody.model.geometry import Box, Capsule, Cylinder, Mesh, Shape, Sphere
from multibody.spatial.rotations import FloatArray, cross

PAIR_NAMES = tuple(PAIRS.values())
LAW_CODE = {law: code for code, law in enumerate(LAWS)}
IMPACT, POISSON, HUNT_CROSSLEY = LAW_CODE["impact"], LAW_CODE["poisson"], LAW_CODE["hunt_crossley"]


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


def _sphere_pairs(row: IntArray, c_A: FloatArray, r_A: FloatArray, c_B: FloatArray, r_B: FloatArray) -> ContactPoints:
    """Spheres A against spheres B (centres (k,3), radii (k,))."""
    offset = c_A - c_B
    distance = np.linalg.norm(offset, axis=1)
    n = offset / np.where(distance > 0.0, distance, 1.0)[:, None]
    n[distance == 0.0] = (0.0, 0.0, 1.0)  # concentric: any direction separates them
    depth = r_A + r_B - distance
    return ContactPoints(row, c_B + (r_B - 0.5 * depth)[:, None] * n, n, depth)


FLAT_CAP = 1e-8
"""How far [-] the cylinder's x-axis steers the deepest rim point of a cap lying flat."""


def _cylinder_rims(
    row: IntArray,
    p_A: FloatArray,
    R_A: FloatArray,
    radius: FloatArray,
    half: FloatArray,
    p_B: FloatArray,
    n: FloatArray,
) -> ContactPoints:
    """Cylinders (axis z of ``R_A``) against planes: per cap four rim points, the deepest along
    ``-n``, its opposite and the two between. A cap lying flat has no deepest point: a nudge of
    ``FLAT_CAP`` towards the cylinder's x-axis picks one smoothly (its error in depth is
    ``radius FLAT_CAP^2 / tilt^2 / 2``, nil once the cap tilts by more than about 1e-4 rad)."""
    axis = R_A[:, :, 2]
    down = -(n - np.einsum("kc,kc->k", n, axis)[:, None] * axis) + FLAT_CAP * R_A[:, :, 0]
    u = down / np.linalg.norm(down, axis=1)[:, None]
    w = cross(axis, u)
    rims = []
    for side in (-1.0, 1.0):
        cap = p_A + side * half[:, None] * axis
        for direction in (u, -u, w, -w):
            rims.append(cap + radius[:, None] * direction)
    count = len(rims)
    return _against_plane(
        np.tile(row, count),
        np.concatenate(rims),
        np.zeros(count * row.size),
        np.tile(p_B, (count, 1)),
        np.tile(n, (count, 1)),
    )


def _closest_on_segment(start: FloatArray, end: FloatArray, point: FloatArray) -> FloatArray:
    """The points of segments ``start``-``end`` (k,3) closest to ``point`` (k,3)."""
    axis = end - start
    length2 = np.einsum("kc,kc->k", axis, axis)
    s = np.clip(np.einsum("kc,kc->k", point - start, axis) / np.where(length2 > 0.0, length2, 1.0), 0.0, 1.0)
    return start + s[:, None] * axis


def _closest_between_segments(
    p1: FloatArray, q1: FloatArray, p2: FloatArray, q2: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Closest points (k,3) of segments p1-q1 and p2-q2 (clamped parameters; parallel segments
    take the first segment's start projected)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = np.einsum("kc,kc->k", d1, d1)
    e = np.einsum("kc,kc->k", d2, d2)
    f = np.einsum("kc,kc->k", d2, r)
    c = np.einsum("kc,kc->k", d1, r)
    b = np.einsum("kc,kc->k", d1, d2)
    denominator = a * e - b * b
    parallel = denominator <= 1e-12 * a * e
    s = np.where(parallel, 0.0, np.clip((b * f - c * e) / np.where(parallel, 1.0, denominator), 0.0, 1.0))
    t = (b * s + f) / e
    t_clipped = np.clip(t, 0.0, 1.0)
    s = np.where(t != t_clipped, np.clip((b * t_clipped - c) / a, 0.0, 1.0), s)
    return p1 + s[:, None] * d1, p2 + t_clipped[:, None] * d2


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


def narrow_phase(group: ContactGroup, rows: IntArray, p_M: FloatArray, R_WM: FloatArray) -> ContactPoints:
    """Contact points (penetrating or not) of the pair rows ``rows`` that passed the broad phase."""
    parts: list[ContactPoints] = []
    for code, name in enumerate(PAIR_NAMES):
        k = rows[group.pair[rows] == code]
        if not k.size:
            continue
        p_A, R_A = p_M[group.marker_a[k]], R_WM[group.marker_a[k]]
        p_B, R_B = p_M[group.marker_b[k]], R_WM[group.marker_b[k]]
        size_a, size_b = group.size_a[k], group.size_b[k]
        if name == "sphere_plane":
            parts.append(_against_plane(k, p_A, size_a[:, 0], p_B, R_B[:, :, 2]))
        elif name == "sphere_sphere":
            parts.append(_sphere_pairs(k, p_A, size_a[:, 0], p_B, size_b[:, 0]))
        elif name == "box_plane":
            signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
            corners = p_A[:, None, :] + np.einsum("kij,kvj->kvi", R_A, signs[None, :, :] * size_a[:, None, :])
            n = np.repeat(R_B[:, :, 2], 8, axis=0)
            parts.append(
                _against_plane(
                    np.repeat(k, 8), corners.reshape(-1, 3), np.zeros(8 * k.size), np.repeat(p_B, 8, axis=0), n
                )
            )
        elif name == "capsule_plane":
            half = size_a[:, 1:2] * R_A[:, :, 2]
            ends = np.concatenate([p_A + half, p_A - half])
            parts.append(
                _against_plane(
                    np.tile(k, 2), ends, np.tile(size_a[:, 0], 2), np.tile(p_B, (2, 1)), np.tile(R_B[:, :, 2], (2, 1))
                )
            )
        elif name == "cylinder_plane":
            n = R_B[:, :, 2]
            parts.append(_cylinder_rims(k, p_A, R_A, size_a[:, 0], size_a[:, 1], p_B, n))
        elif name == "sphere_capsule":
            half = size_b[:, 1:2] * R_B[:, :, 2]
            nearest = _closest_on_segment(p_B - half, p_B + half, p_A)
            parts.append(_sphere_pairs(k, p_A, size_a[:, 0], nearest, size_b[:, 0]))
        elif name == "capsule_capsule":
            half_a, half_b = size_a[:, 1:2] * R_A[:, :, 2], size_b[:, 1:2] * R_B[:, :, 2]
            on_a, on_b = _closest_between_segments(p_A - half_a, p_A + half_a, p_B - half_b, p_B + half_b)
            parts.append(_sphere_pairs(k, on_a, size_a[:, 0], on_b, size_b[:, 0]))
        elif name in ("mesh_plane", "mesh_mesh"):
            parts += _mesh_pairs(group, k, p_M, R_WM)
    return ContactPoints.join(parts)


def broad_phase(group: ContactGroup, p_M: FloatArray) -> IntArray:
    """Rows whose bounding spheres overlap (every pair with a plane, which is unbounded)."""
    distance = np.linalg.norm(p_M[group.marker_a] - p_M[group.marker_b], axis=1)
    return np.flatnonzero(distance <= group.bound_a + group.bound_b)


def normal_force(group: ContactGroup, row: IntArray, depth: FloatArray, rate: FloatArray) -> FloatArray:
    """Normal force (k,) [N] >= 0 of the points of rows ``row`` at penetration ``depth`` and its rate."""
    law = group.law[row]
    elastic = group.stiffness[row] * depth ** group.exponent[row]
    impact = elastic + adams_step(depth, 0.0, 0.0, group.penetration_depth[row], group.damping[row]) * rate
    hunt_crossley = elastic * (1.0 + group.damping[row] * rate)
    closing = 0.5 * (1.0 + np.tanh(rate / POISSON_BLEND))
    restitution2 = group.restitution[row] ** 2
    poisson = elastic * (restitution2 + (1.0 - restitution2) * closing)
    force = np.where(law == IMPACT, impact, np.where(law == HUNT_CROSSLEY, hunt_crossley, poisson))
    return np.maximum(force, 0.0)


def friction_coefficient(group: ContactGroup, row: IntArray, speed: FloatArray) -> FloatArray:
    """ADAMS's contact friction curve (k,): 0 at rest, mu_s at the stiction velocity, mu_d from
    the transition velocity on."""
    v_s, v_t = group.stiction_velocity[row], group.transition_velocity[row]
    rising = adams_step(speed, 0.0, 0.0, v_s, group.mu_static[row])
    falling = adams_step(speed, v_s, group.mu_static[row], v_t, group.mu_dynamic[row])
    return np.where(speed <= v_s, rising, falling)


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


def contact_state(group: ContactGroup, inputs: LoadInputs) -> ContactState:
    """Broad and narrow phase, then the laws, at one instant (only penetrating points kept)."""
    p_M, v_M, R_WM, w_M = inputs.p_M, inputs.v_M, inputs.R_WM, inputs.w_M
    found = narrow_phase(group, broad_phase(group, p_M), p_M, R_WM)
    touching = found.depth > 0.0
    points = ContactPoints(found.row[touching], found.point[touching], found.normal[touching], found.depth[touching])
    a, b = group.marker_a[points.row], group.marker_b[points.row]
    velocity = v_M[a] + cross(w_M[a], points.point - p_M[a]) - v_M[b] - cross(w_M[b], points.point - p_M[b])
    along = np.einsum("kc,kc->k", velocity, points.normal)
    rate = -along
    slip = velocity - along[:, None] * points.normal
    speed = np.linalg.norm(slip, axis=1)
    normal = normal_force(group, points.row, points.depth, rate)
    mu = friction_coefficient(group, points.row, speed)
    friction = -(mu * normal / np.where(speed > 0.0, speed, 1.0))[:, None] * slip
    return ContactState(points, normal, friction, slip, rate)


def evaluate_loads(group: ContactGroup, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Contact loads on each element's I body at its marker origin, stored and dissipated energy."""
    state = contact_state(group, inputs)
    points, row = state.points, state.points.row
    F_A = state.normal_force[:, None] * points.normal + state.friction_force
    F_I = group.i_is_a[row][:, None] * F_A
    arm = points.point - inputs.p_M[group.i_marker[row]]
    n = group.element.size
    force, torque, value = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros(n)
    np.add.at(force, row, F_I)
    np.add.at(torque, row, cross(arm, F_I))
    np.add.at(value, row, state.normal_force)
    out.force[group.element] = force
    out.torque[group.element] = torque
    out.value[group.element] = value
    exponent = group.exponent[row]
    elastic = group.stiffness[row] * points.depth**exponent
    out.potential += float(np.sum(elastic * points.depth / (exponent + 1.0)))
    # power out of the mechanical system less what the elastic part stores: (F_n - k d^e) d' - F_t . slip
    out.dissipated += float(
        np.sum((state.normal_force - elastic) * state.rate) - np.sum(state.friction_force * state.slip)
    )


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
    p_M, v_M, R_WM, w_M = inputs.p_M, inputs.v_M, inputs.R_WM, inputs.w_M
    a, b = group.marker_a, group.marker_b
    bound_a, bound_b = group.bound_a, group.bound_b
    d = p_M[b] - p_M[a]
    relative = v_M[b] - v_M[a] - cross(w_M[a], d)
    plane_a, plane_b = np.isinf(bound_a), np.isinf(bound_b)
    direction = np.where(plane_a[:, None], R_WM[a][:, :, 2], d / np.maximum(np.linalg.norm(d, axis=1), 1e-300)[:, None])
    direction = np.where(plane_b[:, None], -R_WM[b][:, :, 2], direction)
    finite_a, finite_b = np.where(plane_a, 0.0, bound_a), np.where(plane_b, 0.0, bound_b)
    gap = np.einsum("nc,nc->n", d, direction) - finite_a - finite_b
    closing = (
        -np.einsum("nc,nc->n", relative, direction)
        + finite_a * np.linalg.norm(w_M[a], axis=1)
        + finite_b * np.linalg.norm(w_M[b], axis=1)
    )
    smaller = np.where(plane_a, finite_b, np.where(plane_b, finite_a, np.minimum(finite_a, finite_b)))
    watched = (gap > 0.0) & (closing > 0.0) & ~(plane_a & plane_b)
    if not np.any(watched):
        return np.inf
    return float(np.min((gap[watched] + APPROACH_FRACTION * smaller[watched]) / closing[watched]))


CONTACT = ForceFamily(
    "contact", (Contact,), build_group, evaluate_loads, contact_quantities, step_limit=approach_step_limit
)
