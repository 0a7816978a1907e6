"""The index-3 Cartesian equations in the form the Newmark family of integrators (HHT,
generalized-alpha) solves at each step.

At the end of a step the positions and velocities are affine in the new accelerations ``a``
(the method's update formulas, on the rotation group for the Euler parameters):

    q = displace(q_base, x_base + c_q a),   v = v_base + c_v a,

and the equations of motion and the position constraints are enforced exactly there:

    M a = Q(q, v, t) - G(q)^T lambda,   Phi(q, t) = 0.

Newton on ``(a, lambda)`` uses the iteration matrix ``[[M - c_v C - c_q K, G^T], [G, 0]]`` with
the constraint rows divided by ``c_q`` (Bottasso, Bauchau & Cardona 2007: the matrix then stays
well conditioned as ``h -> 0``, instead of its condition number growing as ``h^-4``); ``K`` and
``C`` (``CartesianFormulation.force_jacobians``) are kept across steps until a Newton failure asks
for fresh ones, and the tangent operator of the rotation update is taken as the identity
(Arnold & Brüls 2007), so the matrix is factorized once per step.

The state vector ``y`` is laid out as ``MechanicalDAE``'s, ``(q, v, x, E, W)``, so output and
event code read either alike; the alpha methods do not advance first-order states ``x`` yet (a
model with them is refused), and advance the energy ``E`` taken out by non-conservative forces
and the work ``W`` put in by the trapezoidal rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.dae import MechanicalDAE
from multibody.solve.integrators.base import FloatArray, rms
from multibody.solve.linear import Factorization, SingularMatrixError, saddle_point_matrix
from multibody.solve.newton import ConvergenceMonitor, Verdict, roundoff_norm


@dataclass
class AccelerationSolve:
    """Outcome of one step's Newton iteration on the accelerations and multipliers."""

    q: FloatArray
    v: FloatArray
    acceleration: FloatArray
    lam: FloatArray
    quadrature_rate: FloatArray
    """(2,) ``dE/dt`` (minus the power of non-conservative forces and motions) and ``dW/dt`` (the
    power put in) at the new state [W]"""
    converged: bool
    iterations: int
    residual: float
    """weighted norm of the last position/velocity increment"""
    diagnosis: str = ""


