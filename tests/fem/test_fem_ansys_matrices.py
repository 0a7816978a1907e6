"""ANSYS HBMAT exports (Harwell-Boeing matrices + mapping file): a known model written in that format in the
solver's shuffled equation order and read back gives the same matrices in node-major order and the same modes."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import multibody as mb
from multibody.fem.beams import beam_line, beam_matrices
from multibody.fem.matrix_io import read_harwell_boeing, write_ansys_mapping, write_harwell_boeing

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.tube(0.05, 0.04)
NODE_NUMBERS = 101 + 2 * np.arange(13)
"""ANSYS node numbers of the 13 beam nodes: not 1-based, not contiguous"""


def exported_beam(tmp_path, keep=None):
    """M and K of a 12-element tube beam written as HBMAT would: equations in a shuffled (solver) order,
    lower triangles (RSA), the mapping file naming each equation's node and DOF. ``keep`` drops equations."""
    mesh = beam_line(1.2, 12, SECTION)
    M, K = beam_matrices(mesh, STEEL)
    dofs = np.column_stack([np.repeat(NODE_NUMBERS, 6), np.tile(np.arange(1, 7), 13)])
    order = np.random.default_rng(7).permutation(len(dofs))
    if keep is not None:
        order = order[keep(dofs[order])]
    write_harwell_boeing(tmp_path / "mass.matrix", M[order][:, order], "mass of the tube beam")
    write_harwell_boeing(tmp_path / "stiff.matrix", K[order][:, order], "stiffness of the tube beam")
    write_ansys_mapping(tmp_path / "mass.mapping", dofs[order])
    return mesh, M, K


def test_hbmat_round_trip_gives_node_major_matrices_and_the_same_modes(tmp_path):
    """Reference: the beam's own M and K and the frequencies of the body made from its mesh. The values are
    written with 17 significant digits, so the matrices come back exact to round-off (1e-15 relative);
    the modes then agree to the eigensolver's round-off (1e-10)."""
    mesh, M, K = exported_beam(tmp_path)
    imported = mb.read_ansys_matrices(tmp_path / "mass.matrix", tmp_path / "stiff.matrix", tmp_path / "mass.mapping")
    np.testing.assert_array_equal(imported.nodes, NODE_NUMBERS)
    assert imported.dofs_per_node == 6
    assert abs(imported.mass_matrix - M).max() <= 1e-15 * abs(M).max()
    assert abs(imported.stiffness_matrix - K).max() <= 1e-15 * abs(K).max()
    positions = dict(zip(NODE_NUMBERS, mesh.points))  # what NLIST gives, by node number
    body = mb.FlexibleBody.from_matrices(
        "imported",
        imported.mass_matrix,
        imported.stiffness_matrix,
        np.array([positions[node] for node in imported.nodes]),
        n_modes=4,
        dofs_per_node=imported.dofs_per_node,
    )
    meshed = mb.FlexibleBody.from_mesh("meshed", mesh, STEEL, n_modes=4)
    np.testing.assert_allclose(body.frequencies, meshed.frequencies, rtol=1e-10)


def test_reader_agrees_with_scipy_and_reads_touching_fields_and_right_hand_sides(tmp_path):
    """Two independent writers: scipy's ``hb_write`` (RUA, both triangles) gives the same matrix as ours
    (RSA, one triangle) read back. A hand-written RSA file with Fortran D exponents, fields that touch
    (no blank between them) and a right-hand side block is read as the matrix it spells."""
    matrix = sp.random(9, 9, density=0.4, random_state=3) + 9.0 * sp.eye(9)
    matrix = sp.csc_matrix(matrix + matrix.T)
    scipy.io.hb_write(tmp_path / "scipy.rua", matrix)
    write_harwell_boeing(tmp_path / "ours.rsa", matrix)
    np.testing.assert_array_equal(read_harwell_boeing(tmp_path / "scipy.rua").toarray(), matrix.toarray())
    np.testing.assert_array_equal(read_harwell_boeing(tmp_path / "ours.rsa").toarray(), matrix.toarray())
    header = [
        f"{'hand written 2 x 2':<72}{'KEY':<8}",
        f"{5:14d}{1:14d}{1:14d}{1:14d}{2:14d}",
        f"RSA{'':11}{2:14d}{2:14d}{3:14d}{0:14d}",
        f"{'(3I4)':<16}{'(3I4)':<16}{'(3D10.3)':<20}{'(3D10.3)':<20}",
        f"F  {'':11}{1:14d}{0:14d}",
    ]
    data = ["   1   3   4", "   1   2   2", " 2.000D+00-1.000D+00 3.000D+00", " 1.000D+00 0.000D+00"]
    (tmp_path / "hand.rsa").write_text("\n".join(header + data) + "\n")
    np.testing.assert_array_equal(read_harwell_boeing(tmp_path / "hand.rsa").toarray(), [[2.0, -1.0], [-1.0, 3.0]])


def test_constrained_dofs_mismatched_files_and_bad_input_are_refused_with_the_reason(tmp_path):
    exported_beam(tmp_path, keep=lambda dofs: ~((dofs[:, 0] == 101) & (dofs[:, 1] == 2)))  # UY of node 101 held
    with pytest.raises(mb.ModelError, match="node 101 has no UY equation.*constrained"):
        mb.read_ansys_matrices(tmp_path / "mass.matrix", tmp_path / "stiff.matrix", tmp_path / "mass.mapping")
    (tmp_path / "short.mapping").write_text("Matrix Eqn Node DOF\n 1 1 UX\n 2 1 UY\n 3 1 UZ\n")
    with pytest.raises(mb.ModelError, match="lists 3 equations"):
        mb.read_ansys_matrices(tmp_path / "mass.matrix", tmp_path / "stiff.matrix", tmp_path / "short.mapping")
    (tmp_path / "thermal.mapping").write_text("Matrix Eqn Node DOF\n 1 1 UX\n 2 1 TEMP\n")
    with pytest.raises(mb.ModelError, match="TEMP"):
        mb.read_ansys_matrices(tmp_path / "mass.matrix", tmp_path / "stiff.matrix", tmp_path / "thermal.mapping")
    (tmp_path / "complex.matrix").write_text("title\n 1 1 1 1 0\nCSA 1 1 1 0\n(1I4) (1I4) (1E10.3)\n")
    with pytest.raises(mb.ModelError, match="only real assembled"):
        read_harwell_boeing(tmp_path / "complex.matrix")
    with pytest.raises(mb.ModelError, match="cannot read"):
        read_harwell_boeing(tmp_path / "missing.matrix")
    (tmp_path / "garbled.matrix").write_text("title\nnot counts\nRSA\n")
    with pytest.raises(mb.ModelError, match="Harwell-Boeing layout"):
        read_harwell_boeing(tmp_path / "garbled.matrix")
