"""Modal reduction: Craig-Bampton against the full model, orthonormality, damping, eigsh vs dense."""

import numpy as np
import pytest
import scipy.linalg

import multibody as mb
from multibody.fem.beams import beam_line, beam_matrices
from multibody.fem.reduction import (
    DENSE_LIMIT,
    craig_bampton_basis,
    lowest_modes,
    modal_damping,
    node_dofs,
    rigid_body_modes,
)

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.rectangle(0.02, 0.01)


def frame():
    """An L-shaped frame of 2 x 15 beam elements: nodes 0 .. 15 along x, 15 .. 30 up along z."""
    first = beam_line(1.0, 15, SECTION)
    second = beam_line(0.8, 15, SECTION, start=(1.0, 0.0, 0.0), direction=(0.0, 0.0, 1.0))
    points = np.vstack([first.points, second.points[1:]])
    elements = np.vstack([first.elements, second.elements + 15])
    return type(first)(points, elements, SECTION, np.array([0.0, 1.0, 0.0]))


def test_craig_bampton_converges_to_the_full_model_held_at_part_of_its_interface():
    """Interface: both ends of the frame (nodes 0 and 30). Holding node 0 in the full FE model gives
    the reference frequencies; the Craig-Bampton model held at the same DOFs is a Rayleigh-Ritz
    model of it, so its frequencies lie above and fall towards the full model's as fixed-interface
    modes are added (Craig & Bampton 1968). Measured on the 4 lowest: 3e-3, 3e-4, 2e-5, 8e-7 relative
    with 2, 6, 12, 30 modes; tolerance 2e-6 at 30."""
    mesh = frame()
    M, K = beam_matrices(mesh, STEEL)
    held = node_dofs(np.array([0]), 6)
    keep = np.setdiff1d(np.arange(M.shape[0]), held)
    full, _ = lowest_modes(M[keep][:, keep], K[keep][:, keep], 4, "test")
    errors = []
    for n_modes in (2, 6, 12, 30):
        T = craig_bampton_basis(M, K, node_dofs(np.array([0, 30]), 6), n_modes, "test")
        T = T[:, np.abs(T[held]).max(axis=0) == 0.0]  # hold node 0: drop its constraint modes
        reduced = scipy.linalg.eigh(T.T @ K @ T, T.T @ M @ T, eigvals_only=True)[:4]
        assert np.all(reduced >= full * (1 - 1e-10))
        errors.append(np.max(reduced / full - 1))
    assert errors[0] > errors[1] > errors[2] > errors[3]
    assert errors[3] < 2e-6


def test_craig_bampton_held_at_whole_interface_is_the_fixed_interface_model():
    """With every interface DOF held only the fixed-interface modes remain: the reduced model gives
    exactly the full clamped-clamped model's lowest frequencies (to round-off, 1e-9)."""
    mesh = frame()
    M, K = beam_matrices(mesh, STEEL)
    boundary = node_dofs(np.array([0, 30]), 6)
    interior = np.setdiff1d(np.arange(M.shape[0]), boundary)
    full, _ = lowest_modes(M[interior][:, interior], K[interior][:, interior], 4, "test")
    T = craig_bampton_basis(M, K, boundary, 4, "test")[:, :4]
    np.testing.assert_allclose(np.diag(T.T @ K @ T), full, rtol=1e-9)


def test_orthonormal_basis_and_mean_axes():
    """The body's combined basis: Phi^T M Phi = I, Phi^T K Phi = diag(omega^2) (1e-9, round-off) and
    M-orthogonal to the six rigid-body modes (mean axes); 4 fixed-interface + 12 constraint - 6 rigid = 10."""
    mesh = frame()
    body = mb.FlexibleBody.from_mesh("frame", mesh, STEEL, n_modes=4, interface=[0, 30])
    Phi, M, K = body.modes, body.mass_matrix, body.stiffness_matrix
    assert Phi.shape[1] == 10
    np.testing.assert_allclose(Phi.T @ M @ Phi, np.eye(10), atol=1e-9)
    np.testing.assert_allclose(Phi.T @ K @ Phi, body.modal_stiffness, atol=1e-9 * body.modal_stiffness.max())
    rigid = rigid_body_modes(mesh.points, 6)
    assert np.abs(rigid.T @ M @ Phi).max() < 1e-9 * np.sqrt(body.invariants.mass)
    assert body.reference_condition == body.invariants.reference_condition == "mean_axes"


