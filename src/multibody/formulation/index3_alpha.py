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
for fresh ones (or, after a failure with kept factors, ``dae.StaleJacobians`` blames them: flexible
manipulator, 231 -> 58 failures in 722 steps, 251 -> 265 evaluations of ``K``), and the tangent
operator of the rotation update is taken as the identity (Arnold & Brüls 2007). When elements carry states or read multipliers the matrix is bordered by
their coupling (``multibody.formulation.iteration_matrix``).

Rigid bodies with dense matrices and no state coupling take BDF's compiled path
(``multibody.formulation.dae_kernel``): the matrix from one compiled call, each iteration compiled
(``alpha_iteration``), and without force elements the whole Newton loop one call (``newton_loop``,
shared with BDF). There the factors are kept across steps (modified Newton, as ADAMS and Exudyn
do, under BDF's rules: ``dae.REUSE_STEP_CHANGE``, ``REUSE_SLOW_ITERATIONS``, ``RENEWING_SIZE``)
while ``c_v`` (the step) changes little; should Newton fail with them it is retried at once with
fresh ones. Reuse works because Newton starts from the accelerations and multipliers extrapolated
from the last step (``generalized_alpha._step_start``), as BDF's starts from its predictor (free
slider-crank, HHT at rtol 2e-7: 1900 factorizations in 5500 steps, 2.5 iterations a step).

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
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.dae import (
    RENEWING_SIZE,
    REUSE_SLOW_ITERATIONS,
    REUSE_STEP_CHANGE,
    MechanicalDAE,
    StaleJacobians,
)
from multibody.formulation.iteration_matrix import coupled_iteration_matrix
from multibody.solve.integrators.base import FloatArray, rms
from multibody.solve.integrators.generalized_alpha import StepBase
from multibody.solve.linear import Factorization, SingularMatrixError
from multibody.solve.newton import (
    CONVERGED,
    ROUNDOFF_FRACTION,
    STAGNATION_RATE,
    ConvergenceMonitor,
    Verdict,
    roundoff_norm,
)


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
    factorizations: int = 0
    """iteration matrices factorized for the step (0: all its iterations reused an earlier step's)"""
    evaluated_jacobians: bool = False
    """whether ``K``, ``C`` were evaluated afresh for the step unasked (a rebuild, or old ones blamed)"""


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
        self._no_power = formulation.quadrature_rates(forces.NO_LOADS, np.zeros(self.m), np.zeros(self.m))
        """the quadrature rates of a model without force elements or motions"""
        self._stale = StaleJacobians()
        """whether the next failure with kept factors is blamed on ``K``, ``C``"""
        self._kept_factors: tuple[float, Factorization] | None = None
        """``(c_v, factors)`` of the latest fresh iteration matrix of the compiled paths, for
        modified Newton on the next steps (``solve``)"""

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
        if not self.formulation.limits_steps:
            return np.inf
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
        nx = self.n_states
        c_q, c_v = base.c_q, base.c_v
        guess = (acceleration_guess, rate_guess, lam_guess)
        a, r, lam = (part.copy() for part in guess)
        q, v, x = self._positions(base, a, r)
        position_weights, velocity_weights, state_weights = weights
        roundoff = max(
            roundoff_norm(base.displacement, position_weights),
            roundoff_norm(v, velocity_weights),
            roundoff_norm(x, state_weights) if nx else 0.0,
        )
        system = form.system
        f, f_dot = constraints.driver_values(form.rows, t, 1)
        arguments = (form.kernel_system, form.rows.kernel_arrays, f, f_dot)
        if refresh_jacobian or self._jacobians is None:
            self._jacobians = (*form.force_jacobians(q, v, t, lam, x), form.coupling_jacobians(q, v, x, t, lam))
        # Rigid bodies, dense, no state coupling: the matrix and each iteration compiled, and
        # (without force elements) the whole Newton loop one compiled call.
        compiled = not form.sparse and system.rigid_only and self._jacobians[2] is None
        evaluates = not compiled or form.has_loads
        kept = self._kept_factors if compiled and not refresh_jacobian else None
        reuse = int(kept is not None and abs(c_v / kept[0] - 1.0) <= REUSE_STEP_CHANGE)
        convergence = (tolerance, self.max_iterations, ROUNDOFF_FRACTION, roundoff)
        iterations, factorizations = 0, 0
        # Modified Newton: first with the factors of an earlier step (when kept and ``h`` changed
        # little), then with fresh ones; when it still contracts but too slowly to converge in
        # time (a first iterate far from the guess, at large steps), the matrix is rebuilt where
        # it got to.
        evaluated = False  # K, C evaluated unasked (a rebuild, or old ones blamed: ``dae.StaleJacobians``)
        for attempt in range(reuse + self.max_rebuilds + 1):
            state = None  # the evaluation at the iterate, when made
            stale = False  # fresh factors with old K, C
            if attempt < reuse:
                iteration_matrix = kept[1]
            else:
                blamed = attempt == reuse > 0 and self._stale.blames_jacobians()
                stale = attempt == reuse and not refresh_jacobian and not blamed
                if attempt > reuse or blamed:
                    self._jacobians = (
                        *form.force_jacobians(q, v, t, lam, x),
                        form.coupling_jacobians(q, v, x, t, lam),
                    )
                    evaluated = True
                state = form.evaluate(q, v, t, x, lam) if evaluates else None
                try:
                    iteration_matrix = self._factorize(q, v, state, c_q, c_v, arguments, compiled)
                except SingularMatrixError as error:
                    reason = f"singular iteration matrix ({error})"
                    return self._failure(t, q, v, x, a, r, lam, iterations, np.inf, reason, factorizations)
                factorizations += 1
                if compiled:
                    self._kept_factors = (c_v, iteration_matrix)
            converged, count, norm, contracting = self._newton(
                t, base, a, r, lam, (q, v, x), weights, arguments, iteration_matrix, compiled, convergence, state
            )
            iterations += count
            if stale:
                self._stale.record(converged)
            if converged:
                break
            if attempt < reuse and not contracting:  # start afresh from the guess
                a, r, lam = (part.copy() for part in guess)
                q, v, x = self._positions(base, a, r)
            elif attempt >= reuse and not contracting:
                break
        if not converged:
            return self._failure(t, q, v, x, a, r, lam, iterations, norm, "", factorizations, evaluated)
        if reuse and not factorizations and count >= REUSE_SLOW_ITERATIONS and self.nv + self.m < RENEWING_SIZE:
            self._kept_factors = None  # converging slowly: the next step factorizes afresh
        if evaluates:
            state = form.evaluate(q, v, t, x, lam)
            state_rate, quadrature_rate = state.state_rate, form.quadrature_rates(state.loads, state.nu, lam)
        elif form.rows.driver_rows:  # only motions (driver rows) have a velocity right-hand side
            nu = dae_kernel.velocity_rhs(q, v, *arguments)
            state_rate, quadrature_rate = self._no_loads[1], form.quadrature_rates(forces.NO_LOADS, nu, lam)
        else:
            state_rate, quadrature_rate = self._no_loads[1], self._no_power
        return AccelerationSolve(
            q,
            v,
            x,
            a,
            state_rate,
            lam,
            quadrature_rate,
            True,
            iterations,
            norm,
            factorizations=factorizations,
            evaluated_jacobians=evaluated,
        )

    def _positions(self, base: StepBase, a: FloatArray, r: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(q, v, x)`` at the unknowns ``a``, ``r`` of the step from ``base``."""
        if self.formulation.system.rigid_only:
            kernel_base = (base.q, base.displacement, base.velocity, base.states)
            return dae_kernel.alpha_positions(kernel_base, base.c_q, base.c_v, a, r)
        q = self.displace(base.q, base.displacement + base.c_q * a)
        return q, base.velocity + base.c_v * a, base.states + base.c_v * r

    def _factorize(
        self,
        q: FloatArray,
        v: FloatArray,
        state: Evaluation | None,
        c_q: float,
        c_v: float,
        arguments: tuple,
        compiled: bool,
    ) -> Factorization:
        """The factors of the iteration matrix at ``(q, v)``, where the evaluation is ``state`` (None
        on the compiled path, whose matrix comes from one compiled call); raises ``SingularMatrixError``."""
        K, C, coupling = self._jacobians
        if compiled:
            matrix, _ = dae_kernel.dense_iteration_matrices(
                q, v, *arguments, self.formulation.assembler.pattern, K, C, c_q, c_v, False
            )
            return Factorization(matrix)
        return Factorization(
            coupled_iteration_matrix(state.mass_matrix - c_v * C - c_q * K, state.G, coupling, c_q, c_v)
        )

    def _newton(
        self,
        t: float,
        base: StepBase,
        a: FloatArray,
        r: FloatArray,
        lam: FloatArray,
        iterate: tuple[FloatArray, FloatArray, FloatArray],
        weights: tuple[FloatArray, FloatArray, FloatArray],
        arguments: tuple,
        iteration_matrix: Factorization,
        compiled: bool,
        convergence: tuple,
        state: Evaluation | None,
    ) -> tuple[bool, int, float, bool]:
        """Newton's iteration from ``(a, r, lam)`` and their ``iterate = (q, v, x)``, all updated in place
        (``state`` the evaluation there, None when not made): ``(converged, iterations, last
        increment norm, whether the increments still shrank clearly (``ConvergenceMonitor.contracting``:
        at a rate below ``STAGNATION_RATE``))``. ``compiled`` (rigid bodies, dense, no state coupling):
        each iteration compiled (``dae_kernel.alpha_iteration``), the loads evaluated in Python at each
        iterate, or without force elements the whole loop one compiled call (``dae_kernel.newton_loop``);
        otherwise in NumPy on the evaluation at each iterate."""
        kernel_base = (base.q, base.displacement, base.velocity, base.states)
        pattern = self.formulation.assembler.pattern
        q, v, x = iterate
        if compiled and not self.formulation.has_loads:
            step = ((a, r, lam), iterate, kernel_base, base.c_q, base.c_v)
            verdict, iterations, norm, previous, _ = dae_kernel.newton_loop(
                (*step, *arguments, *self._no_loads, pattern, iteration_matrix.kernel_factors, weights),
                convergence,
            )
            return verdict == CONVERGED, iterations, norm, 0.0 < norm < STAGNATION_RATE * previous
        form = self.formulation
        nv, nx = self.nv, self.n_states
        c_q, c_v = base.c_q, base.c_v
        position_weights, velocity_weights, state_weights = weights
        tolerance, max_iterations, _, roundoff = convergence
        monitor = ConvergenceMonitor(tolerance, max_iterations, roundoff=roundoff)
        verdict = Verdict.CONTINUE
        while verdict is Verdict.CONTINUE:
            if state is None or monitor.iterations:
                state = form.evaluate(q, v, t, x, lam)
            if compiled:
                norm, _ = dae_kernel.alpha_iteration(
                    (a, r, lam),
                    iterate,
                    kernel_base,
                    c_q,
                    c_v,
                    *arguments,
                    state.element_wrench,
                    state.state_rate,
                    pattern,
                    iteration_matrix.kernel_factors,
                    weights,
                )
                verdict = monitor.update(norm)
                continue
            residual = state.mass_matrix @ a - state.generalized_force + state.G.T @ lam
            solution = iteration_matrix.solve(np.concatenate([-residual, state.state_rate - r, -state.phi / c_q]))
            da, dr, dlam = solution[:nv], solution[nv : nv + nx], solution[nv + nx :]
            a += da
            r += dr
            lam += dlam
            q[:], v[:], x[:] = self._positions(base, a, r)
            increment = np.concatenate(
                [c_q * da * position_weights, c_v * da * velocity_weights, c_v * dr * state_weights]
            )
            verdict = monitor.update(rms(increment))
        return verdict is Verdict.CONVERGED, monitor.iterations, monitor.norm, monitor.contracting

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
        factorizations: int,
        evaluated_jacobians: bool = False,
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
            factorizations,
            evaluated_jacobians,
        )
