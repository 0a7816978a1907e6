"""Flexible (modal) bodies in the results: node displacements, node positions and stresses over the
output instants, rebuilt from the modal coordinates and the mode shapes the scene carries.

The scene (``multibody.system.flexible_scene``) stores, for each flexible body, the nodes it keeps (all
nodes of small meshes and beams; the surface and marker nodes of large solid meshes), their undeformed
positions and translation mode shapes, and for solids their stress modes; so a results file alone gives
``res.body("arm").deformation(node)``, ``.node_positions()`` and ``.von_mises()``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from multibody.results.results import BodyHistory, FloatArray


def encode_array(values: ArrayLike, dtype: str = "<f8") -> str:
    """``values`` as base64 text of little-endian ``dtype`` bytes (how the scene carries arrays)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=np.dtype(dtype)).tobytes()).decode("ascii")


def decode_array(text: str, shape: tuple[int, ...], dtype: str = "<f8") -> np.ndarray:
    """The array (``shape``) that ``encode_array`` wrote as ``text``."""
    values = np.frombuffer(base64.b64decode(text), dtype=np.dtype(dtype)).reshape(shape)
    values = values.astype(values.dtype.newbyteorder("="))
    values.flags.writeable = False  # like every array of the results
    return values


@dataclass(frozen=True)
class ModalShapes:
    """What the scene keeps of one flexible body's mesh and modes (body axes, SI).

    Attributes:
        kind: "solid" or "beam".
        node_count: number of nodes of the whole mesh.
        nodes: (n,) the kept nodes' indices in the mesh (0-based, ascending).
        positions: (n, 3) their undeformed positions [m].
        modes: (n, 3, m) their translation per unit modal coordinate [m / (sqrt(kg) m)].
        stress_modes: (n, 6, m) their stress per unit modal coordinate [Pa], Voigt order
            (xx, yy, zz, yz, xz, xy); None for beams.
        triangles: (f, 3) the solid's outer surface, indices into ``nodes`` (beams: (0, 3)).
        lines: (e, 2) the beam's elements, indices into ``nodes`` (solids: (0, 2)).
        radius: radius of the tube that draws a beam [m] (solids: 0).
        frequencies: (m,) the kept modes' frequencies [Hz].
        marker_modes: full marker name ("body/marker") -> its translation and small-rotation modes T, A
            (3, m) each (``FlexibleMarker``): the marker's origin is at p_BM + T q and its axes are turned by
            exp(skew(A q)), as the equations of motion have them.
    """

    kind: str
    node_count: int
    nodes: np.ndarray
    positions: FloatArray
    modes: FloatArray
    stress_modes: FloatArray | None
    triangles: np.ndarray
    lines: np.ndarray
    radius: float
    frequencies: FloatArray
    marker_modes: dict[str, tuple[FloatArray, FloatArray]]

    @staticmethod
    def from_scene(entry: dict[str, Any]) -> ModalShapes:
        """The shapes of a body's scene entry ``entry["flexible"]``."""
        n, m = len(entry["nodes"]), entry["mode_count"]
        stress = entry.get("stress_modes")
        return ModalShapes(
            kind=entry["kind"],
            node_count=entry["node_count"],
            nodes=np.asarray(entry["nodes"], np.int64),
            positions=decode_array(entry["positions"], (n, 3)),
            modes=decode_array(entry["modes"], (n, 3, m)),
            stress_modes=None if stress is None else decode_array(stress, (n, 6, m)),
            triangles=np.asarray(entry["triangles"], np.int64).reshape(-1, 3),
            lines=np.asarray(entry["lines"], np.int64).reshape(-1, 2),
            radius=float(entry["radius"]),
            frequencies=np.asarray(entry["frequencies"], float),
            marker_modes={
                name: (decode_array(modes["translation_modes"], (3, m)), decode_array(modes["rotation_modes"], (3, m)))
                for name, modes in entry.get("markers", {}).items()
            },
        )

    def rows(self, nodes: ArrayLike | None, owner: str) -> np.ndarray:
        """Row indices into the kept arrays of mesh ``nodes`` (None: every kept node); KeyError
        naming the node when it is not kept."""
        if nodes is None:
            return np.arange(len(self.nodes))
        wanted = np.atleast_1d(np.asarray(nodes))
        if wanted.dtype.kind not in "iu" or wanted.ndim != 1:
            raise KeyError(f"{owner}: nodes must be 0-based mesh node indices (integers), got {nodes!r}")
        rows = np.searchsorted(self.nodes, wanted)
        rows = np.minimum(rows, len(self.nodes) - 1)
        missing = wanted[self.nodes[rows] != wanted]
        if missing.size:
            node = int(missing[0])
            if not 0 <= node < self.node_count:
                raise KeyError(f"{owner}: node {node} is out of range; the mesh has nodes 0 .. {self.node_count - 1}")
            raise KeyError(
                f"{owner}: node {node} is not kept in the results (a large solid mesh keeps its surface nodes and "
                "the nodes of its markers); put a marker on it (body.add_marker) to keep it"
            )
        return rows


