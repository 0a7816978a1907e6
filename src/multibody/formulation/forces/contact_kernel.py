"""Compiled passes of the compliant contact family (``multibody.formulation.forces.contact``):
broad and exact narrow phase of the primitive pairs, then the normal laws, Coulomb friction and
the loads of every contact point, each one call from Python for all the pairs of the group.

The geometry and the laws are those of the module ``multibody.model.forces.contact``; pairs are
in canonical (A, B) order, a point's normal runs from B towards A and its depth is > 0. Mesh
pairs (hulls of different sizes) are not handled here: ``primitive_points`` skips them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.model.forces.contact import LAWS, PAIRS, POISSON_BLEND

_NAMES = tuple(PAIRS.values())
SPHERE_PLANE = _NAMES.index("sphere_plane")
SPHERE_SPHERE = _NAMES.index("sphere_sphere")
BOX_PLANE = _NAMES.index("box_plane")
CAPSULE_PLANE = _NAMES.index("capsule_plane")
CYLINDER_PLANE = _NAMES.index("cylinder_plane")
SPHERE_CAPSULE = _NAMES.index("sphere_capsule")
CAPSULE_CAPSULE = _NAMES.index("capsule_capsule")
IMPACT, HUNT_CROSSLEY = LAWS.index("impact"), LAWS.index("hunt_crossley")

MOST_POINTS = np.zeros(len(_NAMES), dtype=np.int64)
"""Most contact points a pair of each kind yields (index: pair code; meshes: 0, not handled here)."""
MOST_POINTS[[SPHERE_PLANE, SPHERE_SPHERE, SPHERE_CAPSULE, CAPSULE_CAPSULE]] = 1
MOST_POINTS[CAPSULE_PLANE] = 2
MOST_POINTS[[BOX_PLANE, CYLINDER_PLANE]] = 8

FLAT_CAP = 1e-8
"""How far [-] the cylinder's x-axis steers the deepest rim point of a cap lying flat."""


# 3-vectors are tuples (x, y, z) in the kernels: no array is allocated per pair or point. They are
# indexed by constants only (a variable index into a tuple costs numba a copy to the stack).


@njit(cache=True, inline="always")
def _row(a: np.ndarray, k: int) -> tuple:
    """Row ``k`` of an (n, 3) array."""
    return (a[k, 0], a[k, 1], a[k, 2])


@njit(cache=True, inline="always")
def _column(R: np.ndarray, m: int, c: int) -> tuple:
    """Column ``c`` of the rotation ``R[m]`` ((n, 3, 3) array)."""
    return (R[m, 0, c], R[m, 1, c], R[m, 2, c])


@njit(cache=True, inline="always")
def _put(a: np.ndarray, k: int, value: tuple) -> None:
    """Set row ``k`` of an (n, 3) array."""
    a[k, 0], a[k, 1], a[k, 2] = value[0], value[1], value[2]


@njit(cache=True, inline="always")
def _put_add(a: np.ndarray, k: int, value: tuple) -> None:
    """Add to row ``k`` of an (n, 3) array."""
    a[k, 0] += value[0]
    a[k, 1] += value[1]
    a[k, 2] += value[2]


@njit(cache=True, inline="always")
def _add(a: tuple, b: tuple) -> tuple:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True, inline="always")
def _sub(a: tuple, b: tuple) -> tuple:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True, inline="always")
def _scale(s: float, a: tuple) -> tuple:
    return (s * a[0], s * a[1], s * a[2])


@njit(cache=True, inline="always")
def _dot(a: tuple, b: tuple) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def _cross(a: tuple, b: tuple) -> tuple:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, inline="always")
def _clip01(x: float) -> float:
    return min(max(x, 0.0), 1.0)


@njit(cache=True, inline="always")
def adams_step(x: float, x0: float, h0: float, x1: float, h1: float) -> float:
    """ADAMS's STEP: ``h0`` below ``x0``, ``h1`` above ``x1``, a cubic with zero end slopes between."""
    xi = _clip01((x - x0) / (x1 - x0))
    return h0 + (h1 - h0) * xi * xi * (3.0 - 2.0 * xi)


