"""A rope path wrapped over circles in 3D: tangent points, free spans and wrap arcs.

A route is a sequence of circles (centre ``C``, axle ``z``, radius ``r``; radius 0 for a point)
passed in order. At each circle the rope runs round the axle in the sense ``s`` (+1:
counterclockwise about ``z``, right-handed; -1: clockwise). The rope lies in each circle's plane
where it touches it (it leaves a pulley in its plane) and is straight between circles. A free
span from circle ``a`` to circle ``b`` touches ``a`` at its exit point ``X_a`` and ``b`` at its
entry point ``X_b`` where the span is tangent to both circles: ``(X_b - X_a) . (X_a - C_a) = 0``
and ``(X_b - X_a) . (X_b - C_b) = 0``, with the travel direction agreeing with each sense.

For a point and a circle the tangent point is in closed form (the point's projection on the
circle's plane has the same tangent points); for two circles in different planes each one's
tangent point is the closed-form tangent from the other's, iterated to a fixed point (a
contraction by about ``r_a r_b / d^2`` per pass for a span of length ``d``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from multibody.spatial.rotations import FloatArray

EXIT = 1
"""the rope leaves the circle towards the other point"""
ENTRY = -1
"""the rope arrives at the circle from the other point"""
_ITERATIONS = 200
_TOLERANCE = 1e-14


@njit(cache=True)
def tangent_point(C: FloatArray, z: FloatArray, radius: float, sense: float, role: int, P: FloatArray) -> FloatArray:
    """Where a line through point ``P`` (3,) touches the circle (centre ``C`` (3,), unit axle
    ``z`` (3,), ``radius`` [m]) with the rope running round it in ``sense`` (+1/-1 about ``z``):
    ``role`` EXIT when the rope leaves the circle towards ``P``, ENTRY when it comes from ``P``.
    NaN when ``P`` projects inside the circle; ``C`` itself for radius 0."""
    if radius == 0.0:
        return C.copy()
    d = P - C
    d = d - (d @ z) * z
    distance = np.sqrt(d @ d)
    if distance <= radius:
        return np.full(3, np.nan)
    d_hat = d / distance
    e2 = np.cross(z, d_hat)
    angle = -role * sense * np.arccos(radius / distance)
    return C + radius * (np.cos(angle) * d_hat + np.sin(angle) * e2)


@njit(cache=True)
def wrapped_path(
    C: FloatArray, z: FloatArray, radius: FloatArray, sense: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The path of a rope over ``n`` circles (centres ``C`` (n, 3), unit axles ``z`` (n, 3),
    ``radius`` (n,) [m], 0 for a point; ``sense`` (n,) +1/-1).

    Returns ``(X_in (n, 3), X_out (n, 3), span_length (n-1,) [m], wrap_angle (n,) [rad])``:
    entry and exit tangent points (the first point's entry and the last's exit repeat its only
    tangent point), free span lengths, and the angle each circle is wrapped over from entry to
    exit in its sense (in [0, 2 pi); 0 at the two ends).
    """
    n = C.shape[0]
    X_in = C.copy()
    X_out = C.copy()
    span_length = np.zeros(n - 1)
    for k in range(n - 1):
        a, b = k, k + 1
        scale = 1.0 + radius[a] + radius[b]
        for _ in range(_ITERATIONS):
            exit_a = tangent_point(C[a], z[a], radius[a], sense[a], EXIT, X_in[b])
            entry_b = tangent_point(C[b], z[b], radius[b], sense[b], ENTRY, exit_a)
            change = np.max(np.abs(exit_a - X_out[a])) + np.max(np.abs(entry_b - X_in[b]))
            X_out[a] = exit_a
            X_in[b] = entry_b
            if not change > _TOLERANCE * scale:  # also stops on NaN
                break
        span = X_in[b] - X_out[a]
        span_length[k] = np.sqrt(span @ span)
    X_in[0] = X_out[0]
    X_out[n - 1] = X_in[n - 1]
    wrap_angle = np.zeros(n)
    for k in range(1, n - 1):
        if radius[k] > 0.0:
            wrap_angle[k] = arc_angle(C[k], z[k], sense[k], X_in[k], X_out[k])
    return X_in, X_out, span_length, wrap_angle


