"""Dynamic analysis in relative coordinates: Kane's equations integrated as an ODE.

The state is ``y = (q, u, x, E, W)``: the tree's joint coordinates, the generalized speeds, the
first-order states of the force elements that carry them (``State.x``), the energy ``E`` taken
out by non-conservative forces and motions and the work ``W`` put in by motions, actuators,
applied loads and user laws (quadratures outside the error test, as in the Cartesian DAE).
``dq/dt = N(q) u``, ``du/dt`` from ``KaneFormulation.accelerations`` (articulated-body
recursion on a tree, Maggi's equations solved in the range space with cut constraints), ``dx/dt`` the elements'
state rates, ``dE/dt = -P``, ``dW/dt = P_in``. Loads that read joint multipliers (``UserForce(joints=...)``) are
refused (``AnalysisError``): the tree joints have no multipliers in this formulation (their
reactions are recovered after the fact, from the accelerations), and the cut joints' are
scaled rows of an SVD, not the joints' own.

Methods: "BDF" is the package's variable-order BDF (``solve.integrators.bdf``) on this ODE,
Newton with a finite-difference Jacobian ``df/dy`` (n_y evaluations, refreshed when Newton asks)
and the iteration matrix factorized in the speeds and states only (``IterationMatrix``);
"RK45", "DOP853" and "LSODA" are scipy's, stepped by ``ExplicitIntegrator``. With cut
constraints the positions and speeds are projected back onto ``Phi = 0``, ``B u = nu``
(``KaneFormulation.project``) at every output frame, and after any step that leaves a constraint
row violated by more than the violation the error test itself admits (``KaneODE.drift_limits``:
coordinates and speeds off by ``atol + rtol |y|``, mapped through the row of ``B``), times
``EXPLICIT_DRIFT`` for scipy's solvers (which must restart after a projection: their local errors
reach the tolerance every step, and restarting at that level would keep them at their tiny
starting steps). Against a plain ``atol`` a fast loop (speeds of a few rad/s, ``rtol |u|`` above
``atol``) was projected after every step, each projection a jump the next error test saw,
until the step collapsed.

Output frames are the same as the Cartesian formulation's: the bodies' Cartesian positions,
velocities and accelerations from the tree, and the joint reactions from the Lagrange
multipliers of all joints that make those accelerations, ``G^T lambda = Q - M a`` (solved in the
least-squares sense, exact for consistent accelerations).
"""

from __future__ import annotations

import numpy as np

from multibody.analysis.errors import AnalysisError
from multibody.analysis.output import output_frame, results_layout
from multibody.analysis.time_loop import Frame, integrate_to_output
from multibody.formulation import dae_kernel
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.dae import MechanicalDAE
from multibody.formulation.kane import KaneError, KaneFormulation
from multibody.formulation.state import State
from multibody.results import Results
from multibody.solve.integrators.base import Correction, IntegrationError, rms
from multibody.solve.integrators.bdf import BDF
from multibody.solve.integrators.explicit import SOLVERS, ExplicitIntegrator
from multibody.solve.linear import Factorization, SingularMatrixError, to_dense
from multibody.solve.newton import ConvergenceMonitor, Verdict, roundoff_norm
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System

KANE_METHODS = ("BDF", *SOLVERS)
"""Methods of the Kane formulation (the first is the default)."""
QUADRATURES = 2
"""Trailing entries of ``y`` that are quadratures: dissipated energy and input work [J]."""
EXPLICIT_DRIFT = 100.0
"""Constraint violation, in units of the error test's (``KaneODE.drift_limits``), after which
scipy's solvers are projected and restarted."""


