"""Abaqus *MATRIX GENERATE coordinate files: a known model written and read back gives the same modes."""

import numpy as np
import pytest

import multibody as mb
from multibody.fem.beams import beam_line, beam_matrices
from multibody.fem.matrix_io import write_abaqus_matrix

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.tube(0.05, 0.04)


def test_mtx_round_trip_gives_same_matrices_and_modes(tmp_path):
    """Write M and K of a 12-element tube beam (node labels 1..13 as Abaqus numbers them, lower
    triangle as Abaqus writes it), read them back: the same matrices to the file's 17 digits (1e-15)
    and a FlexibleBody from them has the mesh body's frequencies (1e-10, eigen-solver round-off)."""
    mesh = beam_line(1.2, 12, SECTION)
    M, K = beam_matrices(mesh, STEEL)
    dofs = np.column_stack([np.repeat(np.arange(1, 14), 6), np.tile(np.arange(1, 7), 13)])
    write_abaqus_matrix(tmp_path / "beam_MASS1.mtx", M, dofs)
    write_abaqus_matrix(tmp_path / "beam_STIF1.mtx", K, dofs)
    M_read, dofs_read = mb.read_abaqus_matrix(tmp_path / "beam_MASS1.mtx", return_dofs=True)
    K_read = mb.read_abaqus_matrix(tmp_path / "beam_STIF1.mtx")
    np.testing.assert_array_equal(dofs_read, dofs)
    assert abs(M_read - M).max() <= 1e-15 * abs(M).max()
    assert abs(K_read - K).max() <= 1e-15 * abs(K).max()
    from_file = mb.FlexibleBody.from_matrices("imported", M_read, K_read, mesh.points, n_modes=4, dofs_per_node=6)
    from_mesh = mb.FlexibleBody.from_mesh("meshed", mesh, STEEL, n_modes=4)
    np.testing.assert_allclose(from_file.frequencies, from_mesh.frequencies, rtol=1e-10)


def test_both_triangles_and_asymmetry(tmp_path):
    """A file holding both triangles is read as it is; an asymmetric one is refused with the reason."""
    full = tmp_path / "full.mtx"
    full.write_text("*comment\n1,1, 1,1, 2.0\n1,1, 2,1, -1.0\n2,1, 1,1, -1.0\n2,1, 2,1, 2.0\n")
    np.testing.assert_array_equal(mb.read_abaqus_matrix(full).toarray(), [[2.0, -1.0], [-1.0, 2.0]])
    skew = tmp_path / "skew.mtx"
    skew.write_text("1,1, 1,1, 2.0\n1,1, 2,1, -1.0\n2,1, 1,1, -3.0\n2,1, 2,1, 2.0\n")
    with pytest.raises(mb.ModelError, match="not symmetric"):
        mb.read_abaqus_matrix(skew)
    bad = tmp_path / "bad.mtx"
    bad.write_text("1 2 3\n")
    with pytest.raises(mb.ModelError, match="coordinate"):
        mb.read_abaqus_matrix(bad)
    with pytest.raises(mb.ModelError, match="cannot read"):
        mb.read_abaqus_matrix(tmp_path / "missing.mtx")
