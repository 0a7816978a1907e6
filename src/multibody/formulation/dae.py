"""The DAE forms of the Cartesian equations that an implicit integrator solves, step by step.

Differential variables ``y = (q, v, x, E, W)``: positions, velocities, the first-order states
of the elements that carry them, the energy ``E`` taken out of the system by non-conservative
forces and the work ``W`` put in by motions, actuators and applied loads (``E`` and ``W`` are
quadratures, outside the error test). Algebraic variables ``z``: multipliers ``lambda`` (and
``mu`` for SI2).

I3 (index 3, ADAMS "I3"):  q' = N v,  M v' = Q - G^T lambda,  x' = F,  Phi = 0.
SI2 (stabilized index 2, Gear-Gupta-Leimkuhler, ADAMS "SI2"):
      q' = N (v - G^T mu),  M v' = Q - G^T lambda,  x' = F,  Phi = 0,  G v = nu.

``Q`` and ``F`` may depend on ``x`` and ``lambda`` (``UserForce``). Each step solves
``y = base + c y'`` by Newton with the iteration matrix ``[[M - c C - c^2 K, G^T], [G, 0]]``
(the velocity rows scaled by ``c``, the multiplier increment by ``1/c``, so that the matrix
stays well scaled as ``c -> 0``; ``K``, ``C`` from ``CartesianFormulation.force_jacobians``, kept
across steps until a Newton failure asks for fresh ones, or a failure with kept factors is blamed on
them: ``StaleJacobians``), bordered by the state coupling when
there is one (``CartesianFormulation.coupling_jacobians``)::

    [[M - c C - c^2 K,    -c Q_x,     G^T - Q_lam],
     [-c^2 F_q - c F_v,   I - c F_x,  -F_lam     ],
     [G,                  0,          0          ]]

For SI2 the ``mu`` correction follows from ``G G^T dmu = Phi/c + G dv``. The positions move by
``-c G^T dmu`` with it, which the iteration matrix does not see; in stiff models (force elements,
states, elastic body kinds) ``dmu`` is first predicted with ``G dv`` = the velocity rows' right-hand
side and the loads' answer to that move, ``c^2 K G^T dmu`` (and ``F_q``'s on the states), goes to the
right-hand side (``dae_kernel.add_stiffness_response``). Left out, Newton converged only linearly
against stiff loads (``c^2 |K| / m``: a winch rope of EA = 1e5 N on 10 kg at rtol 1e-8 failed twice a
step and took 7750 steps for 1 s instead of 300). The prediction only feeds that term: ``mu`` itself
moves by the solve with the ``G dv`` found (with it instead, a 200-link chain at rtol 1e-11 stalled, its
kept factors' ``G`` no longer that of the iterate). Each iteration (evaluation,
residual, solves, updates) is compiled in ``multibody.formulation.dae_kernel``, with the force
elements' loads evaluated in Python at the iterate when the model has any (without them the whole
Newton loop is one compiled call). For rigid bodies without state coupling the matrices themselves
come from one compiled evaluation (``dae_kernel.dense_iteration_matrices``, or refilled in the
fixed sparse pattern of ``iteration_matrix.SparseIterationPattern``), so that a model without
force elements is never evaluated in Python during a step.

On those compiled paths, for dense models of cables and moving-node ropes and for models of modal
bodies, the factors are kept
across steps (modified Newton, as in ADAMS and Exudyn) while the step coefficient ``c`` stays within
``REUSE_STEP_CHANGE`` of theirs; should Newton fail with kept factors, the step is retried at once
with fresh ones (``K`` and ``C`` kept, unless ``StaleJacobians`` blames them); they are not renewed
after a step that converged slowly with them (``RENEWING_SIZE``, the alpha methods' rule, says why). Other
models (sparse models of cables or ropes, state coupling: measured slower with kept factors)
factorize once per step. Reuse works
because Newton starts from the multipliers that the BDF polynomials predict at the step's end
(``BDF``), not from the last step's. From the last step's it diverged on most steps (free
slider-crank: 928 failures in 973 reuses; from the predicted ones 22 in 745): a stale ``G`` in the
``G^T`` column turns the multipliers' increment ``d lambda`` over the step into a spurious force
``(G_new - G_old)^T d lambda`` along the mechanism's motion, whose effect on its velocities is far
above Newton's tolerance (there ``J_old^-1 (J_new - J_old)`` has a spectral radius of 0.017 but a
weighted norm of 8e4, all of it from the multiplier columns: not the bodies' small axial inertias,
nor stale velocity rows); from the predicted multipliers ``d lambda`` is the predictor's error.

Near a singular position (nearly dependent constraint rows: a parallelogram through its collinear
position) the velocity rows of SI2 amplify the round-off of the positions by the square of the
condition of ``G``; along those rows, and only while that round-off nears the tolerance, the step
is taken as in I3 (``MechanicalDAE._weak_rows``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from multibody.formulation import constraints, dae_kernel, flexible_iteration, forces
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.iteration_matrix import SparseIterationPattern, coupled_iteration_matrix
from multibody.solve.integrators.base import Correction, FloatArray
from multibody.solve.linear import (
    Factorization,
    SingularMatrixError,
    dependent_rows,
    to_dense,
)
from multibody.solve.newton import (
    CONVERGED,
    ROUNDOFF_FRACTION,
    ROUNDOFF_ULPS,
    STAGNATION_ULPS,
    ConvergenceMonitor,
    Verdict,
    roundoff_norm,
)
from multibody.system.layout import FIRST_ORDER

FORMS = ("I3", "SI2")
REUSE_STEP_CHANGE = 0.2
"""Relative change of the step coefficient ``c`` up to which a rigid model's steps reuse the
factors of an earlier step (modified Newton, ``MechanicalDAE.correct``)."""
REUSE_SLOW_ITERATIONS = 3
"""Iterations from which a step of a small model (``RENEWING_SIZE``) with kept factors counts as
converging slowly, so that the next step factorizes afresh (the alpha methods, ``index3_alpha``)."""
RENEWING_SIZE = 200
"""Unknowns (velocities and multipliers) below which a factorization costs about one iteration
(free slider-crank: 35; 10-link chain: 110), so that the alpha methods renew their factors after a
slow step; larger models (chains of 50 and 200 links: 8 and 3 % slower with renewal) keep them until
they fail. BDF keeps them until they fail at any size: its steps compiled whole
(``multibody.analysis.stepping``), a factorization with the Python around it costs several of its
iterations, and without renewals the free slider-crank at the default rtol takes 1143 steps with 43
factorizations in 0.059 s, against 1111 steps with 370 in 0.067 s (chain of 2 links: 66 factorizations
against 109, 8 % faster; of 10: 124 against 196, 3 % faster)."""
WELL_CONDITIONED = 1e-3
"""Smallest to largest singular value of the constraint Jacobian above which a Newton failure is not
blamed on the constraints (a lock-up or dead centre drives it towards 0)."""
WEAK_ROUNDOFF = 3.0
"""How many times the smallest increment Newton tells from round-off the velocity round-off of SI2's
rows may be (as ``MechanicalDAE._velocity_roundoff`` estimates it, from above) before the nearly
dependent ones are taken as in I3. The parallelograms of ``tests/test_robustness_engine.py`` at rtol
1e-10 pass from 0.5 to 10 (below, the bars 10-40 m long of the ill-conditioned four-bar, a regular
mechanism, are taken for a singular one; above, Newton stalls just outside the band more often)."""
STALE_EXTRA_ITERATIONS = 5
"""Newton iterations allowed beyond ``newton_max_iterations`` with fresh factors and old ``K``, ``C``, while
they contract (``ConvergenceMonitor``'s test on the iterations left): giving up costs re-evaluating ``K``,
``C`` by finite differences, 25 to 50 evaluations of the loads in the models below, against one an
iteration. Measured without ``StaleJacobians`` (evaluations of the loads with 0 / 3 / 5 more): the pendulum
on a stiff spring of ``tests/test_stale_jacobians.py`` 5400 / 4860 / 4700 (I3) and 7120 / 6230 / 6590
(SI2), the same bob on the spring alone (SI2) 4040 / 5100 / 3570, ``examples/cam_follower.py`` 22200 /
21400 / 21000, ``sliding_door.py`` 2770 / 2610 / 2410, ``flexible_manipulator.py`` (SI2) 10100 / 9430 /
9030. Raising ``newton_max_iterations`` itself to 10 saved about as much there, but would change every
solve, the chains' included. The chains and the free slider-crank never fail with fresh factors: the same steps."""
EPS = float(np.finfo(float).eps)
DISCONTINUITY_STEP = 1e-8
"""[s] Steps below which a Newton failure at a regular configuration is blamed on loads that jump,
not on stiffness (it would take frequencies above 1e8 rad/s)."""
QUADRATURES = 2
"""Trailing entries of ``y`` that are quadratures: dissipated energy and input work [J]."""


class StaleJacobians:
    """Whether a failure of modified Newton with kept factors is blamed on the kept loads' Jacobians
    ``K = d(Q - G^T lambda)/dq``, ``C = dQ/dv`` (re-evaluated at once) or on the factors alone
    (refactorized with the old ``K``, ``C``; should that fail too, the integrator asks for fresh ones).

    Where a stiff element turns with the motion the kept ``K``, ``C`` fail, not the factors. A bob hanging
    from a spring of 1e7 N/m, 2e4 N s/m (the model of ``tests/test_stale_jacobians.py`` without its rod),
    I3: Newton with fresh factors and the ``K``, ``C`` of a step before (the spring turned 0.023 rad since,
    the median) contracted at a rate of 1.1 (median) and failed on 190 of 213 steps; with the same ``K``,
    ``C`` turned by that angle it contracted at 3e-5, as with fresh ones (1e-5), and failed on none: the
    error is the spring's ``k u u^T`` (and the damper's ``d u u^T``) seen along the old direction ``u``,
    ``k |du|`` across the line, where the iteration matrix has only the mass over ``c^2``. The same bob
    sliding along a hinged rod (damper 1e3 N s/m): on the 166 steps where old ``K``, ``C`` failed with
    fresh factors, fresh ``K`` alone converged on all, fresh ``C`` alone on 1; and on each of the 148
    steps whose kept factors failed, fresh factors failed too.

    So a failure with old ``K``, ``C`` and fresh factors blames them: the next ``span`` failures with
    kept factors re-evaluate them at once, and the span doubles (up to ``longest``) while the
    factorization that follows keeps failing with the old ones; one success (the factors were to blame)
    sets it back. Measured (with ``STALE_EXTRA_ITERATIONS`` either way), Newton failures per steps: the
    pendulum of ``tests/test_stale_jacobians.py`` 137/227 -> 47/244 under I3, 201/331 -> 48/248 under
    SI2; ``examples/flexible_manipulator.py`` 178/745 -> 52/772 (SI2), 231/722 -> 58/722 (HHT). The
    loads' evaluations change by +8, -14 and +6 % (I3, SI2, manipulator SI2): a re-evaluation by finite
    differences (25-50 evaluations) costs more than the failure it saves (about 8), so what the blame
    saves is mostly the failures. Where failures come from contact events (cam follower: 70 % of the
    refactorizations with old ``K`` after a kept failure converge) it seldom holds: 180 -> 209
    re-evaluations, evaluations +2 %, wall time -3 %. Re-evaluating them at the start of every step
    while blamed instead (skipping the kept factors) took 2.5x the re-evaluations on the cam follower and
    the sliding door, and more evaluations on the pendulum (SI2: 7700 against 5700): left out.
    """

    def __init__(self, longest: int = 16) -> None:
        self.longest = longest
        self.span = 1
        """failures with kept factors to be blamed on ``K``, ``C`` after the next blame"""
        self.pending = 0
        """failures with kept factors still to be blamed on ``K``, ``C``"""

    def blames_jacobians(self) -> bool:
        """Whether a failure with kept factors, just now, is to re-evaluate ``K``, ``C`` at once."""
        if self.pending <= 0:
            return False
        self.pending -= 1
        return True

    @property
    def settled(self) -> bool:
        """Whether no blame is pending and the span is back at its start (as after a success)."""
        return self.pending == 0 and self.span == 1

    def record(self, converged: bool) -> None:
        """Take the outcome of Newton with fresh factors and old ``K``, ``C``."""
        if converged:
            self.span, self.pending = 1, 0
        else:
            self.pending = self.span
            self.span = min(2 * self.span, self.longest)


class DAEVariables(NamedTuple):
    """The parts of ``y``: views of positions, velocities and states, and the two quadratures."""

    q: FloatArray
    v: FloatArray
    x: FloatArray
    dissipated: float
    """energy taken out by non-conservative forces and motions, net [J]"""
    input_work: float
    """work put in by motions, actuators, applied loads and user laws [J]"""


class MechanicalDAE:
    """The ``ImplicitProblem`` of the Cartesian equations in DAE form ``form`` ("I3" or "SI2")."""

    def __init__(self, formulation: CartesianFormulation, form: str, newton_max_iterations: int = 5) -> None:
        if form not in FORMS:
            raise ValueError(f"unknown DAE form {form!r}; choose one of {', '.join(FORMS)}")
        self.formulation = formulation
        self.form = form
        self.max_iterations = newton_max_iterations
        system = formulation.system
        self.nq, self.nv, self.m = system.n_positions, system.n_velocities, len(formulation.rows)
        self.nx = system.n_states
        self._jacobians: tuple | None = None
        self._stiffness: tuple = ()
        """``K`` in CSR and ``F_q`` as ``dae_kernel.add_stiffness_response`` takes them, made with
        ``_jacobians``"""
        self._stiff = False
        """whether ``_stiffness`` has anything to add (``dae_kernel.is_stiff``)"""
        self._pattern: tuple | None = None
        """``(K, SparseIterationPattern)`` of sparse models, remade when ``K`` and ``C`` are"""
        self._tolerances = (1e-6, 1e-6)
        """``(rtol, atol)`` of the latest ``error_weights``"""
        self._index3_rows = False
        """whether the latest SI2 step took nearly dependent rows as in I3 (``_weak_rows``)"""
        self._no_weak = np.zeros((self.m, 0))
        """``weak_rows`` of ``dae_kernel.residual_part`` when no SI2 row is nearly dependent"""
        self._probe = np.random.default_rng(0).standard_normal(self.m)
        """signs of the position round-off in ``_velocity_roundoff`` (a seeded draw: no special direction)"""
        self._no_gram = (np.zeros((0, 0), order="F"), np.zeros(0, np.int32))
        """the factors of ``G G^T`` passed to the compiled iterations when there is none (I3, no rows)"""
        self._no_drivers = (np.zeros(self.m), np.zeros(self.m))
        """the driver values of rows without prescribed values (``ConstraintRows.prescribed``)"""
        self._no_loads = (np.zeros((system.n_bodies, 6)), np.zeros(0))
        """``(element_wrench, state_rate)`` of a model without force elements"""
        self._stale = StaleJacobians()
        """whether the next failure with kept factors is blamed on ``K``, ``C`` (``StaleJacobians``)"""
        self._kept_factors: tuple | None = None
        """``(c, iteration matrix, G G^T)`` factors of the latest fresh factorization of a rigid model
        (compiled paths), for modified Newton on the next steps (``correct``)"""

    def split(self, y: FloatArray) -> DAEVariables:
        """``(q, v, x, dissipated, input_work)`` of ``y``."""
        nq, nv, nx = self.nq, self.nv, self.nx
        return DAEVariables(y[:nq], y[nq : nq + nv], y[nq + nv : nq + nv + nx], float(y[-2]), float(y[-1]))

    def join(self, q: FloatArray, v: FloatArray, x: FloatArray, dissipated: float, input_work: float) -> FloatArray:
        """``y`` from its parts (the inverse of ``split``)."""
        return np.concatenate([q, v, x, [dissipated, input_work]])

    def error_weights(self, y: FloatArray, step_size: float, rtol: float, atol: float) -> FloatArray:
        """``1 / (atol + rtol |y|)`` on q, v and x; zero on the quadratures. Under I3 velocity
        errors are scaled by the step size (Hairer & Wanner, index-3 error control); so they are
        under SI2 while the last step had nearly dependent rows taken as in I3 (``_weak_rows``)."""
        self._tolerances = (rtol, atol)
        velocity_scale = step_size if self.form == "I3" or self._index3_rows else 1.0
        return dae_kernel.error_weights(y, rtol, atol, QUADRATURES, (self.nq, self.nq + self.nv), velocity_scale)

    def step_limit(self, t: float, y: FloatArray) -> float:
        """``CartesianFormulation.step_limit`` at ``y``."""
        if not self.formulation.limits_steps:
            return np.inf
        q, v, x, _, _ = self.split(y)
        return self.formulation.step_limit(q, v, t, x)

    def finalize(self, y: FloatArray) -> FloatArray:
        """Unit Euler parameters (``y`` starts with ``q``)."""
        return kinematics.normalize_positions(self.formulation.system, y)

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
        form = self.formulation
        system = form.system
        nq, nv, nx = self.nq, self.nv, self.nx

        if refresh_jacobian or self._jacobians is None:
            self._evaluate_jacobians(t, *self._newton_start(predicted, base, c, z_guess))
        coupling = self._jacobians[2]
        stabilized = self.form == "SI2"
        # the compiled rigid iterations' arguments (the other kinds evaluate in Python, drivers included)
        f, f_dot = (None, None) if not system.rigid_only else self._no_drivers
        if system.rigid_only and form.rows.prescribed:
            f, f_dot = constraints.driver_values(form.rows, t, 1)
        arguments = (form.kernel_system, form.rows.kernel_arrays, f, f_dot)
        pattern = form.assembler.pattern
        # Rigid bodies with dense matrices and no state coupling: the matrices from one compiled call,
        # and (without force elements) no evaluation in Python, the whole solve being one compiled call.
        compiled = system.rigid_only and coupling is None
        increment_weights = weights[: nq + nv + nx]
        first: list = []

        def starting_iterate() -> tuple:
            """``(q, v, x, lam, state)``: ``_newton_start`` and, where Python evaluates, the evaluation
            there (None on the compiled paths without force elements); worked out when first asked."""
            if not first:
                q, v, x, lam = self._newton_start(predicted, base, c, z_guess)
                first.extend((q, v, x, lam, form.evaluate(q, v, t, x, lam) if not compiled or form.has_loads else None))
            return tuple(first)

        def newton(
            weak: FloatArray, weak_roundoff: float, iteration_matrix: Factorization, gram: Factorization | None
        ) -> tuple[int, float, bool, FloatArray, FloatArray]:
            """Newton's iteration from the starting iterate with the factors ``iteration_matrix`` and
            ``gram`` (None for I3) and the rows ``weak`` taken as in I3 (``_weak_rows``): ``(iterations,
            last increment norm, converged, y, z)``, ``y`` the last iterate when it did not converge."""
            factors = None  # as the compiled iterations take them (rigid bodies)
            if system.rigid_only:
                matrix_factors = iteration_matrix.kernel_factors
                gram_factors = gram.kernel_factors if gram is not None else self._no_gram
                if matrix_factors is not None and gram_factors is not None:
                    factors = (matrix_factors, gram_factors)
            if factors is not None and not form.has_loads:
                # Loads constant over the iterations: the whole solve is one compiled call.
                convergence = (tolerance, iteration_limit, ROUNDOFF_FRACTION, weak_roundoff)
                verdict, iterations, norm, y, z = dae_kernel.compiled_correction(
                    predicted,
                    base,
                    c,
                    z_guess,
                    (nq, nv, nx, self.m),
                    stabilized,
                    *arguments,
                    self._no_loads,
                    pattern,
                    factors,
                    self._stiffness,
                    weights,
                    weak,
                    convergence,
                )
                return iterations, norm, verdict == CONVERGED, y, z
            q, v, x, lam, state = (*(array.copy() for array in starting_iterate()[:4]), starting_iterate()[4])
            mu = np.zeros(self.m)
            roundoff_floor = max(roundoff_norm(predicted[: nq + nv + nx], increment_weights), weak_roundoff)
            base_parts = (base[:nq], base[nq : nq + nv], base[nq + nv : nq + nv + nx])
            monitor = ConvergenceMonitor(tolerance, iteration_limit, roundoff=roundoff_floor)
            verdict = Verdict.CONTINUE
            while verdict is Verdict.CONTINUE:
                if monitor.iterations > 0 and (form.has_loads or not system.rigid_only):
                    state = form.evaluate(q, v, t, x, lam)
                loads = (state.element_wrench, state.state_rate) if state is not None else self._no_loads
                if not system.rigid_only:
                    norm, nu = self._modal_iteration(
                        state, q, v, x, lam, mu, base_parts, c, iteration_matrix, gram, weights, weak
                    )
                elif factors is not None:
                    iterate = (q, v, x, lam, mu, base_parts, c, stabilized)
                    norm, nu = dae_kernel.compiled_iteration(
                        *iterate, *arguments, *loads, pattern, factors, self._stiffness, increment_weights, weak
                    )
                else:
                    base_q, base_v, base_x = base_parts
                    rhs, phi, nu, entries = dae_kernel.residual_part(
                        q, v, x, lam, base_v, base_x, c, stabilized, *arguments, *loads, pattern, weak
                    )
                    # as compiled_iteration does, with SuperLU's own solves
                    _, row, column = pattern
                    mu_increment = np.zeros(self.m)
                    if gram is not None and self._stiff:
                        predicted_mu = gram.solve(self._gram_rhs(phi, c, rhs[nv + nx :], weak))
                        position_change = -dae_kernel.transpose_times(entries, row, column, predicted_mu, nv)
                        dae_kernel.add_stiffness_response(rhs, position_change, c, self._stiffness)
                    dv, dx = dae_kernel.apply_increment(iteration_matrix.solve(rhs), v, x, lam, c)
                    if gram is not None:
                        velocity_change = dae_kernel.times(entries, row, column, dv, self.m)
                        mu_increment = gram.solve(self._gram_rhs(phi, c, velocity_change, weak))
                    norm = dae_kernel.close_iteration(
                        q, v, mu, mu_increment, base_q, c, stabilized, dv, dx, entries, pattern, increment_weights
                    )
                verdict = monitor.update(norm)
            rates = form.quadrature_rates(state.loads if state is not None else forces.NO_LOADS, nu, lam)
            y = self.join(q, v, x, base[-2] + c * rates[0], base[-1] + c * rates[1])
            return monitor.iterations, monitor.norm, verdict is Verdict.CONVERGED, y, np.concatenate([lam, mu])

        # Modified Newton (without state coupling, away from singular positions): first with the
        # factors of an earlier step at a step coefficient within REUSE_STEP_CHANGE of c (module
        # docstring); should that fail, afresh. A tighter Newton tolerance with kept factors (against a
        # remainder in the stiff modal velocities that passes Newton's test: the FFRF benchmark at rtol
        # 1e-4 takes 760-810 steps with kept factors, 590 with fresh ones every step) was measured and
        # left out: a third and a tenth of it took 890 and 1140 steps (rtol 1e-6: 1530 -> 1730 and
        # 1550), the rejected steps about as many (67 -> 75, 80).
        iteration, factorizations, retried = 0, 0, 0
        kept = self._kept_factors
        converged = evaluated = False
        iteration_limit = self.max_iterations
        # rigid models, dense models of cables and ropes (measured: the rope crane's steps 1.8x cheaper)
        # and models of modal bodies, dense or sparse (the FFRF chain: 6x fewer factorizations, 1.3x
        # faster at rtol 1e-4 and 1e-6); not sparse models of cables or ropes (a 50-element-per-span
        # crane took 5x the steps)
        elements = system.cables is not None or system.rope_spans is not None
        reusable = compiled or (coupling is None and not (form.sparse and elements))
        if (
            reusable
            and kept is not None
            and not refresh_jacobian
            and not self._index3_rows
            and abs(c / kept[0] - 1.0) <= REUSE_STEP_CHANGE
        ):
            iterations, norm, converged, y, z = newton(self._no_weak, 0.0, *kept[1:])
            iteration = iterations
            retried = 0 if converged else iterations
            if not converged and self._stale.blames_jacobians():
                self._evaluate_jacobians(t, *starting_iterate()[:4])
                coupling, refresh_jacobian, evaluated = self._jacobians[2], True, True
        if not converged:
            factorizations = 1
            if not refresh_jacobian:  # an old K, C: worth a few more iterations while they contract
                iteration_limit = self.max_iterations + STALE_EXTRA_ITERATIONS
            try:
                iteration_matrix, gram = self._factorize(starting_iterate(), t, c, arguments, coupling, compiled)
            except SingularMatrixError as error:
                singular = f"singular iteration matrix ({error})"
                q, v = starting_iterate()[:2]
                diagnosis = lambda: f"{singular}: {self.diagnose(q, v, t)}"
                return Correction(
                    predicted, z_guess, False, iteration, np.inf, diagnosis, 0, evaluated_jacobians=evaluated
                )
            if reusable:
                self._kept_factors = (c, iteration_matrix, gram)
            # Nearly dependent rows are looked for where they may be the trouble: after a Newton failure,
            # and at every step while the last one had them (near a singular position).
            roundoff = roundoff_norm(predicted[: nq + nv + nx], increment_weights)
            newton_floor = max(tolerance, STAGNATION_ULPS / ROUNDOFF_ULPS * roundoff)
            weak, weak_roundoff = self._no_weak, 0.0
            q, v, _, _, state = starting_iterate()
            if gram is not None and self._index3_rows:
                weak, weak_roundoff = self._weak_rows(q, v, t, c, gram, weights, newton_floor, state)
            iterations, norm, converged, y, z = newton(weak, weak_roundoff, iteration_matrix, gram)
            iteration += iterations
            if not converged and gram is not None and not weak.shape[1]:
                weak, weak_roundoff = self._weak_rows(q, v, t, c, gram, weights, newton_floor, state)
                if weak.shape[1]:
                    iterations, norm, converged, y, z = newton(weak, weak_roundoff, iteration_matrix, gram)
                    iteration += iterations
            self._index3_rows = weak.shape[1] > 0
            if not refresh_jacobian:
                self._stale.record(converged)
        if not converged:
            q, v = y[:nq], y[nq : nq + nv]
            return Correction(
                predicted,
                z_guess,
                False,
                iteration,
                norm,
                lambda: self.diagnose(q, v, t, c),
                factorizations,
                evaluated_jacobians=evaluated,
            )
        return Correction(
            y,
            z,
            True,
            iteration - retried,
            norm,
            factorizations=factorizations,
            retried_iterations=retried,
            evaluated_jacobians=evaluated,
        )

    def compiled_step(self, tolerance: float) -> tuple | None:
        """What compiled stepping (``multibody.analysis.stepping.compiled_steps``'s ``solve``) needs to
        take the next steps at Newton's ``tolerance`` as ``correct`` would, or None when a step needs
        Python here: no kept factors yet, nearly dependent rows taken as in I3, force elements, state
        coupling, other body kinds, rows whose prescribed values change, or old ``K``, ``C`` under
        blame (``StaleJacobians.settled``: compiled steps do not keep its books)."""
        form, system, kept = self.formulation, self.formulation.system, self._kept_factors
        if (
            kept is None
            or self._index3_rows
            or not system.rigid_only
            or form.has_loads
            or form.rows.prescribed
            or self._jacobians is None
            or self._jacobians[2] is not None
            or not self._stale.settled
        ):
            return None
        matrix_factors = kept[1].kernel_factors
        gram_factors = kept[2].kernel_factors if kept[2] is not None else self._no_gram
        if matrix_factors is None or gram_factors is None:
            return None
        K, C, _ = self._jacobians
        jacobians = (self._sparse_pattern().structure, K.data, C.data) if form.sparse else (K, C)
        return (
            kept[0],
            REUSE_STEP_CHANGE,
            jacobians,
            (self.nq, self.nv, self.nx, self.m),
            self.form == "SI2",
            form.kernel_system,
            form.rows.kernel_arrays,
            *self._no_drivers,
            self._no_loads,
            form.assembler.pattern,
            (matrix_factors, gram_factors),
            self._stiffness,
            self._no_weak,
            (tolerance, self.max_iterations, ROUNDOFF_FRACTION, 0.0),
            (tolerance, self.max_iterations + STALE_EXTRA_ITERATIONS, ROUNDOFF_FRACTION, 0.0),
            QUADRATURES,
            system.n_frame_positions,
        )

    def keep_factors(self, c: float, factors: tuple) -> None:
        """Keep the ``factors`` ``(iteration matrix, G G^T)`` that compiled stepping made for the step
        coefficient ``c`` (dense: ``dae_kernel.dense_iteration_factors``; sparse:
        ``iteration_matrix.structured_factors``) as ``correct``'s own."""
        if self.formulation.sparse:
            matrix, gram = (Factorization.of_sparse_factors(part) for part in factors)
        else:
            matrix, gram = (Factorization.of_dense_factors(*part) for part in factors)
        self._kept_factors = (c, matrix, gram if self.form == "SI2" and self.m > 0 else None)

    def frame_jacobians(self) -> tuple[FloatArray, FloatArray]:
        """``(K, C)`` dense, as the compiled frames solved afresh take them (``output.solved_frame_pass``:
        the iteration matrix at ``c = 0``, ``[M G^T; G 0]``), empty ones for sparse models."""
        K, C, _ = self._jacobians
        return (np.zeros((0, 0)), np.zeros((0, 0))) if self.formulation.sparse else (K, C)

    def drop_kept_factors(self) -> None:
        """Factorize afresh at the next step (compiled stepping found Newton failing)."""
        self._kept_factors = None

    def _evaluate_jacobians(self, t: float, q: FloatArray, v: FloatArray, x: FloatArray, lam: FloatArray) -> None:
        """``K``, ``C`` and the state coupling at ``(q, v, x, lam)`` and time ``t`` [s], kept for the steps to come."""
        form = self.formulation
        self._jacobians = (*form.force_jacobians(q, v, t, lam, x), form.coupling_jacobians(q, v, x, t, lam))
        K, _, coupling = self._jacobians
        # Only a stiff model needs the loads' answer to SI2's move with mu: force elements, states,
        # elastic body kinds. Rigid bodies alone have the reactions' geometric stiffness, whose answer
        # is below Newton's tolerance (chains of 2 to 200 links: the same steps and iterations with
        # it), and skip it (an empty stiffness).
        stiff = form.has_loads or self.nx or not form.system.rigid_only
        K = sp.csr_matrix(K) if stiff else sp.csr_matrix((self.nv, self.nv))
        F_q = coupling.F_q if coupling is not None else np.zeros((0, self.nv))
        self._stiffness = (K.data, K.indices, K.indptr, np.ascontiguousarray(F_q))
        self._stiff = dae_kernel.is_stiff(self._stiffness)

    def _newton_start(
        self, predicted: FloatArray, base: FloatArray, c: float, z_guess: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Newton's first iterate ``(q, v, x, lam)`` of a step (``dae_kernel.newton_start``; the
        position rates of the other body kinds from ``frames.position_rate``)."""
        sizes = (self.nq, self.nv, self.nx, self.m)
        if self.formulation.system.rigid_only:
            return dae_kernel.newton_start(predicted, base, c, z_guess, sizes)
        nq, nv, nx, m = sizes
        v, x = predicted[nq : nq + nv].copy(), predicted[nq + nv : nq + nv + nx].copy()
        q = base[:nq] + c * kinematics.position_rate(self.formulation.system, predicted[:nq], v)
        return q, v, x, z_guess[:m].copy()

    def _factorize(
        self,
        start: tuple,
        t: float,
        c: float,
        arguments: tuple,
        coupling: tuple | None,
        compiled: bool,
    ) -> tuple[Factorization, Factorization | None]:
        """The factors of the iteration matrix and (SI2) of ``G G^T`` at the iterate ``start = (q, v,
        x, lam, state)`` for the step coefficient ``c`` (``state``: the evaluation there, None on the
        compiled paths without force elements); raises ``SingularMatrixError``."""
        form = self.formulation
        q, v, _, _, state = start
        K, C, _ = self._jacobians
        stabilized = self.form == "SI2" and self.m > 0
        pattern = form.assembler.pattern
        if compiled and form.sparse:
            sparse = self._sparse_pattern()
            entries = dae_kernel.constraint_entries(q, v, *arguments, pattern)
            factorizations = []
            for matrix in (
                sparse.iteration_matrix(K, C, c * c, c, entries),
                sparse.gram(entries) if stabilized else None,
            ):
                factorization = None if matrix is None else Factorization(matrix)
                if factorization is not None:
                    factorization.use_structure(matrix)  # compiled stepping refactorizes on its pattern
                factorizations.append(factorization)
            return factorizations[0], factorizations[1]
        if compiled:
            regular, matrix_factors, gram_factors = dae_kernel.dense_iteration_factors(
                (q, v, *arguments, pattern, K, C, c * c, c, stabilized)
            )
            if not regular:
                raise SingularMatrixError("matrix is singular to working precision")
            gram = Factorization.of_dense_factors(*gram_factors) if stabilized else None
            return Factorization.of_dense_factors(*matrix_factors), gram
        matrix = coupled_iteration_matrix(state.mass_matrix - c * C - c * c * K, state.G, coupling, c * c, c)
        return Factorization(matrix), Factorization(state.G @ state.G.T) if stabilized else None

    def _weak_rows(
        self,
        q: FloatArray,
        v_predicted: FloatArray,
        t: float,
        c: float,
        gram: Factorization,
        weights: FloatArray,
        newton_floor: float,
        state: Evaluation | None,
    ) -> tuple[FloatArray, float]:
        """SI2's nearly dependent rows at ``q`` (predicted velocities ``v_predicted``, step coefficient
        ``c``, factors of ``G G^T``, error ``weights``, the smallest weighted increment Newton can
        tell from round-off ``newton_floor``): ``(U_k (m, k), weighted rms of the round-off their I3
        treatment leaves in Newton's increments)``; ``U_k`` is (m, 0) when there are none.
        ``correct`` asks only after a Newton failure, and at every step while the last one had
        such rows, so the common step never pays for it (two solves, one evaluation, an SVD).

        Near a singular position (two branches of the mechanism crossing, as a parallelogram
        passing its collinear position) ``G`` has singular values ``sigma_i`` far below the others.
        The position rows fix the positions along the weak directions only to ``eps |q| / sigma_i``,
        and the velocity rows evaluated there turn the velocity by that times ``H / sigma_i`` (``H``
        how fast ``G v`` changes with the positions): they are tangent to the level set
        ``Phi = round-off`` through that position, which bends sharply near the crossing (measured
        on the parallelogram: 2e-12 rad/s at sigma_min / sigma_max = 1.5e-3, 4e-10 at 1e-4). Once
        that nears what Newton can resolve, its increments along those rows are round-off above its
        tolerance however short the step. Along those rows (the left singular vectors ``U_k`` that
        carry it) the step is then taken as in I3: their position rows, held by the multipliers,
        replace their velocity rows, and ``mu`` has no part along them. The velocity there is the
        BDF rate of positions that round-off moves by ``eps |q| / sigma_i`` only, ``eps |q| /
        (sigma_i c)`` in the velocities, and as in I3 the error test scales velocity errors by the
        step size while such rows are present (``error_weights``). Rows a motion drives are left
        alone: there the mechanism locks (the velocity they ask for grows as ``1 / sigma_i``), and the
        run is to stop with the lock-up named. Both forms discretize the same equations (the
        velocity rows are the time derivative of the position rows); they differ in what round-off
        does to them.
        """
        nq, nv = self.nq, self.nv
        rtol, atol = self._tolerances
        velocity_weights = 1.0 / (atol + rtol * np.abs(v_predicted))
        threshold = WEAK_ROUNDOFF * newton_floor
        roundoff = self._velocity_roundoff(q, v_predicted, t, gram) * velocity_weights
        if not np.max(roundoff) > threshold:
            return self._no_weak, 0.0
        G, nu = (state.G, state.nu) if state is not None else self.formulation.constraint_residual(q, t)[1:]
        left, singular, right = np.linalg.svd(to_dense(G), full_matrices=False)
        smallest = np.maximum(singular, 1e-300 * singular[0])
        # A row that a motion drives is a lock-up, not a crossing: the velocity it asks for grows
        # as 1 / sigma whatever the form, and the run is to stop there.
        driven = np.abs(left.T @ nu) > np.sqrt(EPS) * np.linalg.norm(nu)
        weak = (float(np.max(roundoff)) * (smallest[-1] / smallest) ** 2 > threshold) & ~driven
        if not np.any(weak):
            return self._no_weak, 0.0
        # Round-off of the I3 rows: eps |q| in Phi, divided by sigma_i (positions) and c (velocities).
        velocity_noise = EPS * float(np.max(np.abs(q))) * np.abs(right[weak]).T @ (1.0 / (smallest[weak] * c))
        noise = velocity_noise * weights[nq : nq + nv]
        return np.ascontiguousarray(left[:, weak]), float(np.sqrt(np.sum(noise**2) / (nq + nv + self.nx)))

    def _velocity_roundoff(self, q: FloatArray, v: FloatArray, t: float, gram: Factorization) -> FloatArray:
        """The velocity change (nv,) that SI2's rows make of round-off in the position rows at ``q``
        (``eps |q|`` on each row, signs of the fixed probe): the position change it causes,
        ``G^T (G G^T)^-1 rho``, changes ``G v`` (a finite difference along it), and the velocity rows
        answer with ``G^T (G G^T)^-1`` of that change. Two solves and one more evaluation of ``G``."""
        system = self.formulation.system
        products = self._jacobian_products(q, t)
        scale = max(1.0, float(np.max(np.abs(q))))
        displacement = products[1](gram.solve(EPS * scale * self._probe / np.max(np.abs(self._probe))))
        size = float(np.linalg.norm(displacement))
        if not size > 0.0:
            return np.zeros(self.nv)
        step = np.sqrt(EPS) * scale
        moved = q + step * kinematics.position_rate(system, q, displacement / size)
        change = (self._jacobian_products(moved, t)[0](v) - products[0](v)) * (size / step)
        return np.abs(products[1](gram.solve(change)))

    def _jacobian_products(self, q: FloatArray, t: float) -> tuple[Callable, Callable]:
        """``(x -> G x, y -> G^T y)`` at ``q``: compiled on the entries of ``G`` for rigid bodies."""
        form = self.formulation
        if not form.system.rigid_only:
            G = form.constraint_residual(q, t)[1]
            return (lambda x: G @ x), (lambda y: G.T @ y)
        f, f_dot = constraints.driver_values(form.rows, t, 1)
        pattern = form.assembler.pattern
        at_rest = np.zeros(self.nv)  # G does not depend on the velocities
        entries = dae_kernel.constraint_entries(
            q, at_rest, form.kernel_system, form.rows.kernel_arrays, f, f_dot, pattern
        )
        _, row, column = pattern
        return (
            lambda x: dae_kernel.times(entries, row, column, x, self.m),
            lambda y: dae_kernel.transpose_times(entries, row, column, y, self.nv),
        )

    def _sparse_pattern(self) -> SparseIterationPattern:
        """The fixed sparse pattern of the iteration matrices for the current ``K``, ``C``."""
        K, C, _ = self._jacobians
        if self._pattern is None or self._pattern[0] is not K:
            form = self.formulation
            _, row, column = form.assembler.pattern
            self._pattern = (K, SparseIterationPattern(form.mass_matrix, K, C, self.m, row, column))
        return self._pattern[1]

    def _modal_iteration(
        self,
        state: Evaluation,
        q: FloatArray,
        v: FloatArray,
        x: FloatArray,
        lam: FloatArray,
        mu: FloatArray,
        base: tuple[FloatArray, FloatArray, FloatArray],
        c: float,
        iteration_matrix: Factorization,
        gram: Factorization | None,
        weights: FloatArray,
        weak: FloatArray,
    ) -> tuple[float, FloatArray]:
        """One Newton iteration in NumPy on the evaluation ``state`` at the iterate, for models with
        flexible bodies or cables (whose kinds are not compiled into ``dae_kernel``): the same equations as
        ``dae_kernel.compiled_iteration`` with the state-dependent ``M(q)``. Updates ``q, v, x, lam, mu``
        in place; returns ``(weighted rms of the increment, nu)``. Dense matrices: one compiled call
        (``flexible_iteration.dense_iteration``)."""
        base_q, base_v, base_x = base
        nv, nx = self.nv, self.nx
        G = state.G
        factors = iteration_matrix.dense_factors
        gram_factors = self._no_gram if gram is None else gram.dense_factors
        if factors is not None and gram_factors is not None and isinstance(G, np.ndarray):
            norm = flexible_iteration.dense_iteration(
                state.mass_matrix,
                state.generalized_force,
                G,
                state.phi,
                state.nu,
                state.state_rate,
                q,
                v,
                x,
                lam,
                mu,
                base_q,
                base_v,
                base_x,
                c,
                self.form == "SI2",
                *factors,
                *gram_factors,
                self._stiffness,
                weak,
                weights,
                self.formulation.system.n_frame_positions,
            )
            return norm, state.nu
        velocity_residual = state.mass_matrix @ (v - base_v) / c - state.generalized_force + G.T @ lam
        state_residual = x - base_x - c * state.state_rate
        constraint_rhs = state.nu - G @ v if self.form == "SI2" else -state.phi / c
        if weak.shape[1]:
            dae_kernel.replace_weak_rows(constraint_rhs, weak, -state.phi / c)
        rhs = np.concatenate([-c * velocity_residual, -state_residual, constraint_rhs])
        if gram is not None and self._stiff:  # as dae_kernel.compiled_iteration does
            predicted_mu = gram.solve(self._gram_rhs(state.phi, c, constraint_rhs, weak))
            dae_kernel.add_stiffness_response(rhs, -(G.T @ predicted_mu), c, self._stiffness)
        dv, dx = dae_kernel.apply_increment(iteration_matrix.solve(rhs), v, x, lam, c)
        velocity = v
        if gram is not None:
            mu += gram.solve(self._gram_rhs(state.phi, c, G @ dv, weak))
            velocity = v - G.T @ mu
        q_new = base_q + c * kinematics.position_rate(self.formulation.system, q, velocity)
        increment = np.concatenate([q_new - q, dv, dx]) * weights[: q.size + nv + nx]
        q[:] = q_new
        return float(np.sqrt(np.mean(increment**2))) if increment.size else 0.0, state.nu

    def _gram_rhs(self, phi: FloatArray, c: float, velocity_change: FloatArray, weak: FloatArray) -> FloatArray:
        """The right-hand side of SI2's ``G G^T dmu`` for ``velocity_change = G dv``
        (``dae_kernel.multiplier_increment``'s, for SuperLU's and NumPy's solves)."""
        gram_rhs = phi / c + velocity_change
        dae_kernel.replace_weak_rows(gram_rhs, weak, np.zeros(self.m))
        return gram_rhs

    def diagnose(self, q: FloatArray, v: FloatArray, t: float, c: float = np.inf) -> str:
        """Say why Newton failed at ``(q, v, t)`` (with the step's coefficient ``c`` [s], about the
        step size): a force element with a non-finite load, nearly dependent constraint rows (a
        lock-up), the row with the largest violation, or loads that jump (a failure at steps far
        too short for any stiffness)."""
        form = self.formulation
        system = form.system
        state = form.evaluate(q, v, t)
        bad_loads = ~np.all(np.isfinite(np.column_stack([state.loads.force_W, state.loads.torque_W])), axis=1)
        if np.any(bad_loads):
            names = ", ".join(f"'{system.force_names[k]}'" for k in np.flatnonzero(bad_loads))
            return f"force element {names} returned a non-finite load"
        if not np.all(np.isfinite(state.generalized_force)):
            return "the generalized forces are not finite (check masses, inertias and gravity)"
        if not self.m:
            return "no constraint is violated; the forces may be too stiff for this step size"
        near = dependent_rows(state.G, tolerance=1e-6)
        if near:
            culprits = ", ".join(
                dict.fromkeys(
                    f"'{system.constraint_names[form.rows.element[k]]}'" for d in near for k in (d.row, *d.depends_on)
                )
            )
            return f"the constraints of {culprits} are (nearly) dependent here: a lock-up or dead-centre position"
        worst = int(np.argmax(np.abs(state.phi)))
        name = system.constraint_names[form.rows.element[worst]]
        if abs(state.phi[worst]) > 1e-9 * max(1.0, float(np.max(np.abs(q)))):
            return f"largest constraint violation {abs(state.phi[worst]):.3g} in '{name}' ({form.rows.label[worst]})"
        # Every constraint holds: the rows closest to dependent (the smallest singular value's left
        # singular vector) are those that lock, not the row that happens to be violated by round-off.
        G = to_dense(state.G)
        if not np.all(np.isfinite(G)):
            return "the constraint Jacobian is not finite"
        left, singular, _ = np.linalg.svd(G)
        weakest = np.abs(left[:, singular.size - 1])
        rows = np.flatnonzero(weakest > 0.1 * weakest.max())
        culprits = ", ".join(dict.fromkeys(f"'{system.constraint_names[form.rows.element[k]]}'" for k in rows))
        ratio = singular[-1] / singular[0] if singular[0] > 0.0 else 0.0
        if ratio > WELL_CONDITIONED and c < DISCONTINUITY_STEP:
            return (
                f"the loads are finite and the constraints hold and are independent, yet Newton fails at steps of "
                f"{c:.1e} s, too short for any stiffness: the loads jump here (a force law with a discontinuity, such "
                "as an unregularized sign(v), or an element switching on or off)"
            )
        if ratio > WELL_CONDITIONED:
            return (
                f"the loads are finite and the constraints hold and are independent (smallest to largest singular "
                f"value {ratio:.1e}): the step is too long for Newton at this stiffness (with fixed_step, take a "
                "shorter one; add damping to fast elastic modes)"
            )
        return (
            f"the constraints hold, but those of {culprits} are the closest to dependent here (smallest to largest "
            f"singular value {ratio:.1e}): a lock-up or dead-centre position"
        )

    def describe_error(self, weighted_error: FloatArray) -> str:
        """What the largest component of a weighted step error (``y``'s size) belongs to: "the
        velocities of body 'crank'", "the positions of rope span 'rope_span1'", "the states of
        element 'valve'"."""
        system = self.formulation.system
        index = int(np.argmax(np.abs(weighted_error)))
        nq, nv = self.nq, self.nv
        if index >= nq + nv + self.nx:
            return "the energy quadratures"
        part, at = (
            ("positions", index)
            if index < nq
            else ("velocities", index - nq)
            if index < nq + nv
            else ("states", index - nq - nv)
        )
        spans = system.rope_spans.names if system.rope_spans is not None else ()
        kinds = {"rigid_body": "body", "modal": "flexible body", "ancf_cable": "cable", FIRST_ORDER: "element"}
        for block in system.layout.blocks if system.layout else ():
            start, width = {"positions": (block.q_offset, block.nq), "velocities": (block.v_offset, block.nv)}.get(
                part, (block.x_offset, block.nx)
            )
            if start <= at < start + width and (block.kind == FIRST_ORDER) == (part == "states"):
                kind = "rope span" if block.owner in spans else kinds.get(block.kind, block.kind)
                return f"the {part} of {kind} '{block.owner}'"
        return f"{part} component {at}"

    def initial_algebraic(self, lam: FloatArray) -> FloatArray:
        """``z`` at the start: the consistent multipliers (and ``mu = 0`` for SI2)."""
        return np.concatenate([lam, np.zeros(self.m)])
