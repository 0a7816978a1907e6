"""The index-3 Cartesian equations in the form the Newmark family of integrators (HHT,
generalized-alpha) solves at each step.

At the end of a step the positions, velocities and first-order states are affine in the new
accelerations ``a`` and state rates ``r`` (the method's update formulas, on the rotation group for
the Euler parameters):

    q = displace(q_base, d_base + c_q a),   v = v_base + c_v a,   x = x_base + c_v r,

and the equations of motion, the state equations and the position constraints are enforced
exactly there:

    M a = Q(q, v, x, lambda, t) - G(q)^T lambda,   r = F(q, v, x, lambda, t),   Phi(q, t) = 0.

Newton on ``(a, r, lambda)`` uses the iteration matrix ``[[M - c_v C - c_q K, G^T], [G, 0]]`` with
the constraint rows divided by ``c_q`` (Bottasso, Bauchau & Cardona 2007: the matrix then stays
well conditioned as ``h -> 0``, instead of its condition number growing as ``h^-4``); ``K`` and
``C`` (``CartesianFormulation.force_jacobians``) are kept across steps until a Newton failure asks
for fresh ones, and the tangent operator of the rotation update is taken as the identity
(Arnold & Brüls 2007), so the matrix is factorized once per step. When elements carry states or
read multipliers the matrix is bordered by their coupling (``multibody.formulation.iteration_matrix``).

The state vector ``y`` is laid out as ``MechanicalDAE``'s, ``(q, v, x, E, W)``, so output and
event code read either alike; the integrator sees ``(q, v, rest)`` with ``rest = (x, E, W)``: the
states ``x`` advance by the method's first-order recursion (``generalized_alpha``), the energy
``E`` taken out by non-conservative forces and the work ``W`` put in by the trapezoidal rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from multibody.formulation import constraints, dae_kernel, forces
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.dae import MechanicalDAE
from multibody.formulation.iteration_matrix import coupled_iteration_matrix
from multibody.solve.integrators.base import FloatArray, rms
from multibody.solve.integrators.generalized_alpha import StepBase
from multibody.solve.linear import Factorization, SingularMatrixError
from multibody.solve.newton import ConvergenceMonitor, Verdict, roundoff_norm


@dataclass
class AccelerationSolve:
    """Outcome of one step's Newton iteration on the accelerations, state rates and multipliers."""

    q: FloatArray
    v: FloatArray
    x: FloatArray
    """(nx,) first-order states at the step's end"""
    acceleration: FloatArray
    state_rate: FloatArray
    """(nx,) ``dx/dt`` at the step's end"""
    lam: FloatArray
    quadrature_rate: FloatArray
    """(2,) ``dE/dt`` (minus the power of non-conservative forces and motions) and ``dW/dt`` (the
    power put in) at the new state [W]"""
    converged: bool
    iterations: int
    residual: float
    """weighted norm of the last position/velocity/state increment"""
    diagnosis: str | Callable[[], str] = ""
    """for a failure: what went wrong (a function, worked out only if the integrator gives up)"""


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
        self.nq, self.nv, self.m = system.n_positions, system.n_velocities, len(formulation.rows)
        self.n_states = system.n_states
        self._jacobians: tuple | None = None
        self._diagnostics = MechanicalDAE(formulation, "I3")
        self._no_loads = (np.zeros((system.n_bodies, 6)), np.zeros(0))
        """``(element_wrench, state_rate)`` of a model without force elements"""

    # -- the state vector -----------------------------------------------------------------------
    def split(self, y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(q, v, rest)`` views of ``y``, ``rest = (x, E, W)``: the first ``n_states`` entries
        are the first-order states, the last two the energy quadratures."""
        return y[: self.nq], y[self.nq : self.nq + self.nv], y[self.nq + self.nv :]

    def join(self, q: FloatArray, v: FloatArray, rest: FloatArray) -> FloatArray:
        """``y`` from its parts."""
        return np.concatenate([q, v, rest])

    def step_limit(self, t: float, y: FloatArray) -> float:
        """``CartesianFormulation.step_limit`` at ``y``."""
        q, v, rest = self.split(y)
        return self.formulation.step_limit(q, v, t, rest[: self.n_states])

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

    def error_weights(
        self, q: FloatArray, v: FloatArray, x: FloatArray, rtol: float, atol: float
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Inverse error scales (nv,) of velocity-space position errors and of velocity errors,
        and (nx,) of state errors: ``1 / (atol + rtol |p|)`` on CM positions [m],
        ``1 / (atol + rtol)`` on rotations [rad] (a rotation vector has no size of its own; 1 rad
        is its scale), ``1 / (atol + rtol |v|)`` on velocities, ``1 / (atol + rtol |x|)`` on states."""
        scale = kinematics.position_scale(self.formulation.system, q)
        return 1.0 / (atol + rtol * scale), 1.0 / (atol + rtol * np.abs(v)), 1.0 / (atol + rtol * np.abs(x))

    def initial_algebraic(self, lam: FloatArray) -> FloatArray:
        """The algebraic variables at the start: the consistent multipliers."""
        return lam.copy()

    # -- consistent start -----------------------------------------------------------------------
    def initial_acceleration(
        self, q: FloatArray, v: FloatArray, t: float, x: FloatArray | None = None
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(dv/dt (nv,), lambda (m,), rest rate (dx/dt, dE/dt, dW/dt))`` at a consistent state
        with first-order states ``x`` (default: the system's initial ones)."""
        form = self.formulation
        state, acceleration, lam = form.solve_accelerations(form.evaluate(q, v, t, x))
        return (
            acceleration,
            lam,
            np.concatenate([state.state_rate, self.formulation.quadrature_rates(state.loads, state.nu, lam)]),
        )

    # -- one step -------------------------------------------------------------------------------
    def solve(
        self,
        t: float,
        base: StepBase,
        acceleration_guess: FloatArray,
        rate_guess: FloatArray,
        lam_guess: FloatArray,
        weights: tuple[FloatArray, FloatArray, FloatArray],
        tolerance: float,
        refresh_jacobian: bool,
    ) -> AccelerationSolve:
        """Newton on ``M a = Q - G^T lambda``, ``r = F``, ``Phi = 0`` at time ``t`` [s] with the
        unknowns added to ``base`` (module docstring). ``weights`` are the error weights of
        positions, velocities and states, against which the increments are measured."""
        form = self.formulation
        nv, nx = self.nv, self.n_states
        c_q, c_v = base.c_q, base.c_v
        a, r, lam = acceleration_guess.copy(), rate_guess.copy(), lam_guess.copy()
        q = self.displace(base.q, base.displacement + c_q * a)
        v = base.velocity + c_v * a
        x = base.states + c_v * r
        position_weights, velocity_weights, state_weights = weights
        roundoff = max(
            roundoff_norm(base.displacement, position_weights),
            roundoff_norm(v, velocity_weights),
            roundoff_norm(x, state_weights) if nx else 0.0,
        )
        iterations = 0
        system = form.system
        f, f_dot = constraints.driver_values(form.rows, t, 1)
        arguments = (form.kernel_system, form.rows.kernel_arrays, f, f_dot)
        pattern = form.assembler.pattern
        kernel_base = (base.q, base.displacement, base.velocity, base.states)
        # Modified Newton; when it still contracts but too slowly to converge in time (a first
        # iterate far from the guess, at large steps), the matrix is rebuilt where it got to.
        for rebuild in range(self.max_rebuilds + 1):
            if rebuild or refresh_jacobian or self._jacobians is None:
                self._jacobians = (
                    *form.force_jacobians(q, v, t, lam, x),
                    form.coupling_jacobians(q, v, x, t, lam),
                )
            K, C, coupling = self._jacobians
            # Rigid bodies, dense, no state coupling: the matrix and each iteration compiled, and
            # (without force elements) no evaluation in Python.
            compiled = not form.sparse and system.rigid_only and coupling is None
            evaluates = not compiled or form.has_loads
            state = form.evaluate(q, v, t, x, lam) if evaluates else None
            try:
                if compiled:
                    matrix, _ = dae_kernel.dense_iteration_matrices(q, v, *arguments, pattern, K, C, c_q, c_v, False)
                    iteration_matrix = Factorization(matrix)
                else:
                    iteration_matrix = Factorization(
                        coupled_iteration_matrix(state.mass_matrix - c_v * C - c_q * K, state.G, coupling, c_q, c_v)
                    )
            except SingularMatrixError as error:
                return self._failure(t, q, v, x, a, r, lam, iterations, np.inf, f"singular iteration matrix ({error})")
            monitor = ConvergenceMonitor(tolerance, self.max_iterations, roundoff=roundoff)
            verdict = Verdict.CONTINUE
            while verdict is Verdict.CONTINUE:
                if monitor.iterations > 0 and evaluates:
                    state = form.evaluate(q, v, t, x, lam)
                if compiled:
                    loads = (state.element_wrench, state.state_rate) if evaluates else self._no_loads
                    norm = dae_kernel.alpha_dense_iteration(
                        a,
                        r,
                        lam,
                        kernel_base,
                        c_q,
                        c_v,
                        *arguments,
                        *loads,
                        pattern,
                        *iteration_matrix.dense_factors,
                        weights,
                    )
                    if evaluates:  # the loads of the next iteration are evaluated at the new iterate
                        q, v, x = dae_kernel.alpha_positions(kernel_base, c_q, c_v, a, r)
                    verdict = monitor.update(norm)
                    continue
                residual = state.mass_matrix @ a - state.generalized_force + state.G.T @ lam
                solution = iteration_matrix.solve(np.concatenate([-residual, state.state_rate - r, -state.phi / c_q]))
                da, dr, dlam = solution[:nv], solution[nv : nv + nx], solution[nv + nx :]
                a += da
                r += dr
                lam += dlam
                q = self.displace(base.q, base.displacement + c_q * a)
                v = base.velocity + c_v * a
                x = base.states + c_v * r
                increment = np.concatenate(
                    [c_q * da * position_weights, c_v * da * velocity_weights, c_v * dr * state_weights]
                )
                verdict = monitor.update(rms(increment))
            iterations += monitor.iterations
            if compiled and not evaluates:
                q, v, x = dae_kernel.alpha_positions(kernel_base, c_q, c_v, a, r)
            if verdict is Verdict.CONVERGED or not monitor.contracting:
                break
        if verdict is not Verdict.CONVERGED:
            return self._failure(t, q, v, x, a, r, lam, iterations, monitor.norm, "")
        if evaluates:
            state = form.evaluate(q, v, t, x, lam)
            state_rate, loads, nu = state.state_rate, state.loads, state.nu
        else:
            state_rate, loads = self._no_loads[1], forces.NO_LOADS
            # only motions (driver rows) have a velocity right-hand side
            nu = dae_kernel.velocity_rhs(q, v, *arguments) if form.rows.driver_rows else np.zeros(self.m)
        return AccelerationSolve(
            q,
            v,
            x,
            a,
            state_rate,
            lam,
            self.formulation.quadrature_rates(loads, nu, lam),
            True,
            iterations,
            monitor.norm,
        )

    def _failure(
        self,
        t: float,
        q: FloatArray,
        v: FloatArray,
        x: FloatArray,
        a: FloatArray,
        r: FloatArray,
        lam: FloatArray,
        iterations: int,
        norm: float,
        reason: str,
    ) -> AccelerationSolve:
        def diagnosis() -> str:
            found = self._diagnostics.diagnose(q, v, t)
            return f"{reason}: {found}" if reason else found

        return AccelerationSolve(
            q,
            v,
            x,
            a,
            r,
            lam,
            np.zeros(2),
            False,
            iterations,
            norm,
            diagnosis,
        )