class Index3Mechanics:
    """The ``SecondOrderProblem`` (see ``multibody.solve.integrators.generalized_alpha``) of the
    Cartesian equations of motion with their position constraints (index 3)."""

    max_rebuilds = 2
    """Times per step the iteration matrix is rebuilt at the current iterate when modified Newton
    still contracts but too slowly to converge within its iterations."""

    def __init__(self, formulation: CartesianFormulation, newton_max_iterations: int = 8) -> None:
        self.formulation = formulation
        self.max_iterations = newton_max_iterations
        system = formulation.system
        if system.n_states:
            raise ValueError(
                f"model '{system.name}' has force elements with first-order states; the alpha methods do not "
                "advance them yet: use method='SI2' or 'I3'"
            )
        self.nq, self.nv, self.m = system.n_positions, system.n_velocities, len(formulation.rows)
        self._jacobians: tuple | None = None
        self._diagnostics = MechanicalDAE(formulation, "I3")

    # -- the state vector -----------------------------------------------------------------------
    def split(self, y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(q, v, (E, W))`` views of ``y`` (no first-order states: see the module docstring)."""
        return y[: self.nq], y[self.nq : self.nq + self.nv], y[self.nq + self.nv :]

    def join(self, q: FloatArray, v: FloatArray, quadratures: FloatArray) -> FloatArray:
        """``y`` from its parts."""
        return np.concatenate([q, v, quadratures])

    def finalize(self, y: FloatArray) -> FloatArray:
        """Unit Euler parameters."""
        out = y.copy()
        out[: self.nq] = kinematics.normalize_positions(self.formulation.system, y[: self.nq])
        return out

    def displace(self, q: FloatArray, dx: FloatArray) -> FloatArray:
        """Positions ``q`` moved by the velocity-space increment ``dx`` (nv,)."""
        return kinematics.displace(self.formulation.system, q, dx)

    def position_difference(self, q: FloatArray, q_ref: FloatArray) -> FloatArray:
        """Velocity-space increment (nv,) that moves ``q_ref`` to ``q``."""
        return kinematics.position_difference(self.formulation.system, q, q_ref)

    def error_weights(self, q: FloatArray, v: FloatArray, rtol: float, atol: float) -> tuple[FloatArray, FloatArray]:
        """Inverse error scales (nv,) of velocity-space position errors and of velocity errors:
        ``1 / (atol + rtol |p|)`` on CM positions [m], ``1 / (atol + rtol)`` on rotations [rad]
        (a rotation vector has no size of its own; 1 rad is its scale), ``1 / (atol + rtol |v|)``
        on velocities."""
        p, _ = kinematics.split_positions(self.formulation.system, q)
        scale = np.ones((p.shape[0], 6))
        scale[:, :3] = np.abs(p)
        return 1.0 / (atol + rtol * scale.reshape(-1)), 1.0 / (atol + rtol * np.abs(v))

    def initial_algebraic(self, lam: FloatArray) -> FloatArray:
        """The algebraic variables at the start: the consistent multipliers."""
        return lam.copy()

    # -- consistent start -----------------------------------------------------------------------
    def initial_acceleration(self, q: FloatArray, v: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(dv/dt (nv,), lambda (m,), (dE/dt, dW/dt))`` at a consistent state."""
        form = self.formulation
        state = form.evaluate(q, v, t)
        acceleration, lam = form.accelerations(state)
        return acceleration, lam, self._quadrature_rate(state, lam)

    def _quadrature_rate(self, state: Evaluation, lam: FloatArray) -> FloatArray:
        """``(dE/dt, dW/dt)`` [W] at an evaluated state with multipliers ``lam``."""
        form = self.formulation
        return np.array([-form.nonconservative_power(state, lam), form.input_power(state, lam)])

    # -- one step -------------------------------------------------------------------------------
    def solve(
        self,
        t: float,
        q_base: FloatArray,
        x_base: FloatArray,
        v_base: FloatArray,
        c_q: float,
        c_v: float,
        acceleration_guess: FloatArray,
        lam_guess: FloatArray,
        weights: tuple[FloatArray, FloatArray],
        tolerance: float,
        refresh_jacobian: bool,
    ) -> AccelerationSolve:
        """Newton on ``M a = Q - G^T lambda``, ``Phi = 0`` at time ``t`` [s] with
        ``q = displace(q_base, x_base + c_q a)``, ``v = v_base + c_v a`` (module docstring).
        ``c_q`` [s^2] and ``c_v`` [s] are the method's coefficients; ``weights`` the error weights
        of positions and velocities, against which the increments are measured."""
        form = self.formulation
        a = acceleration_guess.copy()
        lam = lam_guess.copy()
        q = self.displace(q_base, x_base + c_q * a)
        v = v_base + c_v * a
        position_weights, velocity_weights = weights
        roundoff = max(roundoff_norm(x_base, position_weights), roundoff_norm(v, velocity_weights))
        iterations = 0
        # Modified Newton; when it still contracts but too slowly to converge in time (a first
        # iterate far from the guess, at large steps), the matrix is rebuilt where it got to.
        for rebuild in range(self.max_rebuilds + 1):
            if rebuild or refresh_jacobian or self._jacobians is None:
                self._jacobians = form.force_jacobians(q, v, t, lam)
            K, C = self._jacobians
            state = form.evaluate(q, v, t)
            try:
                iteration_matrix = Factorization(saddle_point_matrix(form.mass_matrix - c_v * C - c_q * K, state.G))
            except SingularMatrixError as error:
                return self._failure(q, v, t, a, lam, iterations, np.inf, f"singular iteration matrix ({error})")
            monitor = ConvergenceMonitor(tolerance, self.max_iterations, roundoff=roundoff)
            verdict = Verdict.CONTINUE
            while verdict is Verdict.CONTINUE:
                if monitor.iterations > 0:
                    state = form.evaluate(q, v, t)
                residual = form.mass_matrix @ a - state.generalized_force + state.G.T @ lam
                solution = iteration_matrix.solve(np.concatenate([-residual, -state.phi / c_q]))
                da, dlam = solution[: self.nv], solution[self.nv :]
                a += da
                lam += dlam
                q = self.displace(q_base, x_base + c_q * a)
                v = v_base + c_v * a
                increment = np.concatenate([c_q * da * position_weights, c_v * da * velocity_weights])
                verdict = monitor.update(rms(increment))
            iterations += monitor.iterations
            if verdict is Verdict.CONVERGED or not monitor.contracting:
                break
        if verdict is not Verdict.CONVERGED:
            return self._failure(q, v, t, a, lam, iterations, monitor.norm, "")
        state = form.evaluate(q, v, t)
        return AccelerationSolve(q, v, a, lam, self._quadrature_rate(state, lam), True, iterations, monitor.norm)

    def _failure(
        self,
        q: FloatArray,
        v: FloatArray,
        t: float,
        a: FloatArray,
        lam: FloatArray,
        iterations: int,
        norm: float,
        reason: str,
    ) -> AccelerationSolve:
        diagnosis = self._diagnostics.diagnose(q, v, t)
        return AccelerationSolve(
            q, v, a, lam, np.zeros(2), False, iterations, norm, f"{reason}: {diagnosis}" if reason else diagnosis
        )
