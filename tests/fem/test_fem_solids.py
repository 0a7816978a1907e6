"""Solid meshes (scikit-fem) against closed forms: cantilever and free-free frequencies, mass, files."""

import meshio
import numpy as np
import pytest

import multibody as mb
from multibody.fem.reduction import lowest_modes, node_dofs
from multibody.fem.solids import ELEMENTS, box_mesh, read_mesh, solid_matrices, tube_mesh

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
H = 0.01  # square section side [m]; L = 1 m, L/h = 100 so shear and rotary inertia are < 1e-4
EI = STEEL.E * H**4 / 12
RHO_A = STEEL.density * H**2


def euler_bernoulli(beta_l: np.ndarray) -> np.ndarray:
    return beta_l**2 / (2 * np.pi) * np.sqrt(EI / RHO_A)


def clamped_first_frequency(mesh) -> float:
    M, K = solid_matrices(mesh, STEEL)
    held = node_dofs(np.flatnonzero(np.isclose(mesh.points[:, 0], 0.0)), 3)
    free = np.setdiff1d(np.arange(M.shape[0]), held)
    omega2, _ = lowest_modes(M[free][:, free], K[free][:, free], 1, "test")
    return float(np.sqrt(omega2[0]) / (2 * np.pi))


@pytest.mark.parametrize("element", ["tet10", "hex20"])
def test_solid_cantilever_converges_to_euler_bernoulli(element):
    """Clamped-free bar of quadratic solids vs Euler-Bernoulli (beta L = 1.8751). One element through
    the thickness, 10 then 20 along the length: the error (too stiff: 1.4 %, then 0.7 %) halves with
    the element length; tolerances: below 1 % on the finer mesh and at least 1.8x smaller."""
    expected = euler_bernoulli(np.array(1.8751040687))
    errors = [clamped_first_frequency(box_mesh((1.0, H, H), (n, 1, 1), element)) / expected - 1 for n in (10, 20)]
    assert 0 < errors[1] < 0.01
    assert errors[1] < errors[0] / 1.8


def test_solid_free_free_via_flexible_body():
    """Free-free bar of 20 hex20 elements: rigid modes dropped, the two lowest modes are the pair of
    bending modes at beta L = 4.730 (square section: equal frequencies); 1 % as the cantilever above."""
    body = mb.FlexibleBody.from_mesh("bar", box_mesh((1.0, H, H), (20, 1, 1), "hex20"), STEEL, n_modes=2)
    np.testing.assert_allclose(body.frequencies, euler_bernoulli(np.array([4.7300407449] * 2)), rtol=1e-2)
    assert body.invariants.reference_condition == "mean_axes"


@pytest.mark.parametrize("element", list(ELEMENTS))
def test_mass_and_rigid_motion_every_element(element):
    """Every element: total mass = rho V (consistent mass integrates a constant exactly, 1e-12) and
    rigid translation and rotation produce no elastic force (K u = 0 to round-off)."""
    mesh = box_mesh((0.3, 0.2, 0.1), (2, 1, 1), element, origin=(0.1, -0.1, 0.0))
    M, K = solid_matrices(mesh, STEEL)
    translation = np.zeros(M.shape[0])
    translation[0::3] = 1.0
    assert translation @ M @ translation == pytest.approx(STEEL.density * 0.006, rel=1e-12)
    rotation = np.cross([0.0, 0.0, 1.0], mesh.points).ravel()
    assert np.abs(K @ rotation).max() < 1e-6 * abs(K).max() * np.abs(rotation).max()


def test_tube_mass_is_polygon_annulus():
    """A tube of n_around hexahedra is an annulus of regular n-gons: area (n/2) sin(2 pi/n) (R^2 - r^2)."""
    n = 12
    mesh = tube_mesh(0.5, 0.1, 0.08, n_axial=2, n_around=n)
    M, _ = solid_matrices(mesh, STEEL)
    translation = np.zeros(M.shape[0])
    translation[1::3] = 1.0
    area = n / 2 * np.sin(2 * np.pi / n) * (0.05**2 - 0.04**2)
    assert translation @ M @ translation == pytest.approx(STEEL.density * 0.5 * area, rel=1e-12)
    assert len(mesh.points) == 3 * n * 2  # the seam is merged: 3 axial x 2 radial x n around


@pytest.mark.parametrize("suffix", [".vtu", ".msh", ".inp"])
def test_mesh_file_round_trip_gives_same_modes(tmp_path, suffix):
    """A generated mesh written by meshio (VTK, Gmsh, Abaqus) and read back gives the same free-free
    frequencies (same nodes, same order; 1e-8 relative: the files store coordinates to ~1e-16)."""
    mesh = box_mesh((1.0, 0.1, 0.1), (6, 1, 1), "hex8")
    path = tmp_path / f"bar{suffix}"
    file_format = {".vtu": "vtu", ".msh": "gmsh22", ".inp": "abaqus"}[suffix]
    meshio.write(path, meshio.Mesh(mesh.points, [("hexahedron", mesh.cells)]), file_format=file_format)
    direct = mb.FlexibleBody.from_mesh("direct", mesh, STEEL, n_modes=3)
    from_file = mb.FlexibleBody.from_mesh("file", str(path), STEEL, n_modes=3)
    np.testing.assert_allclose(from_file.frequencies, direct.frequencies, rtol=1e-8)
    assert read_mesh(path).element == "hex8"