@njit(cache=True, inline="always")
def _store(
    count: int,
    k: int,
    at: tuple,
    n: tuple,
    d: float,
    row: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    depth: np.ndarray,
) -> None:
    """Store point ``count`` (of pair ``k``). The caller tests the depth and counts: a helper that
    does both and returns the new count made the pair loop about 8 times slower (numba 0.68)."""
    row[count] = k
    _put(point, count, at)
    _put(normal, count, n)
    depth[count] = d


@njit(cache=True, inline="always")
def _sphere_on_plane(centre: tuple, radius: float, p_B: tuple, n: tuple) -> tuple:
    """A sphere (a point when ``radius`` is 0) against the plane through ``p_B`` with normal
    ``n``: (contact point, depth)."""
    d = radius - _dot(n, _sub(centre, p_B))
    return _sub(centre, _scale(radius - 0.5 * d, n)), d


@njit(cache=True, inline="always")
def _sphere_pair(c_A: tuple, r_A: float, c_B: tuple, r_B: float) -> tuple:
    """Sphere A against sphere B: (contact point, normal, depth); concentric: normal +z."""
    offset = _sub(c_A, c_B)
    distance = np.sqrt(_dot(offset, offset))
    n = _scale(1.0 / distance, offset) if distance > 0.0 else (0.0, 0.0, 1.0)
    d = r_A + r_B - distance
    return _add(c_B, _scale(r_B - 0.5 * d, n)), n, d


@njit(cache=True, inline="always")
def _closest_on_segment(start: tuple, end: tuple, p: tuple) -> tuple:
    """The point of segment ``start``-``end`` closest to ``p``."""
    axis = _sub(end, start)
    length2 = _dot(axis, axis)
    s = _clip01(_dot(_sub(p, start), axis) / (length2 if length2 > 0.0 else 1.0))
    return _add(start, _scale(s, axis))


@njit(cache=True, inline="always")
def _closest_between_segments(p1: tuple, q1: tuple, p2: tuple, q2: tuple) -> tuple:
    """Closest points of segments p1-q1 and p2-q2 (clamped parameters; parallel segments take
    the first segment's start projected)."""
    d1, d2, r = _sub(q1, p1), _sub(q2, p2), _sub(p1, p2)
    a, e = _dot(d1, d1), _dot(d2, d2)
    f, c, b = _dot(d2, r), _dot(d1, r), _dot(d1, d2)
    denominator = a * e - b * b
    s = 0.0 if denominator <= 1e-12 * a * e else _clip01((b * f - c * e) / denominator)
    t = (b * s + f) / e
    t_clipped = _clip01(t)
    if t != t_clipped:
        s = _clip01((b * t_clipped - c) / a)
    return _add(p1, _scale(s, d1)), _add(p2, _scale(t_clipped, d2))


