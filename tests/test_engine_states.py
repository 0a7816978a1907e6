"""First-order states and loads that read joint multipliers: the engine's hooks for stateful
force families (friction bristles, hydraulics, controllers), checked through ``UserForce``.

References:
- a block on a Maxwell element (spring k in series with a dashpot c, the dashpot's deflection a
  first-order state): the exact solution of the linear ODE ``(x, v, s)' = A (x, v, s)`` by the
  matrix exponential;
- a block sliding on a translational joint whose friction force is mu times the joint's
  reaction (its multipliers): constant deceleration mu g, so v = v0 - mu g t and
  x = v0 t - mu g t^2 / 2 (closed form), and the Newton coupling dQ/dlambda against its
  analytic value.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

import multibody as mb
from multibody.formulation.cartesian import CartesianFormulation

RTOL = 1e-9
"""Integrator tolerance: errors of about 1e-7 after the few hundred steps of these runs."""


def maxwell_model(mass: float, stiffness: float, damping: float, x0: float) -> mb.Model:
    """A block on a frictionless slide along world x, tied to ground by a Maxwell element."""
    model = mb.Model("maxwell", gravity=(0.0, 0.0, 0.0))
    block = model.add(mb.RigidBody("block", mass, (0.1, 0.1, 0.1), position=(x0, 0.0, 0.0)))
    along_x = (1.0, 0.0, 0.0)
    model.add(
        mb.Translational(
            "slide", block.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x)
        )
    )
    hook = block.add_marker("hook")

    def maxwell(inputs: mb.UserForceInput) -> tuple:
        elongation = inputs.marker(hook).position[0]
        dashpot = inputs.states[0]
        spring_force = stiffness * (elongation - dashpot)
        return (-spring_force, 0.0, 0.0), (0.0, 0.0, 0.0), [spring_force / damping]

    model.add(mb.UserForce("maxwell", hook, maxwell, j_marker=model.ground.add_marker("anchor"), states=[0.0]))
    return model


def test_maxwell_element_state_matches_matrix_exponential() -> None:
    mass, stiffness, damping, x0 = 2.0, 50.0, 4.0, 0.1
    results = mb.dynamics(maxwell_model(mass, stiffness, damping, x0), 3.0, 0.05, rtol=RTOL)
    A = np.array(
        [[0.0, 1.0, 0.0], [-stiffness / mass, 0.0, stiffness / mass], [stiffness / damping, 0.0, -stiffness / damping]]
    )
    exact = np.array([expm(A * t) @ [x0, 0.0, 0.0] for t in results.time])
    position = results.body("block").position[:, 0]
    dashpot = results.state("maxwell")[:, 0]
    # Errors are a few hundred local errors of rtol (1 + |y|) each: 1e-6 is a 5x margin.
    assert np.max(np.abs(position - exact[:, 0])) < 1e-6
    assert np.max(np.abs(results.body("block").velocity[:, 0] - exact[:, 1])) < 1e-6
    assert np.max(np.abs(dashpot - exact[:, 2])) < 1e-6
    assert np.max(np.abs(dashpot)) > 1e-3  # the state did move: the comparison is not vacuous


def sliding_block(mu: float, v0: float, smoothing: float) -> tuple[mb.Model, mb.Translational]:
    """A block of 2 kg pushed along world x on a translational joint, gravity -z; friction mu
    times the joint's reaction (its multipliers' norm), regularized by tanh(v / smoothing)."""
    model = mb.Model("sliding_block")
    block = model.add(mb.RigidBody("block", 2.0, (0.1, 0.1, 0.1), velocity=(v0, 0.0, 0.0)))
    along_x = (1.0, 0.0, 0.0)
    slide = model.add(
        mb.Translational(
            "slide", block.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x)
        )
    )
    center = block.add_marker("center")

    def friction(inputs: mb.UserForceInput) -> tuple:
        normal = np.linalg.norm(inputs.multipliers(slide))
        speed = inputs.marker(center).velocity[0]
        return (-mu * normal * np.tanh(speed / smoothing), 0.0, 0.0), (0.0, 0.0, 0.0)

    model.add(mb.UserForce("friction", center, friction, joints=[slide]))
    return model, slide


def test_friction_from_joint_multipliers_decelerates_at_mu_g() -> None:
    mu, v0 = 0.3, 2.0
    model, _ = sliding_block(mu, v0, smoothing=1e-4)
    results = mb.dynamics(model, 0.5, 0.05, rtol=RTOL)
    g = 9.81
    t = results.time
    # tanh(v / 1e-4) = 1 to 1e-16 while v > 0.5 m/s: the closed form holds to integration error.
    assert results.body("block").velocity[:, 0] == pytest.approx(v0 - mu * g * t, abs=1e-7)
    assert results.body("block").position[:, 0] == pytest.approx(v0 * t - 0.5 * mu * g * t**2, abs=1e-7)
    # The slide carries the weight; the friction force acts through the UserForce, not the joint.
    assert np.linalg.norm(results.joint("slide").reaction_force[-1]) == pytest.approx(2.0 * g, rel=1e-9)
    # The recorded friction force is the law's at the multipliers solved at each output time.
    assert results.force("friction").force[1:, 0] == pytest.approx(-mu * 2.0 * g, rel=1e-9)


def test_multiplier_coupling_in_the_newton_jacobian() -> None:
    """dQ/dlambda of the friction law: -mu tanh(v/eps) lambda_r / |lambda| on the block's x force."""
    mu, smoothing = 0.3, 0.5
    model, _ = sliding_block(mu, 0.2, smoothing)
    system = model.compile()
    form = CartesianFormulation(system)
    q, v = system.q0, system.v0
    lam = np.linspace(1.0, 2.0, len(system.rows))
    coupling = form.coupling_jacobians(q, v, system.x0, 0.0, lam)
    expected = -mu * np.tanh(0.2 / smoothing) * lam / np.linalg.norm(lam)
    # Forward differences with steps 1e-7 (1 + |lambda|): truncation error below 1e-6.
    assert coupling.Q_lam[0] == pytest.approx(expected, abs=1e-6)
    assert np.max(np.abs(coupling.Q_lam[1:])) < 1e-6