@njit(cache=True)
def span_sensitivity(
    C: FloatArray, z: FloatArray, radius: FloatArray, sense: FloatArray, X_in: FloatArray, X_out: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """How the path length changes as the circles move: per free span ``k`` (from circle
    ``a = k``, leaving at ``X_a = X_out[k]``, to circle ``b = k + 1``, arriving at
    ``X_b = X_in[k + 1]``), the direction ``e`` (3,) and the multipliers ``(m_a, m_b)`` [1/m]
    with which, when every circle moves as a rigid body (its axle and the tangent points' angles
    about it turning with it: velocity ``v`` of a point, spin ``w``),

        d(span + arc terms)/dt = e . (v_b(X_b) - v_a(X_a)) + w_a . (m_a rho_a x delta) + w_b . (m_b rho_b x delta)

    (``rho = X - C``, ``delta = X_b - X_a``). Summed over the spans this is ``dL/dt`` exactly,
    ``L`` counting the arcs on every circle of radius > 0, at an end circle (a winch drum) from a
    point fixed in it (as ``rope_length`` does): each arc's length is ``r s (angle_out -
    angle_in)`` with the angles fixed in the circle, and
    the tangent points move with the circles' frames plus along them as the tangency conditions
    ``g_a = delta . rho_a = 0``, ``g_b = delta . rho_b = 0`` dictate; the adjoint of those
    conditions gives ``m`` (``e = u + m_a rho_a + m_b rho_b``, ``u`` the span's unit vector).
    Where the span lies in both circles' planes ``m = 0`` (the length is stationary in the
    tangent points); out of plane (a fleet angle ``b``) ``m = O(b^2 / span)``.

    Returns ``(direction (n-1, 3), multiplier (n-1, 2))``.
    """
    n = C.shape[0]
    direction = np.zeros((n - 1, 3))
    multiplier = np.zeros((n - 1, 2))
    for k in range(n - 1):
        a, b = k, k + 1
        delta = X_in[b] - X_out[a]
        u = delta / np.sqrt(delta @ delta)
        rho_a = X_out[a] - C[a]
        rho_b = X_in[b] - C[b]
        m_a = m_b = 0.0
        if radius[a] > 0.0 and radius[b] > 0.0:
            t_a = np.cross(z[a], rho_a) / radius[a]
            t_b = np.cross(z[b], rho_b) / radius[b]
            # rows: d/d(angle_a) and d/d(angle_b) of (span + arcs) + m . g = 0, divided by the radii
            a11, a12, r1 = delta @ t_a, -(t_a @ rho_b), u @ t_a - sense[a]
            a21, a22, r2 = t_b @ rho_a, delta @ t_b, sense[b] - u @ t_b
            det = a11 * a22 - a12 * a21
            m_a = (r1 * a22 - a12 * r2) / det
            m_b = (a11 * r2 - a21 * r1) / det
        elif radius[a] > 0.0:
            t_a = np.cross(z[a], rho_a) / radius[a]
            m_a = (u @ t_a - sense[a]) / (delta @ t_a)
        elif radius[b] > 0.0:
            t_b = np.cross(z[b], rho_b) / radius[b]
            m_b = (sense[b] - u @ t_b) / (delta @ t_b)
        direction[k] = u + m_a * rho_a + m_b * rho_b
        multiplier[k, 0] = m_a
        multiplier[k, 1] = m_b
    return direction, multiplier


@njit(cache=True)
def arc_angle(C: FloatArray, z: FloatArray, sense: float, X_from: FloatArray, X_to: FloatArray) -> float:
    """The angle [rad] in [0, 2 pi) from ``X_from`` to ``X_to`` (3,) round the axle ``z`` through
    ``C`` in ``sense``."""
    a = X_from - C
    b = X_to - C
    angle = np.arctan2(z @ np.cross(a, b), a @ b)
    return (sense * angle) % (2.0 * np.pi)


@njit(cache=True)
def rope_length(
    p_M: FloatArray,
    R_WM: FloatArray,
    markers: NDArray[np.int64],
    radius: FloatArray,
    sense: FloatArray,
    winch_state: NDArray[np.int64],
    length_per_radian: FloatArray,
    tangent_angle: FloatArray,
    x: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """One rope's path (route points ``markers`` (n,)) at marker frames ``p_M``/``R_WM``:
    ``(X_in, X_out, span_length, wrap_angle, end_arc (2,), end_paid_out (2,))``
    (``wrapped_path``'s, then per end the arc on a winch from its initial tangent point [m] and
    the length it has paid out [m]; zero at an anchor). The path length is
    ``span_length.sum() + radius @ wrap_angle + end_arc.sum()``, the paid-out length
    ``end_paid_out.sum()``. A winch end has its drum angle [rad] (turn about its axle since
    t = 0) at ``x[winch_state[k]]``, its stored length per radian and initial tangent angle in
    its marker's x-y plane; ``winch_state[k]`` is -1 at the other points."""
    n = markers.shape[0]
    C = np.empty((n, 3))
    z = np.empty((n, 3))
    for k in range(n):
        C[k] = p_M[markers[k]]
        z[k] = R_WM[markers[k]][:, 2]
    X_in, X_out, span_length, wrap_angle = wrapped_path(C, z, radius, sense)
    end_arc = np.zeros(2)
    end_paid_out = np.zeros(2)
    for side in range(2):
        k = 0 if side == 0 else n - 1
        if winch_state[k] < 0:
            continue
        end = 1.0 if k == 0 else -1.0  # the rope leaves the first point and arrives at the last
        drum_angle = x[winch_state[k]]
        arm = R_WM[markers[k]].T @ ((X_out[k] if k == 0 else X_in[k]) - C[k])
        # the tangent point's turn about the axle in world terms: its angle on the drum plus the drum's turn
        turn = np.arctan2(arm[1], arm[0]) - tangent_angle[k] + drum_angle
        turn = (turn + np.pi) % (2.0 * np.pi) - np.pi
        end_arc[side] = end * sense[k] * radius[k] * turn
        end_paid_out[side] = end * sense[k] * length_per_radian[k] * drum_angle
    return X_in, X_out, span_length, wrap_angle, end_arc, end_paid_out


@njit(cache=True)
def tangent_point_rates(
    C: FloatArray,
    z: FloatArray,
    radius: FloatArray,
    X_in: FloatArray,
    X_out: FloatArray,
    v_C: FloatArray,
    w: FloatArray,
) -> FloatArray:
    """(n-1, 2) the rates [rad/s] at which each span's tangent points run round their circles,
    as angles about the axles measured in the circles' own (moving) frames: per span ``k``, its
    exit point on circle ``k`` and its entry point on circle ``k + 1`` (0 on a circle of radius 0).
    Each circle moves as a rigid body: centre velocity ``v_C`` (n, 3), spin ``w`` (n, 3); from
    the tangency conditions ``g = 0`` (see ``span_sensitivity``), ``dg/dangle . rate = -dg/dt``.
    A circle spinning about its axle under a fixed path has rate ``-spin`` at both its points."""
    n = C.shape[0]
    rates = np.zeros((n - 1, 2))
    for k in range(n - 1):
        a, b = k, k + 1
        delta = X_in[b] - X_out[a]
        rho_a = X_out[a] - C[a]
        rho_b = X_in[b] - C[b]
        relative = v_C[b] + np.cross(w[b], rho_b) - v_C[a] - np.cross(w[a], rho_a)
        g_a = relative @ rho_a + w[a] @ np.cross(rho_a, delta)
        g_b = relative @ rho_b + w[b] @ np.cross(rho_b, delta)
        if radius[a] > 0.0 and radius[b] > 0.0:
            t_a = np.cross(z[a], rho_a)  # r t_a: d X_a / d angle_a
            t_b = np.cross(z[b], rho_b)
            a11, a12 = delta @ t_a, t_b @ rho_a
            a21, a22 = -(t_a @ rho_b), delta @ t_b
            det = a11 * a22 - a12 * a21
            rates[k, 0] = (-g_a * a22 + a12 * g_b) / det
            rates[k, 1] = (-a11 * g_b + a21 * g_a) / det
        elif radius[a] > 0.0:
            rates[k, 0] = -g_a / (delta @ np.cross(z[a], rho_a))
        elif radius[b] > 0.0:
            rates[k, 1] = -g_b / (delta @ np.cross(z[b], rho_b))
    return rates


def path_polyline(
    C: FloatArray, z: FloatArray, sense: FloatArray, X_in: FloatArray, X_out: FloatArray, points_per_arc: int = 8
) -> FloatArray:
    """The rope as a polyline (2 + (n - 2) (points_per_arc + 1), 3) for drawing: the first
    point's tangent point, each middle circle's arc from entry to exit (``points_per_arc + 1``
    points, a point circle repeats its centre), the last point's tangent point."""
    points = [X_out[0]]
    for k in range(1, len(C) - 1):
        arm = X_in[k] - C[k]
        angle = arc_angle(C[k], z[k], sense[k], X_in[k], X_out[k])
        for phi in np.linspace(0.0, sense[k] * angle, points_per_arc + 1):
            points.append(C[k] + np.cos(phi) * arm + np.sin(phi) * np.cross(z[k], arm))
    points.append(X_in[-1])
    return np.array(points)