def test_eigsh_matches_dense_solution():
    """Above DENSE_LIMIT DOFs shift-invert Lanczos (eigsh) is used; it agrees with dense LAPACK eigh on
    the same free-free model to 1e-6. The dense solver is the less accurate one here (cond(M) ~ 5e6 with
    the rotational DOFs: its eigen-residual is 8e-8, eigsh's 1e-9), hence the tolerance."""
    mesh = beam_line(1.0, DENSE_LIMIT // 6 + 10, SECTION)
    M, K = beam_matrices(mesh, STEEL)
    sparse, modes = lowest_modes(M, K, 10, "test")
    dense = scipy.linalg.eigh(K.toarray(), M.toarray(), subset_by_index=(0, 9), eigvals_only=True)
    np.testing.assert_allclose(sparse[6:], dense[6:], rtol=1e-6)
    residual = np.linalg.norm(K @ modes - (M @ modes) * sparse, axis=0) / np.linalg.norm(K @ modes, axis=0)
    assert residual[6:].max() < 1e-8
    assert np.abs(sparse[:6]).max() < 1e-6 * sparse[6]
    np.testing.assert_allclose(modes.T @ M @ modes, np.eye(10), atol=1e-9)


def test_modal_damping_ratio_and_rayleigh():
    """Ratio zeta: D = diag(2 zeta omega). Rayleigh: D = Phi^T (alpha M + beta K) Phi (exact: mass-
    orthonormal modes)."""
    body = mb.FlexibleBody.from_mesh("beam", beam_line(1.0, 10, SECTION), STEEL, 3, damping_ratio=0.02)
    omega = 2 * np.pi * body.frequencies
    np.testing.assert_allclose(np.diag(body.modal_damping), 0.04 * omega)
    rayleigh = modal_damping(omega, rayleigh=(0.5, 1e-5))
    Phi = body.modes
    expected = Phi.T @ (0.5 * body.mass_matrix + 1e-5 * body.stiffness_matrix) @ Phi
    np.testing.assert_allclose(rayleigh, expected, atol=1e-9 * np.abs(expected).max())
    with pytest.raises(mb.ModelError, match="exactly one"):
        modal_damping(omega, 0.02, (0.5, 1e-5))


def test_tied_frame_holds_the_reference_node():
    """reference_nodes=[0] ties the frame to node 0: every mode is zero there and the kept modes are
    the cantilever's (beta L = 1.8751 for the lowest, Iy plane; 20 elements, 1e-6)."""
    body = mb.FlexibleBody.from_mesh("arm", beam_line(1.0, 20, SECTION), STEEL, 2, reference_nodes=[0])
    assert np.all(body.modes[:6] == 0.0)
    expected = 1.8751040687**2 / (2 * np.pi) * np.sqrt(STEEL.E * SECTION.Iy / (STEEL.density * SECTION.area))
    assert body.frequencies[0] == pytest.approx(expected, rel=1e-6)
    assert body.reference_condition == "tied" and body.invariants.reference_condition == "general"


def test_matrices_with_supports_keep_every_mode():
    """Matrices of a beam clamped at node 0 (its DOFs removed, as an FE program writes a supported
    model): no rigid mode exists, so none is dropped, although the first cantilever mode is 99 %
    rigid-like in the mass norm; the frame is tied to the supports. Frequencies: Euler-Bernoulli
    (beta L = 1.8751, Iy plane) to 1e-6 with 20 elements. A model held against translation only (a
    mechanism: free to rotate about the support) is refused."""
    mesh = beam_line(1.0, 20, SECTION)
    M, K = beam_matrices(mesh, STEEL)
    keep = np.arange(6, M.shape[0])
    body = mb.FlexibleBody.from_matrices("clamped", M[keep][:, keep], K[keep][:, keep], mesh.points[1:], 2, 6)
    expected = 1.8751040687**2 / (2 * np.pi) * np.sqrt(STEEL.E * SECTION.Iy / (STEEL.density * SECTION.area))
    assert body.frequencies[0] == pytest.approx(expected, rel=1e-6)
    assert body.reference_condition == "tied"
    pinned = K.tolil()
    for dof in range(3):
        pinned[dof, dof] += 1e6 * abs(K).max()
    with pytest.raises(mb.ModelError, match="flexible body 'pinned': the stiffness matrix resists only 3 of the 6"):
        mb.FlexibleBody.from_matrices("pinned", M, pinned.tocsr(), mesh.points, 2, 6)


def test_repeated_frequencies_get_one_basis_whatever_the_solver_returns():
    """A round tube's bending modes come in equal pairs, whose eigenvectors any rotation of the pair
    equally satisfies; the eigensolver's choice moved with the process (its start vector, summation
    order), and with it the simulation at the integrator's tolerance. ``canonical_modes`` fixes the
    basis from the modes themselves: a pair rotated and sign-flipped arbitrarily comes back the same
    to round-off (1e-12), and stays M-orthonormal."""
    from multibody.fem.reduction import canonical_modes

    rng = np.random.default_rng(5)
    omega2 = np.array([1.0, 4.0, 4.0 * (1 + 1e-9), 9.0])
    modes = np.linalg.qr(rng.normal(size=(12, 4)))[0]
    turn = np.eye(4)
    angle = 0.7
    turn[1:3, 1:3] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    flipped = modes @ turn @ np.diag([-1.0, 1.0, -1.0, -1.0])
    np.testing.assert_allclose(canonical_modes(omega2, flipped), canonical_modes(omega2, modes), atol=1e-12)
    np.testing.assert_allclose(canonical_modes(omega2, modes).T @ canonical_modes(omega2, modes), np.eye(4), atol=1e-12)
