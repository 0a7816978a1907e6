"""First-order states advanced by every integrator, and loads that read multipliers under the
alpha methods.

References:
- a block on a Maxwell element (spring k in series with a dashpot c, the dashpot's deflection a
  first-order state; ``tests/test_engine_states.maxwell_model``): the exact solution of the linear
  ODE ``(x, v, s)' = A (x, v, s)`` by the matrix exponential;
- HHT / generalized-alpha at fixed steps h and h/2: both second order in the positions and in the
  states (their first-order recursion is the velocities'), so the global error quarters;
- Kane (tree coordinates, the states appended to its ODE) under BDF and RK45 at rtol 1e-9: the
  same closed form, to the accuracy the BDF test of ``test_engine_states`` holds the Cartesian run;
- friction mu times a joint's reaction (``tests/test_engine_states.sliding_block``) under the
  alpha methods: constant deceleration mu g (closed form);
- a decoupled state ``s' = lambda s`` under the alpha methods: the method's own recurrence (its
  amplification matrix, written out from the update equations) step by step, and that matrix's
  spectral radius as ``h lambda -> -infinity``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm
from test_engine_states import maxwell_model, sliding_block
from test_generalized_alpha import alpha_integrator, run

import multibody as mb
from multibody.solve.integrators.generalized_alpha import alpha_coefficients

MASS, STIFFNESS, DAMPING, X0 = 2.0, 50.0, 4.0, 0.1
"""The Maxwell block: natural frequency 5 rad/s, relaxation time c/k = 0.08 s."""


def maxwell_exact(times: np.ndarray) -> np.ndarray:
    """(len(times), 3): block position [m], velocity [m/s] and dashpot deflection [m]."""
    A = np.array(
        [
            [0.0, 1.0, 0.0],
            [-STIFFNESS / MASS, 0.0, STIFFNESS / MASS],
            [STIFFNESS / DAMPING, 0.0, -STIFFNESS / DAMPING],
        ]
    )
    return np.array([expm(A * t) @ [X0, 0.0, 0.0] for t in times])


@pytest.mark.parametrize("variant, rho_inf", [("generalized", 0.9), ("HHT", 0.9)])
def test_alpha_methods_advance_states_to_second_order(variant: str, rho_inf: float) -> None:
    """Fixed steps of 10 ms and 5 ms over 1 s (12 and 25 steps per relaxation time): the errors of
    the block position and of the dashpot state must fall by 4 (3.4..4.6 leaves room for the
    higher-order terms at these steps; measured 4.0), and be those of a second-order method at
    10 ms (measured 1.4e-6 m and 1.7e-6 m; 1e-5 m leaves 6x, where a first-order error, h |x''| of
    about 1e-2 m, would be a thousand times larger)."""
    model = maxwell_model(MASS, STIFFNESS, DAMPING, X0)
    t_end = 1.0
    exact = maxwell_exact([t_end])[0]
    errors = []
    for step in (0.01, 0.005):
        integrator = alpha_integrator(model, t_end, step, rho_inf, variant, rtol=1e-10)
        run(integrator, t_end)
        q, _, rest = integrator.problem.split(integrator.y)
        errors.append((abs(q[0] - exact[0]), abs(rest[0] - exact[2])))
    (position_coarse, state_coarse), (position_fine, state_fine) = errors
    assert 3.4 < position_coarse / position_fine < 4.6
    assert 3.4 < state_coarse / state_fine < 4.6
    assert position_coarse < 1e-5 and state_coarse < 1e-5


@pytest.mark.parametrize("method", ["HHT", "GALPHA"])
def test_alpha_methods_follow_the_maxwell_response(method: str) -> None:
    """Error-controlled run, rtol 1e-6, 3 s: the local error per step is held near rtol, and a
    second-order method's global error then grows as rtol^(2/3) over the few hundred steps
    (measured 1.6e-6 m on the position, 4e-6 m on the state): 2e-5 m is a 5x margin."""
    results = mb.dynamics(maxwell_model(MASS, STIFFNESS, DAMPING, X0), 3.0, 0.05, method=method, rtol=1e-6)
    exact = maxwell_exact(results.time)
    assert np.max(np.abs(results.body("block").position[:, 0] - exact[:, 0])) < 2e-5
    assert np.max(np.abs(results.state("maxwell")[:, 0] - exact[:, 2])) < 2e-5
    assert np.max(np.abs(results.state("maxwell")[:, 0])) > 1e-3  # the state moved


@pytest.mark.parametrize("method", ["HHT", "GALPHA"])
def test_alpha_methods_with_friction_from_joint_multipliers(method: str) -> None:
    """The friction law reads the slide's multipliers; while the block slides the closed form
    v0 - mu g t is a polynomial of degree 1 (x of degree 2), which a second-order method
    reproduces exactly: the errors are round-off and Newton's tolerance (1e-9 of the unit scale)."""
    mu, v0, g = 0.3, 2.0, 9.81
    model, _ = sliding_block(mu, v0, smoothing=1e-4)
    results = mb.dynamics(model, 0.5, 0.05, method=method, rtol=1e-6)
    t = results.time
    assert results.body("block").velocity[:, 0] == pytest.approx(v0 - mu * g * t, abs=1e-9)
    assert results.body("block").position[:, 0] == pytest.approx(v0 * t - 0.5 * mu * g * t**2, abs=1e-9)


