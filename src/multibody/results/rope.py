"""Ropes in the results: tension, paid-out length, spans and wrap angles over the output instants,
recomputed from the bodies' motion and the rope's route in the scene (``Rope.drawing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results


@dataclass(frozen=True)
class RopeHistory:
    """One rope over the output instants (massless kind: one tension all along).

    Attributes:
        name: the rope's name.
        points: names of the route points, end to end (pulley and winch names, anchor markers as body/marker).
        tension: (T,) [N].
        paid_out: (T,) length paid out by the winches since t = 0 [m] (reeled in: negative).
        span_length: (T, n - 1) free span lengths [m].
        wrap_angle: (T, n) angle each pulley is wrapped over [rad] (0 at the ends).
        tangent_points: (T, n, 2, 3) entry and exit tangent points, world [m].
        centres: (T, n, 3) route points' marker origins (pulley centres), world [m].
        axles: (T, n, 3) their z-axes, world.
        sense: (n,) the sense the rope runs round each point (+1 counterclockwise about its axle).
    """

    name: str
    points: tuple[str, ...]
    tension: FloatArray
    paid_out: FloatArray
    span_length: FloatArray
    wrap_angle: FloatArray
    tangent_points: FloatArray
    centres: FloatArray
    axles: FloatArray
    sense: FloatArray

    def tension_at(self, point: str) -> FloatArray:
        """(T, 2) tension [N] where the rope enters and leaves route point ``point`` (its name);
        equal for the massless kind, which has one tension all along."""
        if point not in self.points:
            raise KeyError(f"rope '{self.name}' has no route point '{point}'; its points: {', '.join(self.points)}")
        return np.repeat(self.tension[:, None], 2, axis=1)

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


def rope_history(results: Results, name: str, rope: dict[str, Any], markers: list[dict[str, Any]]) -> RopeHistory:
    """The history of rope ``name`` from ``results``, its scene entry ``rope`` (with the route)
    and the scene's ``markers``."""
    from multibody.results.markers import marker_frames
    from multibody.spatial.wrapping import rope_length

    marker_index = {m["name"]: k for k, m in enumerate(markers)}
    route = rope["route"]
    used = [markers[marker_index[p["marker"]]] for p in route]
    count = len(results)
    p_WM, R_WM = marker_frames(results, used)
    is_winch = np.array([p["length_per_radian"] > 0.0 for p in route])
    winch_state = np.where(is_winch, np.cumsum(is_winch) - 1, -1).astype(np.int64)
    x = results.state(name) if is_winch.any() else np.zeros((count, 0))
    columns = {key: np.array([p[key] for p in route], dtype=float) for key in ("radius", "sense", "length_per_radian")}
    angle = np.array([p["tangent_angle"] for p in route], dtype=float)
    paid_out = np.zeros(count)
    spans = np.zeros((count, len(route) - 1))
    wraps = np.zeros((count, len(route)))
    tangent_points = np.zeros((count, len(route), 2, 3))
    for t in range(count):
        X_in, X_out, spans[t], wraps[t], _, end_paid_out = rope_length(
            p_WM[t], R_WM[t], np.arange(len(route)), columns["radius"], columns["sense"], winch_state,
            columns["length_per_radian"], angle, np.ascontiguousarray(x[t]),
        )  # fmt: skip
        paid_out[t] = end_paid_out.sum()
        tangent_points[t, :, 0], tangent_points[t, :, 1] = X_in, X_out
    return RopeHistory(
        name=name,
        points=tuple(p["name"] for p in route),
        tension=results.force(name).value,
        paid_out=paid_out,
        span_length=spans,
        wrap_angle=wraps,
        tangent_points=tangent_points,
        centres=p_WM,
        axles=np.ascontiguousarray(R_WM[..., 2]),
        sense=columns["sense"],
    )