def test_user_force_errors_name_the_element() -> None:
    model, _ = sliding_block(0.3, 1.0, 1e-3)
    model.forces["friction"].law = lambda inputs: ((1.0, 2.0), (0.0, 0.0, 0.0))
    with pytest.raises(mb.ModelError, match="force 'friction'"):
        mb.dynamics(model, 0.1, 0.05)


def test_inverse_dynamics_integrates_the_states_along_the_prescribed_motion() -> None:
    """The Maxwell block driven along x = A sin(w t): the dashpot deflection obeys
    s' = kappa (x - s), kappa = k / c, whose exact solution from s(0) = 0 is
    s = A kappa / (kappa^2 + w^2) (kappa sin wt - w cos wt + w exp(-kappa t)); the motion must
    push with m x'' + k (x - s). States are integrated between frames at rtol 1e-8 (scipy BDF):
    1e-7 of the amplitude is a tenfold margin over the accumulated error."""
    mass, stiffness, damping, amplitude, omega = 2.0, 50.0, 4.0, 0.1, 3.0
    model = maxwell_model(mass, stiffness, damping, 0.0)
    drive = mb.functions.Harmonic.from_angular_frequency(amplitude, omega)
    solved = mb.inverse_dynamics(model, 2.0, 0.05, drive={"slide": drive})
    t = solved.results.time
    kappa = stiffness / damping
    x = amplitude * np.sin(omega * t)
    s = (
        amplitude
        * kappa
        / (kappa**2 + omega**2)
        * (kappa * np.sin(omega * t) - omega * np.cos(omega * t) + omega * np.exp(-kappa * t))
    )
    assert np.max(np.abs(solved.results.state("maxwell")[:, 0] - s)) < 1e-7 * amplitude
    effort = np.abs(solved.effort[:, 0])
    needed = np.abs(-mass * omega**2 * x + stiffness * (x - s))
    assert np.max(np.abs(effort - needed)) < 1e-6 * np.max(needed)


def test_a_model_of_first_order_states_alone_runs() -> None:
    """No bodies, one DifferentialEquation x' = -x, x(0) = 1: x(1) = exp(-1) (closed form). The
    default rtol 1e-6 over some thirty steps: 1e-5 is a fivefold margin."""
    model = mb.Model("lag")
    model.add(mb.DifferentialEquation("lag", lambda t, x, measure: -x, initial=1.0))
    results = mb.dynamics(model, 1.0, 0.1)
    assert results.state("lag")[:, 0] == pytest.approx(np.exp(-results.time), abs=1e-5)