@pytest.mark.parametrize("method", ["BDF", "RK45"])
def test_kane_advances_states(method: str) -> None:
    """Kane's ODE with the dashpot state appended, implicit (BDF) and explicit (RK45), rtol 1e-9:
    the global error is at most a few hundred local errors of rtol |y| (|y| <= 0.5): 1e-7
    (measured 7e-9 for BDF, 9e-10 for RK45)."""
    results = mb.dynamics(
        maxwell_model(MASS, STIFFNESS, DAMPING, X0), 3.0, 0.05, method=method, rtol=1e-9, formulation="kane"
    )
    exact = maxwell_exact(results.time)
    assert np.max(np.abs(results.body("block").position[:, 0] - exact[:, 0])) < 1e-7
    assert np.max(np.abs(results.body("block").velocity[:, 0] - exact[:, 1])) < 1e-7
    assert np.max(np.abs(results.state("maxwell")[:, 0] - exact[:, 2])) < 1e-7
    assert np.max(np.abs(results.state("maxwell")[:, 0])) > 1e-3


def test_kane_refuses_loads_that_read_multipliers() -> None:
    model, _ = sliding_block(0.3, 2.0, smoothing=1e-4)
    with pytest.raises(mb.AnalysisError, match="'friction' read joint multipliers.*formulation='cartesian'"):
        mb.dynamics(model, 0.5, 0.05, formulation="kane")


def decaying_state(time_constant: float) -> mb.Model:
    """A free body (no gravity) carrying a UserForce with no load and one state ``s' = -s / tau``."""
    model = mb.Model("decay", gravity=(0.0, 0.0, 0.0))
    body = model.add(mb.RigidBody("body", 1.0, (0.1, 0.1, 0.1)))

    def law(inputs: mb.UserForceInput) -> tuple:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), [-inputs.states[0] / time_constant]

    model.add(mb.UserForce("decay", body.add_marker("m"), law, states=[1.0]))
    return model


def state_amplification(h_lambda: float, rho_inf: float, variant: str) -> np.ndarray:
    """Amplification matrix of ``s' = lambda s`` for ``(s, h w)`` from the recursion of
    ``generalized_alpha``'s docstring: ``s1 = s0 + (1 - gamma) W0 + gamma W1``,
    ``(1 - alpha_m) W1 + alpha_m W0 = h lambda ((1 - alpha_f) s1 + alpha_f s0)``."""
    alpha_m, alpha_f, gamma, _ = alpha_coefficients(rho_inf, variant)
    left = np.array([[1.0, -gamma], [-(1.0 - alpha_f) * h_lambda, 1.0 - alpha_m]])
    right = np.array([[1.0, 1.0 - gamma], [alpha_f * h_lambda, -alpha_m]])
    return np.linalg.solve(left, right)


@pytest.mark.parametrize("variant", ["generalized", "HHT"])
@pytest.mark.parametrize("h_lambda", [-2.0, -500.0])
def test_alpha_state_recursion_and_its_damping(variant: str, h_lambda: float) -> None:
    """The states follow the method's own recurrence step by step (a linear rate: Newton solves
    it to round-off, 1e-12 of the state), and a stiff state (h lambda = -500) decays as the
    amplification matrix says: its spectral radius tends to max(alpha_f / (1 - alpha_f),
    (1 - gamma) / gamma) = 0.9 (generalized-alpha at rho = 0.9) or 0.81 (HHT) as h lambda -> -inf,
    where the trapezoidal rule would keep 1 (an undamped sign flip each step)."""
    step, rho_inf = 0.01, 0.9
    integrator = alpha_integrator(decaying_state(-step / h_lambda), 0.3, step, rho_inf, variant, rtol=1e-12)
    states = [rest[0] for _, _, rest in run(integrator, 0.3, observe=lambda it: it.problem.split(it.y))]
    A = state_amplification(h_lambda, rho_inf, variant)
    expected, s = [], np.array([1.0, h_lambda])  # w_0 = F_0 = lambda s_0
    for _ in states:
        s = A @ s
        expected.append(s[0])
    assert np.array(states) == pytest.approx(expected, abs=1e-12)
    _, alpha_f, gamma, _ = alpha_coefficients(rho_inf, variant)
    limit = max(alpha_f / (1.0 - alpha_f), (1.0 - gamma) / gamma)
    assert max(abs(np.linalg.eigvals(state_amplification(-1e9, rho_inf, variant)))) == pytest.approx(limit, rel=1e-6)
    assert limit == pytest.approx(0.9 if variant == "generalized" else 0.81, abs=0.005)
