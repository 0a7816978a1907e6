"""The scene entry of a flexible (modal) body: what the results and the viewers need of its mesh and modes.

A results file has no model, so the scene carries, for each ``FlexibleBody`` (body axes, SI)::

    "flexible": {"kind": "solid" | "beam" | "points", "node_count": N, "mode_count": m,
                 "nodes": [kept node indices, ascending], "positions": (n, 3), "modes": (n, 3, m),
                 "stress_modes": (n, 6, m) (solids; else null), "triangles": [f x 3 indices into "nodes"],
                 "lines": [e x 2 indices into "nodes"], "radius": tube radius [m] (beams),
                 "markers": {"body/marker": {"translation_modes": (3, m), "rotation_modes": (3, m)}},
                 "frequencies": [m] Hz, "method": ..., "reference_condition": ...}

arrays as base64 little-endian float64 (``multibody.results.flexible.encode_array``; 10.7 characters a
value). The kept nodes are every node of a beam or of a mesh of at most ``ALL_NODES_LIMIT`` nodes, else the
outer surface's corner nodes and the nodes of the body's markers, interface and reference nodes: the size of
the scene grows with the surface, not the volume. The surface is the set of element faces that belong to
one element only, split into triangles and turned outward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.results.flexible import encode_array

if TYPE_CHECKING:
    from multibody.model.flexible import FlexibleBody

ALL_NODES_LIMIT = 500
"""Meshes with at most this many nodes keep all of them in the scene; larger solids keep their surface."""

FACES = {
    4: ((0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)),
    8: ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)),
}
"""Faces of a tetrahedron and a hexahedron by corner, in meshio/VTK corner order."""


def surface_triangles(points: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """(f, 3) node indices of the outer surface of a solid mesh of corner ``cells`` (c, 4 | 8): the faces
    no two elements share, quadrilaterals split in two, each turned so that its normal points out of
    its element (away from the element's centroid)."""
    faces = np.concatenate([cells[:, face] for face in FACES[cells.shape[1]]], axis=0)
    owner = np.tile(np.arange(len(cells)), len(FACES[cells.shape[1]]))
    _, first, count = np.unique(np.sort(faces, axis=1), axis=0, return_index=True, return_counts=True)
    outer, owner = faces[first[count == 1]], owner[first[count == 1]]
    triangles = [outer[:, [0, 1, 2]], *([outer[:, [0, 2, 3]]] if outer.shape[1] == 4 else [])]
    owners = np.concatenate([owner] * len(triangles))
    triangles = np.concatenate(triangles, axis=0)
    corners = points[triangles]
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    inward = np.einsum("fa,fa->f", normal, corners.mean(axis=1) - points[cells[owners]].mean(axis=1)) < 0.0
    triangles[inward] = triangles[inward][:, ::-1]
    return triangles


def flexible_entry(body: FlexibleBody) -> dict[str, Any]:
    """The ``"flexible"`` scene entry of ``body`` (module docstring)."""
    from multibody.fem.beams import BeamMesh
    from multibody.fem.solids import SolidMesh

    n_nodes, m = len(body.node_positions), body.modes.shape[1]
    triangles, lines = np.zeros((0, 3), np.int64), np.zeros((0, 2), np.int64)
    radius = 0.0
    if isinstance(body.mesh, SolidMesh):
        kind = "solid"
        triangles = surface_triangles(body.node_positions, body.mesh.cells)
        kept = np.unique(triangles)
    elif isinstance(body.mesh, BeamMesh):
        kind = "beam"
        lines = np.asarray(body.mesh.elements, np.int64)
        section = body.mesh.section
        radius = float(np.sqrt(2.0 * (section.Iy + section.Iz) / section.area))  # a solid circle's own radius
        kept = np.arange(n_nodes)
    else:
        kind = "points"
        kept = np.zeros(0, np.int64)
    named = [marker.nodes for marker in body.markers.values() if hasattr(marker, "nodes")]
    named += [nodes for nodes in (body.interface, body.reference_nodes) if nodes is not None]
    kept = np.arange(n_nodes) if n_nodes <= ALL_NODES_LIMIT else np.unique(np.concatenate([kept, *named]))
    row = np.full(n_nodes, -1)
    row[kept] = np.arange(len(kept))
    modes = body.modes.reshape(n_nodes, body.dofs_per_node, m)[kept, :3]
    stress = encode_array(body.stress_modes[kept]) if kind == "solid" else None
    return {
        "kind": kind,
        "node_count": n_nodes,
        "mode_count": m,
        "nodes": kept.tolist(),
        "positions": encode_array(body.node_positions[kept]),
        "modes": encode_array(modes),
        "stress_modes": stress,
        "triangles": row[triangles].ravel().tolist(),
        "lines": row[lines].ravel().tolist(),
        "radius": radius,
        "markers": {
            marker.full_name: {
                "translation_modes": encode_array(marker.translation_modes),
                "rotation_modes": encode_array(marker.rotation_modes),
            }
            for marker in body.markers.values()
            if hasattr(marker, "translation_modes")
        },
        "frequencies": body.frequencies.tolist(),
        "method": body.method,
        "reference_condition": body.reference_condition,
    }
