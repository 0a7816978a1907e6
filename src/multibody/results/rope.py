"""Ropes in the results: tensions, paid-out length, spans, wrap angles, spins and material
coordinates over the output instants, recomputed from the bodies' motion, the rope's states and
its route in the scene (``Rope.drawing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results


@dataclass(frozen=True)
class RopeHistory:
    """One rope over the output instants (massless kind). Without pulleys with friction the
    tension is one all along; with them each segment between them has its own.

    Attributes:
        name: the rope's name.
        points: names of the route points, end to end (pulley and winch names, anchor markers as body/marker).
        tension: (T,) the largest tension along the rope [N] (the tension, for a rope in one segment).
        span_tension: (T, n - 1) the tension in each free span [N].
        paid_out: (T,) length paid out by the winches since t = 0 [m] (reeled in: negative).
        span_length: (T, n - 1) free span lengths [m].
        wrap_angle: (T, n) angle each pulley is wrapped over [rad] (0 at the ends).
        spin: (T, n) each point's spin about its axle [rad/s] (its marker's angular velocity . axle).
        rest_length: (T, s) unstretched length of each segment [m] (one segment without friction),
            with the rope paid out by a winch at its end.
        arc_length: (T, n, 2) position of each point's entry and exit tangent points along the rope
            from the first end's tangent point [m].
        material_coordinate: (T, n, 2) the rope's material coordinate at the entry and exit tangent
            points [m]: its unstretched length from the material point that was at the first end's
            tangent point at t = 0 (negative where a winch at the first end has paid rope out).
        tangent_points: (T, n, 2, 3) entry and exit tangent points, world [m].
        centres: (T, n, 3) route points' marker origins (pulley centres), world [m].
        axles: (T, n, 3) their z-axes, world.
        reference_axes: (T, n, 3) their x-axes, world (turning with a pulley: its spin made visible).
        sense: (n,) the sense the rope runs round each point (+1 counterclockwise about its axle).
        radius: (n,) the points' radii [m] (0 at an anchor).
    """

    name: str
    points: tuple[str, ...]
    tension: FloatArray
    span_tension: FloatArray
    paid_out: FloatArray
    span_length: FloatArray
    wrap_angle: FloatArray
    spin: FloatArray
    rest_length: FloatArray
    arc_length: FloatArray
    material_coordinate: FloatArray
    tangent_points: FloatArray
    centres: FloatArray
    axles: FloatArray
    reference_axes: FloatArray
    sense: FloatArray
    radius: FloatArray

    def _index(self, point: str) -> int:
        if point not in self.points:
            raise KeyError(f"rope '{self.name}' has no route point '{point}'; its points: {', '.join(self.points)}")
        return self.points.index(point)

    def tension_at(self, point: str) -> FloatArray:
        """(T, 2) tension [N] where the rope enters and leaves route point ``point`` (its name);
        at an end both are the tension of its only span."""
        k = self._index(point)
        arriving = self.span_tension[:, max(k - 1, 0)]
        leaving = self.span_tension[:, min(k, len(self.points) - 2)]
        return np.column_stack([arriving, leaving])

    def material_coordinate_at(self, point: str) -> FloatArray:
        """(T, 2) the rope's material coordinate [m] at route point ``point``'s entry and exit
        tangent points (see ``material_coordinate``)."""
        return self.material_coordinate[:, self._index(point)]

    def arc_length_at(self, point: str) -> FloatArray:
        """(T, 2) where ``point``'s entry and exit tangent points are along the rope from the
        first end's tangent point [m]."""
        return self.arc_length[:, self._index(point)]

    def polyline_tension(self, points_per_arc: int = 8) -> FloatArray:
        """(T, k) the tension [N] at each point of ``polyline``: its span's at the ends, and over a
        pulley's arc running linearly from the entry span's to the exit span's (for drawing)."""
        entry, leaving = self.span_tension[:, :-1], self.span_tension[:, 1:]
        share = np.linspace(0.0, 1.0, points_per_arc + 1)
        arcs = entry[:, :, None] * (1.0 - share) + leaving[:, :, None] * share  # (T, n - 2, points_per_arc + 1)
        count = len(self.tension)
        return np.concatenate([self.span_tension[:, :1], arcs.reshape(count, -1), self.span_tension[:, -1:]], axis=1)

    def rims(self, points_per_circle: int = 24) -> FloatArray:
        """(T, p, 2 (points_per_circle + 1), 3) line segments drawing each pulley and winch (route
        points with a radius) as its pitch circle and a spoke along its marker's x-axis, which
        turns with it; world [m]."""
        wheels = [k for k in range(len(self.points)) if self.radius[k] > 0.0]
        angle = np.linspace(0.0, 2.0 * np.pi, points_per_circle + 1)
        count = len(self.tension)
        segments = np.zeros((count, len(wheels), 2 * (points_per_circle + 1), 3))
        for w, k in enumerate(wheels):
            x_axis = self.reference_axes[:, k]
            y_axis = np.cross(self.axles[:, k], x_axis)
            circle = self.centres[:, k, None] + self.radius[k] * (
                np.cos(angle)[None, :, None] * x_axis[:, None] + np.sin(angle)[None, :, None] * y_axis[:, None]
            )
            segments[:, w, 0 : 2 * points_per_circle : 2] = circle[:, :-1]
            segments[:, w, 1 : 2 * points_per_circle : 2] = circle[:, 1:]
            segments[:, w, -2] = self.centres[:, k]
            segments[:, w, -1] = circle[:, 0]
        return segments

    def polyline(self, points_per_arc: int = 8) -> FloatArray:
        """(T, k, 3) the rope drawn through its tangent points and arcs, world [m]
        (``multibody.spatial.wrapping.path_polyline`` at every instant)."""
        from multibody.spatial.wrapping import path_polyline

        X = self.tangent_points
        return np.array(
            [
                path_polyline(self.centres[t], self.axles[t], self.sense, X[t, :, 0], X[t, :, 1], points_per_arc)
                for t in range(len(self.tension))
            ]
        ).reshape(len(self.tension), -1, 3)


