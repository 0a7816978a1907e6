"""Rigid node sets (RBE2) of a flexible body: a solid bar clamped at a tied end face, three ways.

Reference: the finite-element cantilever whose end-face nodes are all held (``reference_nodes``). A
tied face held through its master DOFs is the same FE space, and so is the free body clamped by a
Fixed joint at the tied face's marker when the Craig-Bampton interface is that face: the frequencies
agree to the eigensolvers' round-off, not to a discretization error (undamped, as the comparison
is of the FE spaces). A face whose marker only averages its nodes (RBE3-style) lets the face warp,
so that clamp is softer.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.fem.solids import box_mesh

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
MESH = box_mesh((1.0, 0.05, 0.05), (12, 2, 2))
FACE = np.flatnonzero(np.isclose(MESH.points[:, 0], 0.0))


def clamped_frequencies(body: mb.FlexibleBody, marker_nodes) -> np.ndarray:
    """Lowest frequencies [Hz] of ``body`` clamped to ground by a Fixed joint at a marker on ``marker_nodes``."""
    model = mb.Model("clamp", gravity=(0.0, 0.0, 0.0))
    model.add(body)
    model.add(mb.Fixed("wall", body.add_marker("root", node=list(marker_nodes)), model.ground.add_marker("wall")))
    eigenvalues = mb.linearize(model).modes().eigenvalues
    return np.sort(np.abs(eigenvalues[eigenvalues.imag > 0.0]))[:4] / (2.0 * np.pi)  # one of each conjugate pair


def test_tied_face_clamps_like_held_face_nodes():
    held = mb.FlexibleBody.from_mesh("bar", MESH, STEEL, n_modes=4, damping_ratio=0.0, reference_nodes=FACE)
    tied_held = mb.FlexibleBody.from_mesh(
        "bar", MESH, STEEL, n_modes=4, damping_ratio=0.0, reference_nodes=FACE, rigid_sets=[FACE]
    )
    np.testing.assert_allclose(tied_held.frequencies, held.frequencies, rtol=1e-9)
    tied = mb.FlexibleBody.from_mesh(
        "bar", MESH, STEEL, n_modes=4, damping_ratio=0.0, interface=FACE, rigid_sets=[FACE]
    )
    np.testing.assert_allclose(clamped_frequencies(tied, FACE), held.frequencies, rtol=1e-7)
    # every mode moves the tied face rigidly: its nodes keep their distances to first order
    shapes = tied.modes.reshape(len(MESH.points), 3, -1)[FACE]
    offsets = MESH.points[FACE] - MESH.points[FACE].mean(axis=0)
    relative = shapes - shapes.mean(axis=0)
    assert np.max(np.abs(np.einsum("ka,kam->m", offsets, relative))) < 1e-9 * np.max(np.abs(shapes))


def test_averaged_face_clamps_softer_than_a_tied_one():
    """The same Fixed joint on a face marker that averages its nodes (no tie): the face warps under the
    bending moment, so every frequency is lower than the tied clamp's (1.2 % on the first here). The
    model's stiff high modes (1e11 1/s^2 next to unit constraint rows) once made statics' null-space
    check see a free direction at zero load; it runs at zero load here for that reason."""
    held = mb.FlexibleBody.from_mesh("bar", MESH, STEEL, n_modes=4, damping_ratio=0.0, reference_nodes=FACE)
    averaged = mb.FlexibleBody.from_mesh("bar", MESH, STEEL, n_modes=12, damping_ratio=0.0, interface=FACE)
    softer = clamped_frequencies(averaged, FACE)
    assert np.all(softer < held.frequencies)
    assert softer[0] == pytest.approx(held.frequencies[0], rel=0.02)


def test_bad_rigid_sets_are_named():
    with pytest.raises(mb.ModelError, match="rigid set 0 needs at least two nodes"):
        mb.FlexibleBody.from_mesh("bar", MESH, STEEL, n_modes=2, damping_ratio=0.0, rigid_sets=[[0]])
    with pytest.raises(mb.ModelError, match="is in two rigid sets"):
        mb.FlexibleBody.from_mesh("bar", MESH, STEEL, n_modes=2, damping_ratio=0.0, rigid_sets=[FACE[:3], FACE[2:5]])