@njit(cache=True)
def primitive_points(
    pair: np.ndarray,
    marker_a: np.ndarray,
    marker_b: np.ndarray,
    size_a: np.ndarray,
    size_b: np.ndarray,
    bound_a: np.ndarray,
    bound_b: np.ndarray,
    p_M: np.ndarray,
    R_WM: np.ndarray,
) -> tuple:
    """Broad phase (bounding spheres; a plane is unbounded) and exact narrow phase of every
    primitive pair. Returns the penetrating points, ``row`` (k,) (the pair's), ``point`` (k, 3)
    [m] (world, midway between the surfaces), ``normal`` (k, 3) (unit, B to A) and ``depth``
    (k,) [m] > 0, and the rows of the mesh pairs that passed the broad phase."""
    n = pair.size
    capacity = 0
    for k in range(n):
        capacity += MOST_POINTS[pair[k]]
    row = np.empty(capacity, dtype=np.int64)
    point = np.empty((capacity, 3))
    normal = np.empty((capacity, 3))
    depth = np.empty(capacity)
    meshes = np.empty(n, dtype=np.int64)
    count = 0
    mesh_count = 0
    for k in range(n):
        a, b = marker_a[k], marker_b[k]
        p_A, p_B = _row(p_M, a), _row(p_M, b)
        gap = _sub(p_A, p_B)
        if np.sqrt(_dot(gap, gap)) > bound_a[k] + bound_b[k]:
            continue
        code = pair[k]
        if code == SPHERE_PLANE:
            n_B = _column(R_WM, b, 2)
            at, d = _sphere_on_plane(p_A, size_a[k, 0], p_B, n_B)
            if d > 0.0:
                _store(count, k, at, n_B, d, row, point, normal, depth)
                count += 1
        elif code == SPHERE_SPHERE:
            at, n_AB, d = _sphere_pair(p_A, size_a[k, 0], p_B, size_b[k, 0])
            if d > 0.0:
                _store(count, k, at, n_AB, d, row, point, normal, depth)
                count += 1
        elif code == BOX_PLANE:
            n_B = _column(R_WM, b, 2)
            x_A, y_A, z_A = _column(R_WM, a, 0), _column(R_WM, a, 1), _column(R_WM, a, 2)
            for sx in (-1.0, 1.0):
                for sy in (-1.0, 1.0):
                    for sz in (-1.0, 1.0):
                        corner = _add(
                            p_A,
                            _add(
                                _scale(sx * size_a[k, 0], x_A),
                                _add(_scale(sy * size_a[k, 1], y_A), _scale(sz * size_a[k, 2], z_A)),
                            ),
                        )
                        at, d = _sphere_on_plane(corner, 0.0, p_B, n_B)
                        if d > 0.0:
                            _store(count, k, at, n_B, d, row, point, normal, depth)
                            count += 1
        elif code == CAPSULE_PLANE:
            n_B = _column(R_WM, b, 2)
            half = _scale(size_a[k, 1], _column(R_WM, a, 2))
            for end in (_add(p_A, half), _sub(p_A, half)):
                at, d = _sphere_on_plane(end, size_a[k, 0], p_B, n_B)
                if d > 0.0:
                    _store(count, k, at, n_B, d, row, point, normal, depth)
                    count += 1
        elif code == CYLINDER_PLANE:
            n_B = _column(R_WM, b, 2)
            axis = _column(R_WM, a, 2)
            down = _add(_scale(-1.0, _sub(n_B, _scale(_dot(n_B, axis), axis))), _scale(FLAT_CAP, _column(R_WM, a, 0)))
            u = _scale(1.0 / np.sqrt(_dot(down, down)), down)
            w = _cross(axis, u)
            radius, half_length = size_a[k, 0], size_a[k, 1]
            for side in (-1.0, 1.0):
                cap = _add(p_A, _scale(side * half_length, axis))
                for direction in (u, _scale(-1.0, u), w, _scale(-1.0, w)):
                    at, d = _sphere_on_plane(_add(cap, _scale(radius, direction)), 0.0, p_B, n_B)
                    if d > 0.0:
                        _store(count, k, at, n_B, d, row, point, normal, depth)
                        count += 1
        elif code == SPHERE_CAPSULE:
            half = _scale(size_b[k, 1], _column(R_WM, b, 2))
            nearest = _closest_on_segment(_sub(p_B, half), _add(p_B, half), p_A)
            at, n_AB, d = _sphere_pair(p_A, size_a[k, 0], nearest, size_b[k, 0])
            if d > 0.0:
                _store(count, k, at, n_AB, d, row, point, normal, depth)
                count += 1
        elif code == CAPSULE_CAPSULE:
            half_a = _scale(size_a[k, 1], _column(R_WM, a, 2))
            half_b = _scale(size_b[k, 1], _column(R_WM, b, 2))
            on_a, on_b = _closest_between_segments(
                _sub(p_A, half_a), _add(p_A, half_a), _sub(p_B, half_b), _add(p_B, half_b)
            )
            at, n_AB, d = _sphere_pair(on_a, size_a[k, 0], on_b, size_b[k, 0])
            if d > 0.0:
                _store(count, k, at, n_AB, d, row, point, normal, depth)
                count += 1
        else:
            meshes[mesh_count] = k
            mesh_count += 1
    return row[:count], point[:count], normal[:count], depth[:count], meshes[:mesh_count]