def _along(spans: FloatArray, arcs: FloatArray, boundary: FloatArray, scale: FloatArray, start: float) -> FloatArray:
    """(n, 2) the entry and exit positions of a route's points when the path (``spans`` (n - 1,),
    ``arcs`` (n,) on the points) is walked from ``start``, each piece of segment j scaled by
    ``scale[j]`` (a boundary's arc split between its two segments)."""
    n = len(arcs)
    out = np.zeros((n, 2))
    position, segment = start, 0
    out[0] = position
    for k in range(1, n):
        position += spans[k - 1] * scale[segment]
        out[k, 0] = position
        if k < n - 1:
            if boundary[k]:
                position += 0.5 * arcs[k] * scale[segment]
                segment += 1
                position += 0.5 * arcs[k] * scale[segment]
            else:
                position += arcs[k] * scale[segment]
        out[k, 1] = position
    return out


def rope_history(results: Results, name: str, rope: dict[str, Any], markers: list[dict[str, Any]]) -> RopeHistory:
    """The history of rope ``name`` from ``results``, its scene entry ``rope`` (with the route)
    and the scene's ``markers`` (a moving-node rope's: ``multibody.results.moving_rope``)."""
    if rope.get("kind") == "moving_node":
        from multibody.results.moving_rope import moving_rope_history

        return moving_rope_history(results, name, rope, markers)
    from multibody.model.forces.rope import segment_lengths
    from multibody.spatial.wrapping import rope_length

    route = rope["route"]
    n = len(route)
    count = len(results)
    used, p_WM, R_WM, axles = route_frames(results, route, markers)
    is_winch = np.array([p["length_per_radian"] > 0.0 for p in route])
    boundary = np.array([p.get("friction", 0.0) != 0.0 for p in route])
    winch_state = np.where(is_winch, np.cumsum(is_winch) - 1, -1).astype(np.int64)
    x = results.state(name) if is_winch.any() or boundary.any() else np.zeros((count, 0))
    columns = {key: np.array([p[key] for p in route], dtype=float) for key in ("radius", "sense", "length_per_radian")}
    angle = np.array([p["tangent_angle"] for p in route], dtype=float)
    span_tension = np.column_stack([results.force(f"{name}_span{k + 1}").value for k in range(n - 1)])
    segments = int(boundary.sum()) + 1
    paid_out = np.zeros(count)
    spans = np.zeros((count, n - 1))
    wraps = np.zeros((count, n))
    rest_length = np.zeros((count, segments))
    arc_length = np.zeros((count, n, 2))
    material = np.zeros((count, n, 2))
    tangent_points = np.zeros((count, n, 2, 3))
    for t in range(count):
        X_in, X_out, spans[t], wraps[t], end_arc, end_paid_out = rope_length(
            p_WM[t], R_WM[t], np.arange(n), columns["radius"], columns["sense"], winch_state,
            columns["length_per_radian"], angle, np.ascontiguousarray(x[t]),
        )  # fmt: skip
        paid_out[t] = end_paid_out.sum()
        tangent_points[t, :, 0], tangent_points[t, :, 1] = X_in, X_out
        arcs = columns["radius"] * wraps[t]
        lengths = segment_lengths(spans[t], arcs, boundary)
        lengths[0] += end_arc[0]
        lengths[-1] += end_arc[1]
        rest = x[t, is_winch.sum() :] if segments > 1 else np.array([rope["rest_length"]])
        rest_length[t] = rest
        rest_length[t, 0] += end_paid_out[0]
        rest_length[t, -1] += end_paid_out[1]
        arc_length[t] = _along(spans[t], arcs, boundary, np.ones(segments), 0.0)
        ratio = rest_length[t] / lengths  # unstretched per stretched length, one strain per segment
        material[t] = _along(spans[t], arcs, boundary, ratio, -end_paid_out[0] + ratio[0] * end_arc[0])
    return RopeHistory(
        name=name,
        points=tuple(p["name"] for p in route),
        tension=results.force(name).value,
        span_tension=span_tension,
        paid_out=paid_out,
        span_length=spans,
        wrap_angle=wraps,
        spin=route_spins(results, used, axles),
        rest_length=rest_length,
        arc_length=arc_length,
        material_coordinate=material,
        tangent_points=tangent_points,
        centres=p_WM,
        axles=axles,
        reference_axes=np.ascontiguousarray(R_WM[..., 0]),
        sense=columns["sense"],
        radius=columns["radius"],
    )


def route_frames(
    results: Results, route: list[dict[str, Any]], markers: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], FloatArray, FloatArray, FloatArray]:
    """``(the route points' scene markers, their origins (T, n, 3), axes (T, n, 3, 3) and z-axes
    (T, n, 3))``, world, for a rope's ``route`` (its scene entry's) and the scene's ``markers``."""
    from multibody.results.markers import marker_frames

    marker_index = {m["name"]: k for k, m in enumerate(markers)}
    used = [markers[marker_index[p["marker"]]] for p in route]
    p_WM, R_WM = marker_frames(results, used)
    return used, p_WM, R_WM, np.ascontiguousarray(R_WM[..., 2])


def route_spins(results: Results, used: list[dict[str, Any]], axles: FloatArray) -> FloatArray:
    """(T, n) each route point's spin about its axle [rad/s]: its body's angular velocity . axle
    (0 on ground)."""
    spin = np.zeros(axles.shape[:2])
    bodies = results.layout.body_names
    for k, marker in enumerate(used):
        if marker["body"] >= 0:
            spin[:, k] = np.einsum("ta,ta->t", results.body(bodies[marker["body"]]).angular_velocity, axles[:, k])
    return spin