@dataclass(frozen=True)
class FlexibleBodyHistory(BodyHistory):
    """A flexible body's frame motion (``BodyHistory``: ``position`` and ``euler_parameters`` are those
    of the body frame, at the mesh origin, not the centre of mass) and its elastic deformation.

    Attributes:
        modal_coordinates: (T, m) [sqrt(kg) m].
        modal_velocities: (T, m) [sqrt(kg) m/s].
        shapes: the kept nodes and modes (``ModalShapes``).
    """

    modal_coordinates: FloatArray | None = None
    modal_velocities: FloatArray | None = None
    shapes: ModalShapes | None = None

    @property
    def nodes(self) -> np.ndarray:
        """(n,) the mesh nodes the results keep (0-based indices); ``node=None`` means all of them."""
        return self._shapes.nodes

    @property
    def frequencies(self) -> FloatArray:
        """(m,) frequencies of the kept modes [Hz] (``FlexibleBody.frequencies``)."""
        return self._shapes.frequencies

    def deformation(self, node: int | ArrayLike | None = None, axes: str = "body") -> FloatArray:
        """Elastic displacement [m] of mesh node ``node`` (0-based): (T, 3) for one node, (T, n, 3) for
        a list of nodes or None (every kept node). ``axes="body"`` (default): components in the body
        frame, the deformation seen by an observer riding the frame; ``"world"``: the same vector in
        world components (for plots against world directions)."""
        shapes = self._shapes
        rows = shapes.rows(node, self._owner)
        displacement = np.einsum("kaj,tj->tka", shapes.modes[rows], self.modal_coordinates)
        if axes == "world":
            displacement = np.einsum("tab,tkb->tka", self.rotation, displacement)
        elif axes != "body":
            raise ValueError(f"{self._owner}: axes must be 'body' or 'world', got {axes!r}")
        return displacement[:, 0] if np.ndim(node) == 0 and node is not None else displacement

    def node_positions(self, node: int | ArrayLike | None = None) -> FloatArray:
        """Deformed world positions [m] of mesh node ``node``: (T, 3) for one node, (T, n, 3) for a list
        or None (every kept node): frame origin + R_WB (undeformed position + deformation)."""
        shapes = self._shapes
        rows = shapes.rows(node, self._owner)
        p_BQ = shapes.positions[rows] + np.einsum("kaj,tj->tka", shapes.modes[rows], self.modal_coordinates)
        p_WQ = self.position[:, None] + np.einsum("tab,tkb->tka", self.rotation, p_BQ)
        return p_WQ[:, 0] if np.ndim(node) == 0 and node is not None else p_WQ

    def stress(self, node: int | ArrayLike | None = None) -> FloatArray:
        """Stress [Pa] at mesh node ``node`` in body axes, Voigt order (xx, yy, zz, yz, xz, xy): (T, 6) for
        one node, (T, n, 6) for a list or None; solid meshes (the modes' nodal stress fields,
        ``FlexibleBody.stress_modes``, superposed with the modal coordinates)."""
        shapes = self._shapes
        if shapes.stress_modes is None:
            raise ValueError(f"{self._owner}: stresses are given for solid meshes; this body is a {shapes.kind} mesh")
        rows = shapes.rows(node, self._owner)
        stress = np.einsum("kaj,tj->tka", shapes.stress_modes[rows], self.modal_coordinates)
        return stress[:, 0] if np.ndim(node) == 0 and node is not None else stress

    def von_mises(self, node: int | ArrayLike | None = None) -> FloatArray:
        """Von Mises stress [Pa] at mesh node ``node``: (T,) for one node, (T, n) for a list or None."""
        from multibody.fem.solids import von_mises

        return von_mises(self.stress(node))

    @property
    def _shapes(self) -> ModalShapes:
        if self.shapes is None:
            raise ValueError(f"{self._owner}: the results hold no mesh description (written without a scene)")
        return self.shapes

    @property
    def _owner(self) -> str:
        return f"flexible body '{self.name}'"