@njit(cache=True)
def point_loads(
    row: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    depth: np.ndarray,
    marker_a: np.ndarray,
    marker_b: np.ndarray,
    law: np.ndarray,
    stiffness: np.ndarray,
    exponent: np.ndarray,
    damping: np.ndarray,
    penetration_depth: np.ndarray,
    restitution: np.ndarray,
    mu_static: np.ndarray,
    mu_dynamic: np.ndarray,
    stiction_velocity: np.ndarray,
    transition_velocity: np.ndarray,
    p_M: np.ndarray,
    v_M: np.ndarray,
    w_M: np.ndarray,
) -> tuple:
    """The laws at each contact point (see ``multibody.model.forces.contact``): ``(normal force
    (k,) [N], friction on A (k, 3) [N], slip of A on B (k, 3) [m/s], penetration rate (k,) [m/s],
    elastic force k d^e (k,) [N])``."""
    count = row.size
    normal_force = np.empty(count)
    friction = np.empty((count, 3))
    slip = np.empty((count, 3))
    rate = np.empty(count)
    elastic = np.empty(count)
    for p in range(count):
        k = row[p]
        a, b = marker_a[k], marker_b[k]
        at, n = _row(point, p), _row(normal, p)
        velocity_A = _add(_row(v_M, a), _cross(_row(w_M, a), _sub(at, _row(p_M, a))))
        velocity_B = _add(_row(v_M, b), _cross(_row(w_M, b), _sub(at, _row(p_M, b))))
        velocity = _sub(velocity_A, velocity_B)
        along = _dot(velocity, n)
        closing = -along
        s = _sub(velocity, _scale(along, n))
        speed = np.sqrt(_dot(s, s))
        spring = stiffness[k] * depth[p] ** exponent[k]
        if law[k] == IMPACT:
            force = spring + adams_step(depth[p], 0.0, 0.0, penetration_depth[k], damping[k]) * closing
        elif law[k] == HUNT_CROSSLEY:
            force = spring * (1.0 + damping[k] * closing)
        else:
            closing_share = 0.5 * (1.0 + np.tanh(closing / POISSON_BLEND))
            restitution2 = restitution[k] ** 2
            force = spring * (restitution2 + (1.0 - restitution2) * closing_share)
        force = max(force, 0.0)
        v_s, v_t = stiction_velocity[k], transition_velocity[k]
        if speed <= v_s:
            mu = adams_step(speed, 0.0, 0.0, v_s, mu_static[k])
        else:
            mu = adams_step(speed, v_s, mu_static[k], v_t, mu_dynamic[k])
        scale = mu * force / (speed if speed > 0.0 else 1.0)
        normal_force[p] = force
        _put(friction, p, _scale(-scale, s))
        _put(slip, p, s)
        rate[p] = closing
        elastic[p] = spring
    return normal_force, friction, slip, rate, elastic


