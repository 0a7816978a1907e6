"""FlexibleBody's public face: markers at nodes and node sets, bad input, the formulations that take it."""

import numpy as np
import pytest

import multibody as mb
from multibody.fem.beams import beam_line
from multibody.fem.invariants import LEVI_CIVITA
from multibody.fem.solids import box_mesh
from multibody.model.flexible import _fitted_rotation

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.circle(0.03)


@pytest.fixture(scope="module")
def beam():
    return mb.FlexibleBody.from_mesh("arm", beam_line(1.0, 10, SECTION), STEEL, n_modes=3, position=(1, 2, 3))


def test_markers_at_nodes_and_node_sets(beam):
    """A node marker moves with its node's rows of the modes (beam nodes: rotations too); a node set's
    marker sits at the nodes' centroid with their mean translation."""
    tip = beam.add_marker("tip", node=10)
    np.testing.assert_allclose(tip.position, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(tip.translation_modes, beam.modes[60:63])
    np.testing.assert_array_equal(tip.rotation_modes, beam.modes[63:66])
    solid = mb.FlexibleBody.from_mesh("block", box_mesh((0.4, 0.1, 0.1), (4, 1, 1)), STEEL, n_modes=2)
    end_face = np.flatnonzero(np.isclose(solid.node_positions[:, 0], 0.4))
    face = solid.add_marker("face", node=end_face.tolist())
    np.testing.assert_allclose(face.position, [0.4, 0.05, 0.05])
    rows = solid.modes.reshape(-1, 3, 2)[end_face]
    np.testing.assert_allclose(face.translation_modes, rows.mean(axis=0))
    corner = solid.add_marker("corner", node=0)
    assert np.all(corner.rotation_modes == 0.0)  # a solid node has no rotation DOFs


def test_node_set_rotation_fit_recovers_a_rigid_rotation():
    """The least-squares rotation of a node set moved rigidly by theta x (x - c) is theta (exact)."""
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    thetas = np.array([[0.1, -0.2], [0.3, 0.0], [-0.05, 0.4]])  # two 'modes'
    displacement = np.einsum("abc,bj,kc->kaj", LEVI_CIVITA, thetas, points - points.mean(axis=0)) + 0.7
    np.testing.assert_allclose(_fitted_rotation("test", points, displacement), thetas, atol=1e-14)


def test_kane_refuses_a_flexible_body_by_name(beam):
    """The Cartesian formulation moves flexible bodies (tests/test_flexible_dynamics.py); Kane's relative
    coordinates hold rigid bodies only, and asking for them names the flexible body and the way out."""
    model = mb.Model("crane")
    model.add(beam)
    assert model.compile().n_velocities == 6 + beam.modes.shape[1]
    with pytest.raises(ValueError, match=r"flexible bodies \(arm\).*formulation='cartesian'"):
        mb.dynamics(model, 0.01, 0.01, formulation="kane")


def test_bad_input_names_the_body_and_the_fix():
    M = np.eye(6)
    K = np.diag([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    points = np.zeros((2, 3))
    with pytest.raises(mb.ModelError, match="flexible body 'p'.*n_modes must be a positive integer"):
        mb.FlexibleBody.from_matrices("p", M, K, points, n_modes=0)
    asymmetric = K.copy()
    asymmetric[3, 4] = 0.5
    with pytest.raises(mb.ModelError, match="flexible body 'p'.*stiffness_matrix is not symmetric"):
        mb.FlexibleBody.from_matrices("p", M, asymmetric, points, n_modes=1)
    with pytest.raises(mb.ModelError, match="expected 6 x 6"):
        mb.FlexibleBody.from_matrices("p", np.eye(5), np.eye(5), points, n_modes=1)
    with pytest.raises(mb.ModelError, match="flexible body 'q': material must be a multibody Material"):
        mb.FlexibleBody.from_mesh("q", beam_line(1.0, 4, SECTION), None, n_modes=2)
    body = mb.FlexibleBody.from_mesh("r", beam_line(1.0, 4, SECTION), STEEL, n_modes=2)
    with pytest.raises(
        mb.ModelError, match="flexible body 'r': marker 'm' node index 5 is out of range; the body has 5"
    ):
        body.add_marker("m", node=5)
    with pytest.raises(mb.ModelError, match="flexible body 's': method 'craig_bampton' needs interface"):
        mb.FlexibleBody.from_mesh("s", beam_line(1.0, 4, SECTION), STEEL, n_modes=2, method="craig_bampton")
    with pytest.raises(mb.ModelError, match="flexible body 't': holding the interface nodes leaves the body free"):
        mb.FlexibleBody.from_mesh("t", box_mesh((1, 0.1, 0.1), (2, 1, 1)), STEEL, n_modes=2, interface=[0])
    with pytest.raises(mb.ModelError, match="flexible body 'v': modal damping: damping_ratio must be one ratio"):
        mb.FlexibleBody.from_mesh("v", beam_line(1.0, 4, SECTION), STEEL, n_modes=2, damping_ratio=[0.01, 0.02, 0.03])
    with pytest.raises(mb.ModelError, match="flexible body 'w': modal damping: rayleigh must be"):
        mb.FlexibleBody.from_mesh("w", beam_line(1.0, 4, SECTION), STEEL, n_modes=2, rayleigh=0.1)
    with pytest.raises(mb.ModelError, match="flexible body 'u': the model has only"):
        mb.FlexibleBody.from_mesh("u", beam_line(1.0, 1, SECTION), STEEL, n_modes=20)


def test_node_displacements_follow_the_modes(beam):
    """u_k = Phi_k q for one state and for a time series (T x m -> T x nodes x 3)."""
    q = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, -1.0]])
    u = beam.node_displacements([10, 3], q)
    assert u.shape == (2, 2, 3)
    np.testing.assert_allclose(u[1, 0], beam.modes[60:63] @ q[1])
    np.testing.assert_allclose(beam.node_displacements([3], q[0])[0], beam.modes[18:21, 0])


def test_stress_modes_of_a_solid_body(beam):
    """The body's stress modes are the FE stress recovery of its modes (values checked against Hooke's law
    in test_nodal_stress_of_linear_fields_is_exact): here their layout (N, 6, m), and a beam's refusal."""
    solid = mb.FlexibleBody.from_mesh("block", box_mesh((0.4, 0.1, 0.1), (4, 1, 1)), STEEL, n_modes=2)
    assert solid.stress_modes.shape == (len(solid.node_positions), 6, 2)
    assert np.all(np.isfinite(solid.stress_modes)) and np.abs(solid.stress_modes).max() > 0
    with pytest.raises(mb.ModelError, match="flexible body 'arm': stress modes are computed for solid meshes"):
        beam.stress_modes  # noqa: B018


def test_method_free_ignores_the_interface():
    """method="free" with interface nodes keeps the free-free modes (the interface only matters to
    Craig-Bampton): the same frequencies as without an interface, exactly."""
    mesh = beam_line(1.0, 6, SECTION)
    free = mb.FlexibleBody.from_mesh("a", mesh, STEEL, n_modes=3)
    with_interface = mb.FlexibleBody.from_mesh("b", mesh, STEEL, n_modes=3, interface=[0, 6], method="free")
    np.testing.assert_array_equal(with_interface.frequencies, free.frequencies)
    assert with_interface.modes.shape[1] == 3
