"""Moving-node ropes in the results (``Rope(kind="moving_node")``): the same history as a massless
rope's (``multibody.results.rope.RopeHistory``), read from the spans' coordinates: their nodes,
end slopes (the strain ``|r'| - 1`` and the tension ``EA max(strain, 0)`` at each end) and the
material coordinates of their ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.results.rope import RopeHistory, route_frames, route_spins
from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results

GAUSS_POINTS, GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(3)


@dataclass(frozen=True)
class MovingNodeRopeHistory(RopeHistory):
    """A moving-node rope over the output instants. Besides ``RopeHistory``'s fields (tensions at
    the span ends, not one per span: ``span_tension`` is each span's mean of its two ends'):

    Attributes:
        end_tension: (T, n - 1, 2) the elastic tension [N] at each span's start and end.
        nodes: (T, n - 1, e + 1, 6) each span's node positions [m] and slopes ``dr/ds`` [-].
        axial_stiffness: EA [N].
    """

    end_tension: FloatArray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    nodes: FloatArray = field(default_factory=lambda: np.zeros((0, 0, 0, 6)))
    axial_stiffness: float = 0.0
    """EA [N]"""

    def tension_at(self, point: str) -> FloatArray:
        """(T, 2) tension [N] where the rope enters and leaves route point ``point`` (the arriving
        span's end, the leaving span's start); at an end both are its only span's end there."""
        k = self._index(point)
        arriving = self.end_tension[:, k - 1, 1] if k > 0 else self.end_tension[:, 0, 0]
        leaving = self.end_tension[:, k, 0] if k < len(self.points) - 1 else arriving
        return np.column_stack([arriving, leaving])

    def polyline(self, points_per_arc: int = 8) -> FloatArray:
        """(T, k, 3) the rope through its spans' cubic shape (``points_per_arc`` points per element)
        and the arcs on the pulleys, world [m]."""
        return self._polyline(points_per_arc)[0]

    def polyline_tension(self, points_per_arc: int = 8) -> FloatArray:
        """(T, k) the elastic tension [N] at each point of ``polyline``."""
        return self._polyline(points_per_arc)[1]

    def _polyline(self, points_per_arc: int) -> tuple[FloatArray, FloatArray]:
        n_spans = self.nodes.shape[1]
        xi = np.linspace(0.0, 1.0, points_per_arc + 1)[:-1]
        shapes = _hermite_table(xi)  # (2, p, 4): values and xi-derivatives
        points, tensions = [], []
        for k in range(n_spans):
            nodes = self.nodes[:, k]
            rest = (self.material_coordinate[:, k + 1, 0] - self.material_coordinate[:, k, 1]) / (nodes.shape[1] - 1)
            for e in range(nodes.shape[1] - 1):
                position, slope = _element(nodes[:, e : e + 2], rest, shapes)
                points.append(position)
                tensions.append(self.axial_stiffness * np.maximum(np.linalg.norm(slope, axis=-1) - 1.0, 0.0))
            points.append(nodes[:, -1:, :3])
            tensions.append(self.end_tension[:, k, 1:])
            if k + 1 < n_spans:  # the arc on the pulley between this span's end and the next one's start
                arc = self._arc(k + 1, points_per_arc)
                points.append(arc)
                share = np.linspace(0.0, 1.0, points_per_arc + 1)[1:-1]
                tensions.append(
                    self.end_tension[:, k, 1, None] * (1 - share) + self.end_tension[:, k + 1, 0, None] * share
                )
        return np.concatenate(points, axis=1), np.concatenate(tensions, axis=1)

    def _arc(self, point: int, points_per_arc: int) -> FloatArray:
        """(T, points_per_arc - 1, 3) points strictly inside the wrap of route point ``point``."""
        centre, axle = self.centres[:, point], self.axles[:, point]
        start = self.tangent_points[:, point, 0] - centre
        across = self.sense[point] * np.cross(axle, start)
        angle = self.wrap_angle[:, point, None] * np.linspace(0.0, 1.0, points_per_arc + 1)[None, 1:-1]
        return centre[:, None] + np.cos(angle)[..., None] * start[:, None] + np.sin(angle)[..., None] * across[:, None]


def _hermite_table(xi: FloatArray) -> FloatArray:
    """(2, p, 4) the cubic Hermite functions (weighting r_i, L r'_i, r_j, L r'_j) and their
    xi-derivatives at ``xi``."""
    values = np.stack([1 - 3 * xi**2 + 2 * xi**3, xi - 2 * xi**2 + xi**3, 3 * xi**2 - 2 * xi**3, xi**3 - xi**2], -1)
    slopes = np.stack([6 * xi**2 - 6 * xi, 1 - 4 * xi + 3 * xi**2, 6 * xi - 6 * xi**2, 3 * xi**2 - 2 * xi], -1)
    return np.stack([values, slopes])


