"""HHT / generalized-alpha on the index-3 Cartesian equations.

References, none of them tunable:
* order: the global error at fixed steps h and h/2 against a BDF run at rtol 1e-11 (its error is
  1e-4 of the alpha method's here) — a second-order method quarters it;
* numerical damping: on a linear oscillator the method is the recurrence of Chung & Hulbert's
  amplification matrix A(h omega), written out below from the method's three update equations;
  a small-amplitude pendulum (sin theta = theta to 2e-7) must follow theta_n = e1 . A^n s_0 step
  by step, and the spectral radius of A at h omega -> infinity must be the rho_inf asked for;
* energy: an undamped double pendulum conserves energy exactly, and with rho_inf = 1 the method
  has no numerical dissipation: its energy error stays bounded (it oscillates, no drift);
* reactions: the multipliers are those of the equations at the step's end, so the joint
  reactions agree with BDF's to the accuracy of both runs.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.formulation import frames
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.index3_alpha import Index3Mechanics
from multibody.solve.integrators.generalized_alpha import GeneralizedAlpha, alpha_coefficients

GRAVITY = 9.81
LENGTH, MASS, RADIUS = 1.0, 1.0, 0.01


def _rod(model: mb.Model, name: str, start: np.ndarray, angle: float) -> mb.RigidBody:
    """A uniform rod from ``start`` hanging at ``angle`` [rad] from the downward vertical (plane xy)."""
    transverse = MASS * (3.0 * RADIUS**2 + LENGTH**2) / 12.0
    axis = np.array([np.sin(angle), -np.cos(angle), 0.0])
    c, s = np.cos(angle - np.pi / 2.0), np.sin(angle - np.pi / 2.0)
    R_WB = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])  # body x along the rod
    inertia = (MASS * RADIUS**2 / 2.0, transverse, transverse)
    return model.add(mb.RigidBody(name, MASS, inertia, position=start + 0.5 * LENGTH * axis, orientation=R_WB))


def pendulum(angles: tuple[float, ...]) -> mb.Model:
    """A chain of uniform rods hinged about world z, the first at the origin, gravity -y."""
    model = mb.Model("chain", gravity=(0.0, -GRAVITY, 0.0))
    parent, joint_point = model.ground.add_marker("pivot"), np.zeros(3)
    for k, angle in enumerate(angles):
        rod = _rod(model, f"rod{k}", joint_point, angle)
        model.add(mb.Revolute(f"hinge{k}", rod.add_marker("top", (-LENGTH / 2.0, 0.0, 0.0)), parent))
        parent = rod.add_marker("bottom", (LENGTH / 2.0, 0.0, 0.0))
        joint_point = joint_point + LENGTH * np.array([np.sin(angle), -np.cos(angle), 0.0])
    return model


def alpha_integrator(model: mb.Model, t_end: float, step: float, rho_inf: float, variant: str, rtol: float):
    """The alpha method at fixed steps ``step`` [s] from the assembled state (first-order states
    included); Newton to ``rtol``."""
    system, state = assembled_state(model.compile())
    problem = Index3Mechanics(CartesianFormulation(system))
    acceleration, lam, rest_rate = problem.initial_acceleration(state.q, state.v, state.t, state.x)
    y_dot0 = problem.join(frames.position_rate(system, state.q, state.v), acceleration, rest_rate)
    return GeneralizedAlpha(
        problem,
        state.t,
        problem.join(state.q, state.v, np.concatenate([state.x, np.zeros(2)])),
        y_dot0,
        lam,
        t_end,
        rtol,
        rtol,
        first_step=step,
        rho_inf=rho_inf,
        variant=variant,
        adaptive=False,
    )


def run(integrator: GeneralizedAlpha, t_end: float, observe=None) -> list:
    values = []
    while integrator.t < t_end:
        integrator.step()
        if observe is not None:
            values.append(observe(integrator))
    return values


def rod_angle(integrator: GeneralizedAlpha, body: int = 0) -> float:
    """Angle [rad] of rod ``body`` from the downward vertical, from its Euler parameters (a pure
    z rotation; the rod's axis is body x, at -90 degrees when hanging)."""
    q, _, _ = integrator.problem.split(integrator.y)
    e = q.reshape(-1, 7)[body, 3:]
    return 2.0 * np.arctan2(e[3], e[0]) + np.pi / 2.0


@pytest.mark.parametrize("variant, rho_inf", [("generalized", 0.8), ("HHT", 0.7)])
def test_second_order_convergence_on_the_pendulum(variant, rho_inf):
    """Rod pendulum released at 60 degrees, 1 s: position and velocity errors at h = 10 ms and
    5 ms against BDF at rtol 1e-11. Ratio 4 for a second-order method; 3.4..4.6 allows the
    higher-order terms at these steps (measured 3.9-4.0)."""
    model = pendulum((np.pi / 3.0,))
    t_end = 1.0
    reference = mb.dynamics(model, t_end, t_end, method="SI2", rtol=1e-11)
    p_ref, v_ref = reference.body("rod0").position[-1], reference.body("rod0").velocity[-1]
    errors = []
    for step in (0.01, 0.005):
        integrator = alpha_integrator(model, t_end, step, rho_inf, variant, rtol=1e-10)
        run(integrator, t_end)
        q, v, _ = integrator.problem.split(integrator.y)
        errors.append((np.linalg.norm(q[:3] - p_ref), np.linalg.norm(v[:3] - v_ref)))
    (position_coarse, velocity_coarse), (position_fine, velocity_fine) = errors
    assert 3.4 < position_coarse / position_fine < 4.6
    assert 3.4 < velocity_coarse / velocity_fine < 4.6
    assert position_coarse < 1e-3  # and the error itself is that of a second-order method at 10 ms


@pytest.mark.parametrize("method", ["HHT", "GALPHA"])
def test_fixed_steps_through_dynamics_converge_at_second_order(method):
    """``dynamics(..., fixed_step=h)``: exactly t_end / h steps, no error control, and the errors of
    the pendulum above against BDF at rtol 1e-11 fall by 4 when h halves (second order; 3.4..4.6 as
    above). Refused with a message for BDF and for a non-positive step."""
    model = pendulum((np.pi / 3.0,))
    reference = mb.dynamics(model, 1.0, 1.0, method="SI2", rtol=1e-11).body("rod0").position[-1]
    errors = []
    for step in (0.01, 0.005):
        results = mb.dynamics(model, 1.0, 0.1, method=method, rtol=1e-10, fixed_step=step)
        assert results.stats["steps"] == round(1.0 / step) and results.stats["rejected_steps"] == 0
        errors.append(np.linalg.norm(results.body("rod0").position[-1] - reference))
    assert 3.4 < errors[0] / errors[1] < 4.6
    with pytest.raises(ValueError, match="fixed steps are for the alpha methods"):
        mb.dynamics(model, 1.0, 0.1, method="SI2", fixed_step=0.01)
    with pytest.raises(ValueError, match="positive"):
        mb.dynamics(model, 1.0, 0.1, method="HHT", fixed_step=-0.01)


def amplification_matrix(h_omega: float, rho_inf: float, variant: str) -> np.ndarray:
    """Chung & Hulbert's amplification matrix of ``x'' = -omega^2 x`` for (x, h x', h^2 a) (the
    scaled state keeps A a function of h omega alone), from the three update equations of
    ``generalized_alpha``'s docstring."""
    alpha_m, alpha_f, gamma, beta = alpha_coefficients(rho_inf, variant)
    w2 = h_omega**2
    left = np.array([[1.0, 0.0, -beta], [0.0, 1.0, -gamma], [(1.0 - alpha_f) * w2, 0.0, 1.0 - alpha_m]])
    right = np.array([[1.0, 1.0, 0.5 - beta], [0.0, 1.0, 1.0 - gamma], [-alpha_f * w2, 0.0, -alpha_m]])
    return np.linalg.solve(left, right)


@pytest.mark.parametrize(
    "variant, rho_inf", [("generalized", 0.5), ("generalized", 0.9), ("generalized", 1.0), ("HHT", 0.6)]
)
def test_numerical_damping_is_the_closed_form_spectral_radius(variant, rho_inf):
    """At h omega = 20 (a 'high mode') the small-amplitude pendulum follows the amplification
    matrix step by step (to 1e-5 of the amplitude; measured 1.5e-6, the pendulum being nonlinear
    at theta^2 ~ 1e-6 and Newton stopping at its tolerance),
    and the spectral radius of A at h omega = 1e10 is rho_inf (closed form; it approaches rho_inf
    as (h omega)^(-2/3) where eigenvalues coalesce, hence the huge h omega)."""
    assert max(abs(np.linalg.eigvals(amplification_matrix(1e10, rho_inf, variant)))) == pytest.approx(rho_inf, abs=1e-6)
    theta0 = 1e-3
    transverse = MASS * (3.0 * RADIUS**2 + LENGTH**2) / 12.0
    omega = np.sqrt(MASS * GRAVITY * LENGTH / 2.0 / (transverse + MASS * LENGTH**2 / 4.0))
    h_omega, steps = 20.0, 30
    step = h_omega / omega
    integrator = alpha_integrator(pendulum((theta0,)), steps * step, step, rho_inf, variant, rtol=1e-12)
    angles = np.array(run(integrator, steps * step, rod_angle))
    A = amplification_matrix(h_omega, rho_inf, variant)
    state = np.array([theta0, 0.0, -(h_omega**2) * theta0])
    expected = []
    for _ in range(steps):
        state = A @ state
        expected.append(state[0])
    np.testing.assert_allclose(angles, expected, atol=1e-5 * theta0)
    # The measured decay per step is the modulus of the dominant (complex) eigenvalue pair: for
    # x_n = C r^n cos(n phi + psi), x_n^2 - x_(n-1) x_(n+1) = C^2 sin^2(phi) r^(2n). From step 15
    # on the third, real root (modulus <= 0.81 of the pair's) contributes below 1 %.
    moduli = np.sort(np.abs(np.linalg.eigvals(A)))
    if rho_inf < 1.0:
        envelope = angles[1:-1] ** 2 - angles[:-2] * angles[2:]
        measured = (envelope[-1] / envelope[14]) ** (1.0 / (2 * (envelope.size - 1 - 14)))
        assert measured == pytest.approx(moduli[-1], rel=0.01)
        assert moduli[-1] < 1.0


def pendulum_energy(integrator: GeneralizedAlpha, form: CartesianFormulation) -> float:
    q, v, _ = integrator.problem.split(integrator.y)
    state = form.evaluate(q, v, integrator.t)
    return form.kinetic_energy(state.frames, state.motion) + form.potential_energy(state.frames, state.loads)


@pytest.mark.parametrize("periods", [30, pytest.param(1000, marks=pytest.mark.slow)])
def test_energy_of_undamped_double_pendulum_stays_bounded(periods):
    """Double pendulum of 1 m rods at 0.3 rad, fixed steps of 1/46 of its slow period (2.3 s),
    rho_inf = 0.9 (the default). Nothing dissipates, so the energy error is the method's: it
    oscillates at O((h omega)^2) with a slow numerical loss, and stays below 1e-3 of m g L
    over 1000 periods (measured: 1.5e-4 m g L over 100 periods, 5.6e-4 over 1000; BDF-SI2 at
    rtol 1e-4 drifts to 3.3e-3 m g L in 200 periods, benchmarks/alpha_energy.py)."""
    period = 2.3
    t_end = periods * period
    integrator = alpha_integrator(pendulum((0.3, 0.3)), t_end, period / 46, 0.9, "generalized", rtol=1e-6)
    form = integrator.problem.formulation
    initial = pendulum_energy(integrator, form)
    error = np.abs(np.array(run(integrator, t_end, lambda it: pendulum_energy(it, form))) - initial)
    assert error.max() < 1e-3 * MASS * GRAVITY * LENGTH


@pytest.mark.parametrize("method", ["HHT", "GALPHA"])
def test_reactions_agree_with_bdf(method):
    """Joint reactions of the double pendulum released at 60 degrees, through ``dynamics``: the
    alpha method at rtol 1e-7 against SI2 at rtol 1e-9, over 1 s. Both are accurate to about
    1e-5 of the reaction's size (tens of N), so 1e-3 relative leaves margin for the alpha
    method's global error."""
    model = pendulum((np.pi / 3.0, np.pi / 3.0))
    alpha = mb.dynamics(model, 1.0, 0.05, method=method, rtol=1e-7)
    reference = mb.dynamics(model, 1.0, 0.05, method="SI2", rtol=1e-9)
    for joint in ("hinge0", "hinge1"):
        force, expected = alpha.joint(joint).reaction_force, reference.joint(joint).reaction_force
        np.testing.assert_allclose(force, expected, atol=1e-3 * np.abs(expected).max())
