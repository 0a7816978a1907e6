"""BDF on plain ODEs, through the same ``ImplicitProblem`` protocol the mechanical DAE uses.

References: closed-form solutions of linear ODEs. Tolerances follow from the requested local
tolerance: the global error of an error-per-step controller is a modest multiple of rtol
(here allowed 100x), and must shrink when rtol does.
"""

import numpy as np
import pytest

from multibody.solve.integrators.base import Correction, IntegrationError
from multibody.solve.integrators.bdf import BDF


class LinearProblem:
    """``y' = A y``: the implicit step ``y = base + c A y`` is solved exactly (one 'iteration')."""

    def __init__(self, A: np.ndarray) -> None:
        self.A = A

    def correct(self, t, predicted, base, c, z_guess, weights, tolerance, refresh_jacobian):
        y = np.linalg.solve(np.eye(len(base)) - c * self.A, base)
        return Correction(y, z_guess, True, 1, 0.0)

    def finalize(self, y):
        return y

    def step_limit(self, t, y):
        return np.inf

    def error_weights(self, y, step_size, rtol, atol):
        return 1.0 / (atol + rtol * np.abs(y))


def integrate(A, y0, t_end, rtol, outputs):
    problem = LinearProblem(A)
    integrator = BDF(problem, 0.0, y0, A @ y0, np.zeros(0), t_end, rtol, rtol)
    values = []
    k = 0
    while integrator.t < t_end:
        integrator.step()
        while k < len(outputs) and outputs[k] <= integrator.t:
            values.append(integrator.dense_output(outputs[k]))
            k += 1
    return np.array(values), integrator


def test_harmonic_oscillator_accuracy_and_dense_output():
    A = np.array([[0.0, 1.0], [-4.0, 0.0]])  # omega = 2 rad/s
    times = np.linspace(0.05, 10.0, 200)
    exact = np.column_stack([np.cos(2 * times), -2 * np.sin(2 * times)])
    errors = []
    for rtol in (1e-6, 1e-9):
        values, integrator = integrate(A, np.array([1.0, 0.0]), 10.0, rtol, times)
        error = np.abs(values - exact).max()
        errors.append(error)
        assert error < 100 * rtol * 10  # 10 s of oscillation, amplitude 2
        assert integrator.order_of_last_step >= 3  # variable order climbs on a smooth problem
    assert errors[1] < errors[0] / 100


def test_stiff_decay_takes_large_steps():
    """y' = -1e6 (y - cos t): BDF is L-stable, so steps are set by cos t, not by 1e-6 s."""
    A = np.array([[-1e6]])

    class Forced(LinearProblem):
        def correct(self, t, predicted, base, c, z_guess, weights, tolerance, refresh_jacobian):
            y = (base + c * 1e6 * np.cos(t)) / (1 + c * 1e6)
            return Correction(y, z_guess, True, 1, 0.0)

    integrator = BDF(Forced(A), 0.0, np.array([1.0]), np.array([0.0]), np.zeros(0), 5.0, 1e-6, 1e-6)
    while integrator.t < 5.0:
        integrator.step()
    assert integrator.y[0] == pytest.approx(np.cos(5.0), abs=1e-5)
    assert integrator.stats.steps < 2000


def test_failure_names_time_and_step():
    class Failing(LinearProblem):
        def correct(self, t, predicted, base, c, z_guess, weights, tolerance, refresh_jacobian):
            return Correction(predicted, z_guess, t < 0.5, 1, 1.0, "it breaks at 0.5 s")

    integrator = BDF(Failing(np.zeros((1, 1))), 0.0, np.array([1.0]), np.array([1.0]), np.zeros(0), 1.0, 1e-6, 1e-6)
    with pytest.raises(IntegrationError, match=r"t = 0\.5.*step size.*it breaks at 0\.5 s") as info:
        while integrator.t < 1.0:
            integrator.step()
    assert info.value.t >= 0.5
