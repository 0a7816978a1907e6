"""Finite-segment beams in the results: node positions and section forces over the output
instants, rebuilt from the segments' motion and the joining springs' loads (``FiniteSegmentBeam``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.results.markers import marker_frames
from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results


@dataclass(frozen=True)
class BeamHistory:
    """One finite-segment beam over the output instants.

    Attributes:
        name: the beam's name.
        node_positions: (T, n + 1, 3) world positions of the segment ends [m]: the first
            segment's start, then each segment's end.
        section_forces: (T, j, 6) force [N] and moment [N m] each joining spring carries (the
            clamp first when clamped), in the axes of the part before it (x along the beam: axial
            force, two shear forces, torsion, two bending moments), as loads on the part after it.
    """

    name: str
    node_positions: FloatArray
    section_forces: FloatArray


def beam_history(results: Results, beam: dict[str, Any], markers: list[dict[str, Any]]) -> BeamHistory:
    """The history of the beam described by its scene entry ``beam`` (``FiniteSegmentBeam.drawing``)."""
    half = 0.5 * beam["segment_length"]
    segments = [results.body(name) for name in beam["segments"]]
    axes = [segment.rotation[:, :, 0] for segment in segments]
    ends = [segment.position + half * axis for segment, axis in zip(segments, axes)]
    nodes = np.stack([segments[0].position - half * axes[0], *ends], axis=1)
    marker_index = {m["name"]: k for k, m in enumerate(markers)}
    _, R_WJ = marker_frames(results, [markers[marker_index[name]] for name in beam["joint_axes"]])
    carried = np.zeros((len(results), len(beam["joints"]), 6))
    for k, joint in enumerate(beam["joints"]):
        loads = results.force(joint)
        carried[:, k, :3] = np.einsum("tji,tj->ti", R_WJ[:, k], loads.force)
        carried[:, k, 3:] = np.einsum("tji,tj->ti", R_WJ[:, k], loads.torque)
    return BeamHistory(beam["name"], nodes, carried)
