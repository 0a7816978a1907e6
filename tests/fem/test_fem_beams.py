"""3D frame elements against closed forms: Euler-Bernoulli frequencies, Timoshenko deflection, Southwell."""

import numpy as np
import pytest

import multibody as mb
from multibody.fem.beams import beam_line, beam_matrices
from multibody.fem.reduction import lowest_modes, node_dofs
from multibody.fem.stiffening import spin_stiffening

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.rectangle(0.02, 0.01)  # b along y, h along z: Iz = h b^3/12 > Iy = b h^3/12
CANTILEVER_BETA_L = np.array([1.8751040687, 4.6940911330, 7.8547574382])
"""Roots of cos(bL) cosh(bL) = -1 (clamped-free Euler-Bernoulli beam; Blevins, Formulas for Natural
Frequency and Mode Shape, Table 8-1)."""
FREE_BETA_L = np.array([4.7300407449, 7.8532046241, 10.9956078380])
"""Roots of cos(bL) cosh(bL) = 1 (free-free beam, same table)."""


def euler_bernoulli(beta_l: np.ndarray, EI: float, length: float = 1.0) -> np.ndarray:
    """f = (beta L)^2 / (2 pi L^2) sqrt(E I / (rho A)) [Hz]."""
    return beta_l**2 / (2 * np.pi * length**2) * np.sqrt(EI / (STEEL.density * SECTION.area))


def clamped_modes(n_elements: int, count: int, kind: str = "euler_bernoulli", direction=(1.0, 0.0, 0.0)):
    mesh = beam_line(1.0, n_elements, SECTION, direction=direction, kind=kind)
    M, K = beam_matrices(mesh, STEEL)
    free = np.arange(6, M.shape[0])
    omega2, _ = lowest_modes(M[free][:, free], K[free][:, free], count, "test")
    return np.sqrt(omega2) / (2 * np.pi)


def test_cantilever_frequencies_converge_to_euler_bernoulli():
    """Clamped-free beam, both bending planes (E Iy and E Iz), beam along a skew axis so the element
    rotation is exercised. Cubic Hermite elements converge as h^4 in frequency: 4 elements give
    ~1e-3 on the third bending mode, 16 elements ~1e-5; the tolerance is that order with margin."""
    lowest_y = euler_bernoulli(CANTILEVER_BETA_L, STEEL.E * SECTION.Iy)
    lowest_z = euler_bernoulli(CANTILEVER_BETA_L, STEEL.E * SECTION.Iz)
    expected = np.sort(np.concatenate([lowest_y, lowest_z]))[:4]
    errors = []
    for n in (4, 16):
        f = clamped_modes(n, 4, direction=(1.0, 2.0, 0.0))
        errors.append(np.abs(f / expected - 1))
    assert np.all(errors[1] < 2e-5)
    assert np.all(errors[1] < errors[0] / 50)  # h^4: 4x finer -> ~256x smaller


def test_free_free_beam_via_flexible_body():
    """Free-free Euler-Bernoulli frequencies (beta L = 4.730, 7.853, 10.996) from FlexibleBody with
    rigid modes dropped; in-plane (Iy) modes are the lowest of each pair. 30 elements: the h^4 error is
    2e-7 on the first mode and 1.2e-5 on the fourth; tolerance 3e-5."""
    body = mb.FlexibleBody.from_mesh("beam", beam_line(1.0, 30, SECTION), STEEL, n_modes=6, method="free")
    lowest_y = euler_bernoulli(FREE_BETA_L, STEEL.E * SECTION.Iy)
    lowest_z = euler_bernoulli(FREE_BETA_L[:2], STEEL.E * SECTION.Iz)
    bending = np.sort(np.concatenate([lowest_y, lowest_z]))[:4]
    np.testing.assert_allclose(body.frequencies[:4], bending, rtol=3e-5)