class KaneODE:
    """``dy/dt = f(t, y)`` of Kane's equations, and the ``ImplicitProblem`` BDF asks for."""

    def __init__(
        self,
        formulation: KaneFormulation,
        rtol: float,
        atol: float,
        drift_factor: float,
        newton_max_iterations: int = 5,
    ) -> None:
        self.formulation = formulation
        self.rtol, self.atol, self.drift_factor = rtol, atol, drift_factor
        self.max_iterations = newton_max_iterations
        self.n_q, self.n_u = formulation.n_q, formulation.n_u
        self.n_x = formulation.system.n_states
        self._iteration: IterationMatrix | None = None
        self._factorized: FactorizedIteration | None = None
        """``_iteration`` factorized at the last ``c``"""
        self._t = 0.0
        """time of the last implicit solve: the time ``finalize`` projects at"""

    def split(self, y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, float, float]:
        """``(q, u, x, E, W)`` of ``y``."""
        n_qu = self.n_q + self.n_u
        return y[: self.n_q], y[self.n_q : n_qu], y[n_qu : n_qu + self.n_x], float(y[-2]), float(y[-1])

    def join(self, q: FloatArray, u: FloatArray, x: FloatArray, energy: float, work: float) -> FloatArray:
        """``y`` from its parts (the inverse of ``split``)."""
        return np.concatenate([q, u, x, [energy, work]])

    def rate(self, t: float, y: FloatArray) -> FloatArray:
        """``dy/dt`` (n_q + n_u + n_x + 1,)."""
        form = self.formulation
        q, u, x = self.split(y)[:3]
        state = form.evaluate(q, u, t, x)
        u_dot, constraint_power = form.accelerations(state)
        power = state.loads.nonconservative_power + constraint_power
        input_power = state.loads.input_power + constraint_power
        return self.join(form.position_rate(q, u), u_dot, state.loads.state_rate, -power, input_power)

    # -- BDF's ImplicitProblem ---------------------------------------------------------------
    def error_weights(self, y: FloatArray, step_size: float, rtol: float, atol: float) -> FloatArray:
        """``1 / (atol + rtol |y|)`` on q, u and x; zero on the quadratures (``dae_kernel.error_weights``)."""
        return dae_kernel.error_weights(np.ascontiguousarray(y, dtype=float), rtol, atol, QUADRATURES, (0, 0), 1.0)

    def step_limit(self, t: float, y: FloatArray) -> float:
        """Inf: Kane's ODE leaves the step to the error test (a contact ahead is the Cartesian
        formulation's to watch; with Kane use ``max_step``)."""
        return np.inf

    def finalize(self, y: FloatArray) -> FloatArray:
        """Unit Euler parameters, and the projection onto the cut constraints if they drifted."""
        projected = self.project_drift(self._t, y)
        out = y.copy() if projected is None else projected
        out[: self.n_q] = self.formulation.normalize(out[: self.n_q])
        return out

    def correct(
        self,
        t: float,
        predicted: FloatArray,
        base: FloatArray,
        c: float,
        z_guess: FloatArray,
        weights: FloatArray,
        tolerance: float,
        refresh_jacobian: bool,
    ) -> Correction:
        """Newton on ``y = base + c f(t, y)`` with ``(I - c df/dy)`` (``IterationMatrix``), ``df/dy``
        by differences, factorized once per Jacobian and ``c`` (BDF keeps ``c`` for several
        steps: a 200-segment beam took one LU per step, 23 ms of its 75)."""
        self._t = t
        try:
            if refresh_jacobian or self._iteration is None:
                self._iteration = IterationMatrix(self._rate_jacobian(t, predicted), self.formulation, self.n_x)
                self._factorized = None
            if self._factorized is None or self._factorized.c != c:
                self._factorized = self._iteration.factorized(c)
            iteration = self._factorized
        except (SingularMatrixError, KaneError) as error:
            return Correction(predicted, z_guess, False, 0, np.inf, str(error))
        y = predicted.copy()
        monitor = ConvergenceMonitor(tolerance, self.max_iterations, roundoff=roundoff_norm(y, weights))
        verdict = Verdict.CONTINUE
        while verdict is Verdict.CONTINUE:
            try:
                residual = y - base - c * self.rate(t, y)
            except KaneError as error:
                return Correction(predicted, z_guess, False, monitor.iterations, np.inf, str(error))
            dy = iteration.solve(-residual)
            y += dy
            verdict = monitor.update(rms(dy * weights))
        converged = verdict is Verdict.CONVERGED
        diagnosis = "" if converged else "the Kane equations' Newton iteration diverged (stiff forces for this step?)"
        return Correction(
            y if converged else predicted, z_guess, converged, monitor.iterations, monitor.norm, diagnosis
        )

    def _rate_jacobian(self, t: float, y: FloatArray) -> FloatArray:
        """``df/dy`` (n, n) by forward differences, one rate evaluation per column."""
        f0 = self.rate(t, y)
        jacobian = np.zeros((y.size, y.size))
        for k in range(y.size - QUADRATURES):  # the quadratures enter no rate
            step = 1e-7 * max(1.0, abs(y[k]))
            y_step = y.copy()
            y_step[k] += step
            jacobian[:, k] = (self.rate(t, y_step) - f0) / step
        return jacobian

    # -- constraint stabilization ------------------------------------------------------------
    def drift_limits(self, q: FloatArray, u: FloatArray, B: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Per cut row, the position [m, rad] and velocity violations that coordinate and speed
        errors at the tolerance produce: ``sum_j |B_ij| (atol + rtol s_j)`` with ``s`` = 1 (a joint
        coordinate's scale: 1 rad, 1 m) for positions, ``|u_j|`` for speeds; times ``drift_factor``."""
        magnitude = np.abs(B)
        position = magnitude @ np.full(u.size, self.atol + self.rtol)
        velocity = magnitude @ (self.atol + self.rtol * np.abs(u))
        return self.drift_factor * position, self.drift_factor * velocity

    def project_drift(self, t: float, y: FloatArray) -> FloatArray | None:
        """``y`` projected onto the cut constraints when a row is violated by more than its
        ``drift_limits``; None when none is (or there are no cut constraints)."""
        form = self.formulation
        if not form.has_cuts:
            return None
        q, u, x, energy, work = self.split(y)
        phi, B, nu = form.cut_constraints(form.evaluate(q, u, t, x))
        position_limit, velocity_limit = self.drift_limits(q, u, B)
        if np.all(np.abs(phi) <= position_limit) and np.all(np.abs(B @ u - nu) <= velocity_limit):
            return None
        q, u = form.project(q, u, t)
        return self.join(q, u, x, energy, work)


class IterationMatrix:
    """``I - c J`` (n_y, n_y) of Kane's ODE, ``J = df/dy`` (n_y, n_y), factorized with the
    coordinates eliminated: it solves exactly as its LU would, at the cost of one LU the size of
    the speeds and states.

    The coordinate rows of ``J`` are block-diagonal (``KaneFormulation.position_rate_blocks``):
    ``dq/dt = u`` for angles and translations, ``de/dt = 1/2 L(e)^T w`` for each joint's Euler
    parameters. So ``dq = a + B du`` with ``a``, ``B`` per joint (a 4 x 4 inverse per ball or free
    joint), and the speed and state rows, with ``dq`` substituted, leave
    ``(I - c J_zz - c J_zq B) dz = r_z + c J_zq a`` in ``z = (u, x)``; the quadratures follow.
    A chain of free joints (finite segments, 7 coordinates and 6 speeds each) factorizes a matrix
    half the size. Built once per Jacobian (the parts that do not depend on ``c``); ``factorized(c)``
    per step size.
    """

    def __init__(self, jacobian: FloatArray, formulation: KaneFormulation, n_x: int) -> None:
        n_q, n_z = formulation.n_q, formulation.n_u + n_x
        plain_q, plain_u, ball_q, ball_u = formulation.position_rate_blocks
        self.jacobian, self.n_q, self.n_z = jacobian, n_q, n_z
        self.plain_q, self.plain_u, self.ball_q, self.ball_u = plain_q, plain_u, ball_q, ball_u
        self.plain_rate = jacobian[plain_q, n_q + plain_u]
        """(n_plain,) d(dq/dt)/du of the plain coordinates (1 up to the differences)"""
        self.ball_rate_of_e = jacobian[ball_q[:, :, None], ball_q[:, None, :]]
        """(k, 4, 4) d(de/dt)/de per ball joint"""
        self.ball_rate_of_w = jacobian[ball_q[:, :, None], n_q + ball_u[:, None, :]]
        """(k, 4, 3) d(de/dt)/dw per ball joint"""
        J_zq = jacobian[n_q : n_q + n_z, :n_q]
        self.J_zq_plain = J_zq[:, plain_q] * self.plain_rate
        """(n_z, n_plain) the speed and state rows' coordinate columns, times the plain rates"""
        self.J_zq_ball = np.ascontiguousarray(J_zq[:, ball_q].transpose(1, 0, 2))
        """(k, n_z, 4) the speed and state rows' Euler-parameter columns, per ball joint"""

    def factorized(self, c: float) -> FactorizedIteration:
        """``I - c J`` factorized for the coefficient ``c`` [s] (BDF's step size times its
        coefficient). Raises ``SingularMatrixError`` when the reduced matrix is singular."""
        n_q, n_z = self.n_q, self.n_z
        # dq = a + B du: per ball joint (I - c de'/de)^-1 and B = c (I - c de'/de)^-1 de'/dw.
        ball_inverse = np.linalg.inv(np.eye(4) - c * self.ball_rate_of_e)
        ball_B = c * ball_inverse @ self.ball_rate_of_w
        reduced = -c * self.jacobian[n_q : n_q + n_z, n_q : n_q + n_z]
        reduced.flat[:: n_z + 1] += 1.0
        reduced[:, self.plain_u] -= (c * c) * self.J_zq_plain
        if self.ball_q.size:
            reduced[:, self.ball_u.reshape(-1)] -= c * np.matmul(self.J_zq_ball, ball_B).transpose(1, 0, 2).reshape(
                n_z, -1
            )
        return FactorizedIteration(self, c, ball_inverse, ball_B, Factorization(reduced))


class FactorizedIteration:
    """``I - c J`` of an ``IterationMatrix`` at one ``c``: the per-joint eliminations and the LU
    of the reduced matrix."""

    def __init__(
        self, matrix: IterationMatrix, c: float, ball_inverse: FloatArray, ball_B: FloatArray, reduced: Factorization
    ) -> None:
        self.matrix, self.c = matrix, c
        self.ball_inverse, self.ball_B, self.reduced = ball_inverse, ball_B, reduced

    def solve(self, rhs: FloatArray) -> FloatArray:
        """``dy`` (n_y,) with ``(I - c J) dy = rhs``."""
        m, c = self.matrix, self.c
        n_q, n_z, J = m.n_q, m.n_z, m.jacobian
        a = rhs[:n_q].copy()
        if m.ball_q.size:
            a[m.ball_q] = np.einsum("kij,kj->ki", self.ball_inverse, rhs[m.ball_q])
        dz = self.reduced.solve(rhs[n_q : n_q + n_z] + c * (J[n_q : n_q + n_z, :n_q] @ a))
        dq = a
        dq[m.plain_q] += c * m.plain_rate * dz[m.plain_u]
        if m.ball_q.size:
            dq[m.ball_q] += np.einsum("kij,kj->ki", self.ball_B, dz[m.ball_u])
        rest = rhs[n_q + n_z :] + c * (J[n_q + n_z :, :n_q] @ dq + J[n_q + n_z :, n_q : n_q + n_z] @ dz)
        return np.concatenate([dq, dz, rest])


def kane_dynamics(
    system: System,
    state: State,
    t_end: float,
    output_step: float,
    method: str,
    rtol: float,
    atol: float,
    max_step: float,
    output: str | None,
    progress: bool,
    min_step: float = 0.0,
) -> Results:
    """Integrate Kane's equations of ``system`` from the consistent Cartesian ``state`` (see
    ``multibody.analysis.dynamics.dynamics`` for the arguments). Raises ``AnalysisError`` when a
    load reads joint multipliers (module docstring)."""
    readers = system.multiplier_readers
    if readers:
        raise AnalysisError(
            f"model '{system.name}': the force elements {', '.join(map(repr, readers))} read joint multipliers, "
            "which Kane's formulation does not have (its tree joints carry no multipliers); use formulation='cartesian'"
        )
    form = KaneFormulation(system, state.q, state.t)
    cartesian = CartesianFormulation(system)
    problem = KaneODE(form, rtol, atol, drift_factor=1.0 if method == "BDF" else EXPLICIT_DRIFT)
    q0 = form.reference_coordinates()
    y0 = problem.join(q0, form.speeds_from_cartesian(q0, state.v, state.t), state.x, 0.0, 0.0)
    if not np.all(np.isfinite(problem.rate(state.t, y0))):
        diagnosis = MechanicalDAE(cartesian, "I3").diagnose(state.q, state.v, state.t)
        raise IntegrationError(f"the accelerations are not finite at t = {state.t:.6g} s: {diagnosis}", state.t, 0.0)
    if method == "BDF":
        integrator = BDF(
            problem, state.t, y0, problem.rate(state.t, y0), np.zeros(0), t_end, rtol, atol, max_step, None, min_step
        )
        stats = integrator.stats.as_dict
    else:
        atol_per_component = np.full(y0.size, atol)
        atol_per_component[-QUADRATURES:] = np.inf  # the quadratures are outside the error test
        integrator = ExplicitIntegrator(
            method, problem.rate, state.t, y0, t_end, rtol, atol_per_component, max_step, problem.project_drift
        )
        stats = integrator.stats_dict

    # Euler parameters come back from rotation matrices with either sign; keep each body's on the
    # side of its previous output frame (and of the initial state), so the history is continuous
    # like the Cartesian formulation's.
    previous_e = rigid.euler_parameters(state.q).copy()

    def continuous(frame: Frame) -> Frame:
        e = frame["body/euler_parameters"]
        e[np.einsum("bi,bi->b", e, previous_e) < 0.0] *= -1.0
        previous_e[:] = e
        return frame

    def frame_at(t: float) -> Frame:
        q, u, x, dissipated, input_work = problem.split(integrator.dense_output(t))
        q, u = form.project(q, u, t)
        return continuous(_output_frame(form, cartesian, q, u, x, t, dissipated, input_work))

    return integrate_to_output(
        integrator,
        results_layout(system, "dynamics"),
        continuous(_output_frame(form, cartesian, *problem.split(y0)[:3], state.t, 0.0, 0.0)),
        frame_at,
        stats,
        t_end,
        output_step,
        output,
        progress,
    )


def _output_frame(
    form: KaneFormulation,
    cartesian: CartesianFormulation,
    q: FloatArray,
    u: FloatArray,
    x: FloatArray,
    t: float,
    dissipated: float,
    input_work: float,
) -> Frame:
    """The Cartesian output frame of the tree state ``(q, u)`` with first-order states ``x`` at ``t`` [s]."""
    state = form.evaluate(q, u, t, x)
    u_dot, _ = form.accelerations(state)
    acceleration = form.cartesian_accelerations(state, u_dot)
    evaluation = cartesian.evaluate(form.cartesian_positions(state), form.cartesian_velocities(state), t, x)
    return output_frame(
        cartesian,
        evaluation,
        acceleration,
        joint_multipliers(cartesian, evaluation, acceleration),
        dissipated,
        input_work,
    )


def joint_multipliers(cartesian: CartesianFormulation, evaluation: Evaluation, acceleration: FloatArray) -> FloatArray:
    """Lagrange multipliers (m,) of the active rows with ``G^T lambda = Q - M a`` at the known
    Cartesian accelerations ``a`` (n_velocities,): the normal equations ``G G^T lambda = G (Q - M a)``."""
    G = evaluation.G
    if G.shape[0] == 0:
        return np.zeros(0)
    rhs = G @ (evaluation.generalized_force - cartesian.mass_matrix @ acceleration)
    try:
        return Factorization(G @ G.T).solve(rhs)
    except SingularMatrixError:
        return np.linalg.lstsq(
            to_dense(G).T, evaluation.generalized_force - cartesian.mass_matrix @ acceleration, rcond=None
        )[0]