@njit(cache=True)
def element_loads(
    element: np.ndarray,
    row: np.ndarray,
    point: np.ndarray,
    normal: np.ndarray,
    depth: np.ndarray,
    marker_a: np.ndarray,
    marker_b: np.ndarray,
    law: np.ndarray,
    stiffness: np.ndarray,
    exponent: np.ndarray,
    damping: np.ndarray,
    penetration_depth: np.ndarray,
    restitution: np.ndarray,
    mu_static: np.ndarray,
    mu_dynamic: np.ndarray,
    stiction_velocity: np.ndarray,
    transition_velocity: np.ndarray,
    i_is_a: np.ndarray,
    i_marker: np.ndarray,
    p_M: np.ndarray,
    v_M: np.ndarray,
    w_M: np.ndarray,
    force: np.ndarray,
    torque: np.ndarray,
    value: np.ndarray,
) -> tuple:
    """The laws at the contact points (``point_loads``) summed per pair into rows ``element`` of
    ``force`` (on I at its marker origin, (nf, 3) [N]), ``torque`` ((nf, 3) [N m]) and ``value``
    (total normal force, (nf,) [N]). Returns the energy stored [J] and the power dissipated [W]
    (the power out of the mechanical system less what the elastic part stores)."""
    normal_force, friction, slip, rate, elastic = point_loads(
        row,
        point,
        normal,
        depth,
        marker_a,
        marker_b,
        law,
        stiffness,
        exponent,
        damping,
        penetration_depth,
        restitution,
        mu_static,
        mu_dynamic,
        stiction_velocity,
        transition_velocity,
        p_M,
        v_M,
        w_M,
    )
    for k in range(element.size):
        force[element[k]] = 0.0
        torque[element[k]] = 0.0
        value[element[k]] = 0.0
    potential = 0.0
    dissipated = 0.0
    for p in range(row.size):
        k = row[p]
        e = element[k]
        F_I = _scale(i_is_a[k], _add(_scale(normal_force[p], _row(normal, p)), _row(friction, p)))
        T_I = _cross(_sub(_row(point, p), _row(p_M, i_marker[k])), F_I)
        _put_add(force, e, F_I)
        _put_add(torque, e, T_I)
        value[e] += normal_force[p]
        potential += elastic[p] * depth[p] / (exponent[k] + 1.0)
        dissipated += (normal_force[p] - elastic[p]) * rate[p] - _dot(_row(friction, p), _row(slip, p))
    return potential, dissipated


@njit(cache=True)
def approach_step_limit(
    marker_a: np.ndarray,
    marker_b: np.ndarray,
    bound_a: np.ndarray,
    bound_b: np.ndarray,
    fraction: float,
    p_M: np.ndarray,
    v_M: np.ndarray,
    R_WM: np.ndarray,
    w_M: np.ndarray,
) -> float:
    """The longest step [s] in which no pair that is apart closes its bounding-sphere gap (a
    plane's: the distance along its normal) by more than that gap plus ``fraction`` of its
    smaller bounding radius, at the current closing speed (the bounding spheres' rims moving with
    the bodies' spin included). Inf when no pair approaches."""
    limit = np.inf
    for k in range(marker_a.size):
        a, b = marker_a[k], marker_b[k]
        plane_a, plane_b = np.isinf(bound_a[k]), np.isinf(bound_b[k])
        if plane_a and plane_b:
            continue
        d = _sub(_row(p_M, b), _row(p_M, a))
        relative = _sub(_sub(_row(v_M, b), _row(v_M, a)), _cross(_row(w_M, a), d))
        if plane_a:
            direction = _column(R_WM, a, 2)
        elif plane_b:
            direction = _scale(-1.0, _column(R_WM, b, 2))
        else:
            direction = _scale(1.0 / max(np.sqrt(_dot(d, d)), 1e-300), d)
        finite_a = 0.0 if plane_a else bound_a[k]
        finite_b = 0.0 if plane_b else bound_b[k]
        gap = _dot(d, direction) - finite_a - finite_b
        spin_a, spin_b = _row(w_M, a), _row(w_M, b)
        closing = (
            -_dot(relative, direction)
            + finite_a * np.sqrt(_dot(spin_a, spin_a))
            + finite_b * np.sqrt(_dot(spin_b, spin_b))
        )
        if gap > 0.0 and closing > 0.0:
            smaller = finite_b if plane_a else finite_a if plane_b else min(finite_a, finite_b)
            limit = min(limit, (gap + fraction * smaller) / closing)
    return limit