def test_quadratic_file_nodes_map_to_element_nodes(tmp_path):
    """A tetra10 file (corners and mid-side nodes in the file's order) gives the same frequencies as
    the generated tet10 mesh: mid-side nodes are matched to scikit-fem's edge nodes by position."""
    mesh = box_mesh((1.0, 0.1, 0.1), (4, 1, 1), "tet10")
    edges = [(0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3)]  # VTK tetra10 mid-side order
    from scipy.spatial import cKDTree

    tree = cKDTree(mesh.points)
    midpoints = [(mesh.points[mesh.cells[:, a]] + mesh.points[mesh.cells[:, b]]) / 2 for a, b in edges]
    midside = np.column_stack([tree.query(m)[1] for m in midpoints])
    order = np.random.default_rng(0).permutation(len(mesh.points))  # a file numbers nodes its own way
    new_index = np.argsort(order)
    cells = new_index[np.hstack([mesh.cells, midside])]
    path = tmp_path / "bar.vtu"
    meshio.write(path, meshio.Mesh(mesh.points[order], [("tetra10", cells)]))
    direct = mb.FlexibleBody.from_mesh("direct", mesh, STEEL, n_modes=3)
    from_file = mb.FlexibleBody.from_mesh("file", path, STEEL, n_modes=3)
    np.testing.assert_allclose(from_file.frequencies, direct.frequencies, rtol=1e-8)
    np.testing.assert_allclose(from_file.node_positions, mesh.points[order])


def test_unreadable_mesh_file_is_a_model_error(tmp_path):
    path = tmp_path / "nothing.msh"
    path.write_text("not a mesh")
    with pytest.raises(mb.ModelError, match="nothing.msh"):
        mb.FlexibleBody.from_mesh("part", path, STEEL, n_modes=2)


def test_solid_spin_stiffening_southwell_coefficient():
    """A slender solid cantilever (tet10, L/h = 100) held at its root face and spun about z: the modal
    geometric stiffness of the centrifugal stress gives the Southwell coefficient 1.1933 of the first
    bending modes (Wright et al., J. Appl. Mech. 49 (1982) 197), from above as the mesh is refined:
    measured 1.202 then 1.198 with 10 and 20 elements; tolerance 0.6 % at 20, decreasing error."""
    errors = []
    for n in (10, 20):
        mesh = box_mesh((1.0, H, H), (n, 1, 1), "tet10")
        root = np.flatnonzero(np.isclose(mesh.points[:, 0], 0.0))
        body = mb.FlexibleBody.from_mesh("blade", mesh, STEEL, n_modes=2, reference_nodes=root)
        errors.append(np.abs(np.diag(body.add_spin_stiffening((0.0, 0.0, 1.0), root)) / 1.1933 - 1).max())
    assert errors[1] < errors[0] and errors[1] < 6e-3


@pytest.mark.parametrize("element", ["hex8", "tet10"])
def test_nodal_stress_of_linear_fields_is_exact(element):
    """Uniform strain fields, used as 'modes': u = eps x e_x gives sigma_xx = (lambda + 2 mu) eps,
    sigma_yy = sigma_zz = lambda eps (Hooke's law), von Mises 2 mu eps; u = gamma y e_x gives
    sigma_xy = mu gamma, von Mises sqrt(3) mu gamma. Constant stresses lie in the projection space,
    so the nodal values are exact to round-off (1e-9 relative)."""
    from multibody.fem.solids import nodal_stress_modes, von_mises

    mesh = box_mesh((0.3, 0.2, 0.1), (2, 2, 1), element)
    x, y = mesh.points[:, 0], mesh.points[:, 1]
    fields = np.zeros((len(mesh.points), 3, 2))
    fields[:, 0, 0] = 1e-3 * x
    fields[:, 0, 1] = 2e-3 * y
    stress = nodal_stress_modes(mesh, STEEL, fields.reshape(-1, 2))
    lam, mu = STEEL.lame_parameters()
    expected_axial = np.array([lam + 2 * mu, lam, lam, 0.0, 0.0, 0.0]) * 1e-3
    expected_shear = np.array([0.0, 0.0, 0.0, 0.0, 0.0, mu]) * 2e-3
    np.testing.assert_allclose(stress[:, :, 0], np.tile(expected_axial, (len(x), 1)), atol=1e-9 * mu * 1e-3)
    np.testing.assert_allclose(stress[:, :, 1], np.tile(expected_shear, (len(x), 1)), atol=1e-9 * mu * 1e-3)
    np.testing.assert_allclose(von_mises(stress[:, :, 0]), 2 * mu * 1e-3, rtol=1e-9)
    np.testing.assert_allclose(von_mises(stress[:, :, 1]), np.sqrt(3) * mu * 2e-3, rtol=1e-9)


def test_meshio_blocks_of_one_type_are_joined():
    """Gmsh writes one cell block per physical volume: two tetra blocks make one body (mass of both,
    1e-12); blocks of different solid types are refused."""
    mesh = box_mesh((0.2, 0.1, 0.1), (2, 1, 1), "tet4")
    half = len(mesh.cells) // 2
    split = meshio.Mesh(mesh.points, [("tetra", mesh.cells[:half]), ("tetra", mesh.cells[half:])])
    body = mb.FlexibleBody.from_mesh("joined", split, STEEL, n_modes=2)
    assert body.invariants.mass == pytest.approx(STEEL.density * 0.002, rel=1e-12)
    mixed = meshio.Mesh(mesh.points, [("tetra", mesh.cells), ("hexahedron", np.zeros((1, 8), int))])
    with pytest.raises(mb.ModelError, match="flexible body 'mixed': mesh: mixes solid cell types"):
        mb.FlexibleBody.from_mesh("mixed", mixed, STEEL, n_modes=2)
