"""Beams in the results: node positions and section forces over the output instants, rebuilt
from the motion of the beam's bodies and the loads of its springs or elements
(``FiniteSegmentBeam``, nodal ``Beam``)."""

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
    """One beam over the output instants.

    Attributes:
        name: the beam's name.
        node_positions: (T, n + 1, 3) world positions of the nodes [m]: a finite-segment beam's
            segment ends (the first segment's start, then each segment's end), a nodal beam's nodes.
        section_forces: (T, j, 6) the stress resultants, force [N] and moment [N m] that the part
            of the beam after each section exerts on the part before it (x along the beam: axial
            force, positive in tension, two shear forces, torsion, two bending moments). Finite
            segments: at each joining spring (the clamp first when clamped), in the axes of the part
            before it; nodal beams: at each element's midpoint, in its midpoint axes (an ANCF cable:
            x its tangent, y and z carried from the undeformed ones by the smallest rotation; no
            torsion; the shear forces from the moment's rate along the element, ``t x dM/ds``).
        bending_moment: (T, n + 1) the bending moment magnitude ``sqrt(M_y^2 + M_z^2)`` [N m] at
            each node (finite segments: the joining spring's, the clamp's at the first end, 0 at a
            free end; nodal beams: the mean of the neighbouring elements').
        node_rotations: (T, n + 1, 3, 3) the section axes at each node (x along the beam), world:
            a nodal beam's node frames; a finite-segment beam's segment axes (the first segment's at
            the first node, then each segment's at its end); an ANCF cable's axes carried along its
            tangent (no torsion).
        section_stiffness: (3,) ``(G J, E Iy, E Iz)`` [N m^2] (an ANCF cable: no torsion, ``G J`` 0).
    """

    name: str
    node_positions: FloatArray
    section_forces: FloatArray
    bending_moment: FloatArray
    node_rotations: FloatArray
    section_stiffness: FloatArray

    @property
    def curvature(self) -> FloatArray:
        """(T, j, 3) the elastic twist rate and the two bending curvatures [1/m] at the sections of
        ``section_forces``: their moments over ``section_stiffness`` (zero where that is zero)."""
        stiffness = np.asarray(self.section_stiffness, dtype=float)
        safe = np.where(stiffness > 0.0, stiffness, 1.0)
        return np.where(stiffness > 0.0, self.section_forces[..., 3:] / safe, 0.0)


def beam_history(results: Results, beam: dict[str, Any], markers: list[dict[str, Any]]) -> BeamHistory:
    """The history of the beam described by its scene entry ``beam`` (the beam's ``drawing``)."""
    kind = beam.get("kind", "finite_segment")
    if kind == "finite_segment":
        return _segment_beam_history(results, beam, markers)
    if kind == "ancf_cable":
        return _cable_beam_history(results, beam)
    return _nodal_beam_history(results, beam, markers)


def _segment_beam_history(results: Results, beam: dict[str, Any], markers: list[dict[str, Any]]) -> BeamHistory:
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
        # the spring's load on its I side (the part after) is minus the resultant
        carried[:, k, :3] = -np.einsum("tji,tj->ti", R_WJ[:, k], loads.force)
        carried[:, k, 3:] = -np.einsum("tji,tj->ti", R_WJ[:, k], loads.torque)
    count = nodes.shape[1]
    moments = np.zeros(nodes.shape[:2])
    joints = carried.shape[1]
    first = 0 if joints == count - 1 else 1  # a clamped beam's first spring is at its first end
    moments[:, first : first + joints] = np.linalg.norm(carried[..., 4:6], axis=-1)
    rotations = np.stack([segments[0].rotation, *(segment.rotation for segment in segments)], axis=1)
    return BeamHistory(beam["name"], nodes, carried, moments, rotations, np.asarray(beam["section_stiffness"]))


def _nodal_beam_history(results: Results, beam: dict[str, Any], markers: list[dict[str, Any]]) -> BeamHistory:
    from multibody.formulation.forces.beam_element import section_resultants

    bodies = [results.body(name) for name in beam["bodies"]]
    nodes = np.stack([body.position for body in bodies], axis=1)
    marker_index = {m["name"]: k for k, m in enumerate(markers)}
    ends = [markers[marker_index[name]] for pair in beam["element_markers"] for name in pair]
    p_WM, R_WM = marker_frames(results, ends)
    sections = np.zeros((len(results), len(beam["elements"]), 6))
    for k, element in enumerate(beam["elements"]):
        loads = results.force(element)
        a, b = 2 * k, 2 * k + 1
        for t in range(len(results)):
            sections[t, k] = section_resultants(
                loads.force[t], loads.torque[t], p_WM[t, a], p_WM[t, b], R_WM[t, a], R_WM[t, b]
            )
    element_moments = np.linalg.norm(sections[..., 4:6], axis=-1)
    padded = np.concatenate([element_moments[:, :1], element_moments, element_moments[:, -1:]], axis=1)
    return BeamHistory(
        beam["name"],
        nodes,
        sections,
        0.5 * (padded[:, :-1] + padded[:, 1:]),
        np.stack([body.rotation for body in bodies], axis=1),
        np.asarray(beam["section_stiffness"]),
    )


def _cable_beam_history(results: Results, beam: dict[str, Any]) -> BeamHistory:
    """The history of a ``kind="ancf_cable"`` beam, from its cable's (``multibody.results.cable``):
    sections at the elements' middles and at the nodes in axes carried along the tangent from the
    first output instant's."""
    cable = results.cable(beam["cable"])
    starts = cable.arc_lengths[:-1]
    sections = np.zeros((len(results), starts.size, 6))
    for k, (start, length) in enumerate(zip(starts, cable.lengths)):
        middle = start + 0.5 * length
        axes = cable.axes_at(middle)
        unit = axes[:, :, 0]
        rate = (cable.moment_vector(middle + 0.25 * length) - cable.moment_vector(middle - 0.25 * length)) / (
            0.5 * length
        )
        force = cable.axial_force(middle)[:, None] * unit + np.cross(unit, rate)
        sections[:, k, :3] = np.einsum("tji,tj->ti", axes, force)
        sections[:, k, 3:] = np.einsum("tji,tj->ti", axes, cable.moment_vector(middle))
    nodes = np.stack([np.linalg.norm(cable.moment_vector(s), axis=1) for s in cable.arc_lengths], axis=1)
    rotations = np.stack([cable.axes_at(s) for s in cable.arc_lengths], axis=1)
    stiffness = np.array([0.0, cable.bending_stiffness, cable.bending_stiffness])
    return BeamHistory(beam["name"], cable.node_positions, sections, nodes, rotations, stiffness)