def test_timoshenko_tip_deflection_is_nodally_exact():
    """Timoshenko cantilever under a tip load: delta = P L^3/(3 E I) + P L/(k G A) (shear term added to
    Euler-Bernoulli). The Przemieniecki element is exact at nodes for point loads, so 1e-10 (round-off);
    a stubby beam (L = 0.1 m, h = 0.02 m) makes the shear term ~5 % of the total."""
    section = mb.Section.rectangle(0.02, 0.02)
    for kind, shear in (("timoshenko", 1.0), ("euler_bernoulli", 0.0)):
        mesh = beam_line(0.1, 3, section, kind=kind)
        _, K = beam_matrices(mesh, STEEL)
        free = np.arange(6, K.shape[0])
        load = np.zeros(K.shape[0])
        load[-4] = 100.0  # tip force along z [N]
        u = np.zeros(K.shape[0])
        u[free] = np.linalg.solve(K.toarray()[np.ix_(free, free)], load[free])
        expected = 100.0 * 0.1**3 / (3 * STEEL.E * section.Iy) + shear * 100.0 * 0.1 / (
            section.shear_coefficient * STEEL.G * section.area
        )
        assert u[-4] == pytest.approx(expected, rel=1e-10)


def test_slender_timoshenko_tends_to_euler_bernoulli():
    """For L/h = 100 the shear correction of the first frequency is O((h/L)^2) ~ 1e-4 (Timoshenko)."""
    eb, timoshenko = clamped_modes(20, 2), clamped_modes(20, 2, kind="timoshenko")
    assert np.all(timoshenko < eb)
    np.testing.assert_allclose(timoshenko, eb, rtol=5e-4)


def test_spin_stiffening_southwell_coefficient():
    """Rotating cantilever (hub radius 0) spun about z: the first bending mode gains K1 Omega^2 with
    the Southwell coefficient K1 = 1.1933 (Wright, Smith, Thresher, Wang, J. Appl. Mech. 49 (1982)
    197). phi_1^T K_G phi_1 is that first-order slope; 40 elements give it to 2e-4 (tolerance 1e-3)."""
    mesh = beam_line(1.0, 40, SECTION)
    M, K = beam_matrices(mesh, STEEL)
    free = np.setdiff1d(np.arange(M.shape[0]), node_dofs(np.array([0]), 6))
    _, phi = lowest_modes(M[free][:, free], K[free][:, free], 2, "test")
    modes = np.zeros((M.shape[0], 2))
    modes[free] = phi
    KG = spin_stiffening(mesh, STEEL, M, K, modes, (0.0, 0.0, 1.0), [0], "test")
    np.testing.assert_allclose(np.diag(KG), 1.1933, rtol=1e-3)
    body = mb.FlexibleBody.from_mesh("blade", mesh, STEEL, 2, reference_nodes=[0])
    np.testing.assert_allclose(np.diag(body.add_spin_stiffening((0, 0, 1), [0])), 1.1933, rtol=1e-3)


def test_sections_closed_forms():
    """Section formulas: circle A = pi d^2/4, I = pi d^4/64, J = 2 I; tube the difference; rectangle b h^3/12."""
    circle = mb.Section.circle(0.1)
    assert circle.area == pytest.approx(np.pi * 0.01 / 4)
    assert circle.Iy == circle.Iz == pytest.approx(np.pi * 1e-4 / 64)
    assert circle.J == pytest.approx(2 * circle.Iy)
    tube = mb.Section.tube(0.1, 0.08)
    assert tube.Iy == pytest.approx(np.pi * (0.1**4 - 0.08**4) / 64)
    rectangle = mb.Section.rectangle(0.02, 0.01)
    assert rectangle.Iy == pytest.approx(0.02 * 0.01**3 / 12) and rectangle.Iz == pytest.approx(0.01 * 0.02**3 / 12)
    # Roark's torsion constant of a square: 0.1406 a^4
    assert mb.Section.rectangle(1.0, 1.0).J == pytest.approx(0.1406, rel=2e-3)
    with pytest.raises(mb.ModelError, match="tube"):
        mb.Section.tube(0.05, 0.08)
    with pytest.raises(mb.ModelError, match="Poisson"):
        mb.Material(2e11, 0.5, 7800)