def _element(nodes: FloatArray, rest: FloatArray, shapes: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Positions (T, p, 3) and slopes ``dr/ds`` (T, p, 3) along one element of rest length ``rest``
    (T,) from its two nodes (T, 2, 6) and the table of ``_hermite_table``."""
    # (r_i, L r'_i, r_j, L r'_j) per instant: (T, 4, 3)
    weighted = np.stack([nodes[:, 0, :3], nodes[:, 0, 3:], nodes[:, 1, :3], nodes[:, 1, 3:]], axis=1)
    weighted[:, 1::2] *= rest[:, None, None]
    position = np.einsum("pi,tia->tpa", shapes[0], weighted)
    slope = np.einsum("pi,tia->tpa", shapes[1], weighted)
    return position, slope / rest[:, None, None]


def moving_rope_history(
    results: Results, name: str, rope: dict[str, Any], markers: list[dict[str, Any]]
) -> RopeHistory:
    """The history of moving-node rope ``name`` from ``results``, its scene entry ``rope`` (with the
    route and span names) and the scene's ``markers``."""
    route = rope["route"]
    n = len(route)
    count = len(results)
    used, p_WM, R_WM, axles = route_frames(results, route, markers)
    sense = np.array([p["sense"] for p in route], dtype=float)
    radius = np.array([p["radius"] for p in route], dtype=float)
    blocks = [results.cable_coordinates(span) for span in rope["spans"]]
    nodes = np.stack([block[:, :-2].reshape(count, -1, 6) for block in blocks], axis=1)  # (T, n-1, e+1, 6)
    ends = np.stack([block[:, -2:] for block in blocks], axis=1)  # (T, n-1, 2)
    EA = rope["axial_stiffness"]
    end_tension = EA * np.maximum(np.linalg.norm(nodes[:, :, [0, -1], 3:], axis=-1) - 1.0, 0.0)
    tangent_points = np.zeros((count, n, 2, 3))
    material = np.zeros((count, n, 2))
    tangent_points[:, 1:, 0], tangent_points[:, :-1, 1] = nodes[:, :, -1, :3], nodes[:, :, 0, :3]
    tangent_points[:, 0, 0], tangent_points[:, -1, 1] = tangent_points[:, 0, 1], tangent_points[:, -1, 0]
    material[:, 1:, 0], material[:, :-1, 1] = ends[:, :, 1], ends[:, :, 0]
    material[:, 0, 0], material[:, -1, 1] = material[:, 0, 1], material[:, -1, 0]
    wraps = np.zeros((count, n))
    for k in range(1, n - 1):
        a = tangent_points[:, k, 0] - p_WM[:, k]
        b = tangent_points[:, k, 1] - p_WM[:, k]
        across = sense[k] * np.cross(axles[:, k], a)
        wraps[:, k] = np.mod(np.arctan2(np.einsum("ta,ta->t", b, across), np.einsum("ta,ta->t", b, a)), 2 * np.pi)
    spans = np.zeros((count, n - 1))
    for k in range(n - 1):
        rest = (ends[:, k, 1] - ends[:, k, 0]) / (nodes.shape[2] - 1)
        for e in range(nodes.shape[2] - 1):
            xi = 0.5 * (GAUSS_POINTS + 1.0)
            _, slope = _element(nodes[:, k, e : e + 2], rest, _hermite_table(xi))
            spans[:, k] += 0.5 * rest * (np.linalg.norm(slope, axis=-1) @ GAUSS_WEIGHTS)
    arc_length = np.zeros((count, n, 2))  # along the rope from the first end's tangent point
    for k in range(n - 1):
        arc_length[:, k + 1, 0] = arc_length[:, k, 1] + spans[:, k]
        arc_length[:, k + 1, 1] = arc_length[:, k + 1, 0] + radius[k + 1] * wraps[:, k + 1]
    first, last = route[0], route[-1]
    paid_out = np.zeros(count)
    if first["length_per_radian"] > 0.0:
        paid_out += ends[0, 0, 0] - ends[:, 0, 0]
    if last["length_per_radian"] > 0.0:
        paid_out += ends[:, -1, 1] - ends[0, -1, 1]
    history = MovingNodeRopeHistory(
        axial_stiffness=float(EA),
        name=name,
        points=tuple(p["name"] for p in route),
        tension=end_tension.max(axis=(1, 2)),
        span_tension=end_tension.mean(axis=2),
        paid_out=paid_out,
        span_length=spans,
        wrap_angle=wraps,
        spin=route_spins(results, used, axles),
        rest_length=(ends[:, -1, 1] - ends[:, 0, 0])[:, None],
        arc_length=arc_length,
        material_coordinate=material,
        tangent_points=tangent_points,
        centres=p_WM,
        axles=axles,
        reference_axes=np.ascontiguousarray(R_WM[..., 0]),
        sense=sense,
        radius=radius,
        end_tension=end_tension,
        nodes=nodes,
    )
    return history
