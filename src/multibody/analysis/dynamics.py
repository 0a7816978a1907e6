"""Dynamic analysis: integrate the equations of motion, output at a fixed output step.

Two formulations of the same model: "cartesian" (absolute coordinates and Lagrange multipliers,
BDF on the DAE forms I3 / SI2, as ADAMS) and "kane" (relative coordinates on a spanning tree,
Kane's equations as an ODE; see ``multibody.analysis.dynamics_kane``).
"""

from __future__ import annotations

import numpy as np

from multibody.analysis.assemble import assembled_state
from multibody.analysis.dynamics_kane import KANE_METHODS, kane_dynamics
from multibody.analysis.errors import AnalysisError
from multibody.analysis.events import ALPHA_METHODS, EventDrivenIntegrator
from multibody.analysis.model_input import as_system
from multibody.analysis.output import results_layout
from multibody.analysis.time_loop import integrate_to_output
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.state import State
from multibody.model.element import LawError, ModelError
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.threads import single_threaded
from multibody.system.system import System

METHODS = ("SI2", "I3", *ALPHA_METHODS)
"""Dynamic methods of the Cartesian formulation, SI2 first (the default): BDF on the DAE form of
the same name, or HHT / generalized-alpha ("GALPHA") on the index-3 form."""
FORMULATIONS = {"cartesian": METHODS, "kane": KANE_METHODS}
"""Formulations and their methods; the first method of each is its default."""
DEFAULT_RTOL = {"SI2": 1e-6, "I3": 1e-8, "HHT": 2e-7, "GALPHA": 2e-7}
"""Default relative tolerance per method (others: 1e-6), chosen so that every method's defaults give
engineering accuracy: the free slider-crank of ``examples/free_slider_crank.py`` (10 s, 10
revolutions) ends within 6e-3 rad of its reduced-ODE reference crank angle, as Exudyn's
generalized-alpha at h = 1 ms does (``benchmarks/slider_crank_free.py``; measured SI2 5.1e-3, I3
1.75e-3, HHT 3.2e-3, GALPHA 2.6e-3). A tolerance bounds the error of each step, not of the run,
and what one step's error test sees differs by method:

* SI2 tests positions and velocities (its velocities satisfy the velocity constraints) with
  variable order up to 5: at 1e-6 its 1115 steps end 5.1e-3 rad off.
* I3 tests velocity errors scaled by the step size (index-3 error control, Hairer & Wanner
  VII.3: the velocity estimate of an index-3 BDF is one order lower; tested unscaled, the step
  collapses, at t = 2 s on the slider-crank), so what the velocities -- and the energy and the
  phase of a free mechanism -- lose is held only to ``rtol / h``: 6.2e-2 rad at 1e-6, 1.75e-3 at 1e-8.
* HHT and generalized-alpha are second order: their error test (on positions; the velocity test
  is the same estimate) admits ``rtol`` per step, and the crank's phase error adds up over the
  thousands of steps a second-order method needs: 1.6e-2 rad (HHT) at 1e-6 in 3200 steps,
  3.2e-3 at 2e-7 in 5400 steps -- about half of Exudyn's 10,000 fixed steps of the same method."""
MIN_STEP_PER_OUTPUT_STEP = 1e-6
"""The default ``min_step`` of ``dynamics`` as a fraction of its output step (ADAMS: HMIN = 1e-6 HMAX)."""


def default_rtol(method: str) -> float:
    """The relative tolerance ``dynamics`` uses for ``method`` when none is given (``DEFAULT_RTOL``)."""
    return DEFAULT_RTOL.get(method, 1e-6)


def dynamics(
    model: Model | System,
    t_end: float,
    output_step: float,
    method: str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    max_step: float | None = None,
    initial_state: State | None = None,
    output: str | None = None,
    progress: bool = False,
    formulation: str = "cartesian",
    fixed_step: float | None = None,
    min_step: float | None = None,
) -> Results:
    """Simulate ``model`` from its assembled initial conditions to ``t_end`` [s].

    Parameters
    ----------
    formulation : "cartesian" (default) or "kane"
        Absolute coordinates with Lagrange multipliers (a DAE), or relative joint coordinates
        with Kane's equations (an ODE; closed loops through the null space of the cut-joint
        constraints). Both return the same ``Results``, and every method of both advances the
        first-order states of force elements (``State.x``); loads that read joint multipliers
        need the Cartesian formulation.
    method : str, optional
        Cartesian: the DAE form solved by variable-order (1-5), variable-step BDF, "SI2"
        (default, stabilized index 2, Gear-Gupta-Leimkuhler) or "I3" (index 3), as ADAMS's
        GSTIFF SI2 / I3; or "HHT" (ADAMS HHT) / "GALPHA" (Chung-Hulbert generalized-alpha, as
        Exudyn) on the index-3 form with error-controlled steps, spectral radius at infinity 0.9:
        second order, high frequencies damped, the motion itself little, so energy stays bounded
        in long conservative runs (``multibody.solve.integrators.generalized_alpha``). Kane: "BDF" (default; the same BDF on the ODE), or
        scipy's "RK45", "DOP853" (explicit, for non-stiff models) or "LSODA".
    rtol, atol : float
        Local error tolerances on positions and velocities (``atol`` defaults to ``rtol``). The
        default ``rtol`` depends on the method (``DEFAULT_RTOL``: 1e-6 for SI2 and Kane's methods,
        1e-8 for I3, 2e-7 for HHT and GALPHA), so that every method's defaults give engineering
        accuracy (a free slider-crank's crank angle within 6e-3 rad after 10 revolutions).
    output_step : float
        Interval [s] of the output frames, interpolated from the integrator's dense output (under
        SI2 the accelerations and reactions too; the index-3 methods solve them afresh at the
        interpolated state, their own multipliers being far less accurate than their positions).
    max_step : float, optional
        Largest internal step [s] (default: unbounded).
    min_step : float, optional
        ADAMS's HMIN [s] (default: 1e-6 of ``output_step``), as a stall test: steps may be shorter
        (a contact, an end stop, a valve switching), but a run whose last 1000 attempted steps
        advanced it by less than 1000 ``min_step`` stops with an ``AnalysisError`` saying what the
        error test or Newton failed on (a force law or motion with a jump, a slack rope snapping
        taut), its results kept, instead of crawling on for hours. 0: never. (BDF and the alpha
        methods; Kane's explicit scipy methods have their own smallest step.)
    initial_state : State, optional
        Start here instead of assembling the model's input configuration.
    output : path, optional
        HDF5 file written while the run goes (every frame on disk within 0.5 s); on an error or
        Ctrl-C it keeps everything computed so far, and the error message names it; a killed run
        keeps all but its last half second.
    progress : bool
        Show a progress bar over simulated time.
    fixed_step : float, optional
        HHT and GALPHA only: take steps of this size [s] without error control, as Exudyn's
        generalized-alpha does (``rtol`` then sets only Newton's tolerance). For flexible
        structures whose fast local modes the error control would resolve.

    Returns ``Results`` with one frame per output time, reactions included; ``stats`` has the
    integrator's counters.

    Contact pairs in the model (``multibody.model.contact``, Cartesian formulation only) make the
    run event-driven: impacts at the gaps' zero crossings, sustained contact when a pair comes to
    rest (``multibody.analysis.events``); ``stats`` then also lists the impacts (``impact_log``).
    """
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {', '.join(FORMULATIONS)}")
    methods = FORMULATIONS[formulation]
    method = methods[0] if method is None else method
    if method not in methods:
        raise ValueError(
            f"unknown method {method!r} for the {formulation} formulation; choose one of {', '.join(methods)}"
        )
    if not (t_end > 0.0 and output_step > 0.0):
        raise ValueError(f"t_end and output_step must be positive, got t_end={t_end!r}, output_step={output_step!r}")
    system = as_system(model)
    rtol = default_rtol(method) if rtol is None else rtol
    atol = rtol if atol is None else atol
    max_step = np.inf if max_step is None else max_step
    min_step = MIN_STEP_PER_OUTPUT_STEP * output_step if min_step is None else min_step
    if fixed_step is not None and not (method in ALPHA_METHODS and fixed_step > 0.0 and not system.contacts):
        raise ValueError(
            f"fixed_step={fixed_step!r}: fixed steps are for the alpha methods ({', '.join(ALPHA_METHODS)}) of the "
            "Cartesian formulation, without contact pairs, and must be a positive number of seconds"
        )
    if formulation == "kane" and system.contacts:
        raise ValueError(
            f"model '{system.name}' has contact pairs ({', '.join(system.contacts.names)}); "
            "event-driven contact needs formulation='cartesian'"
        )
    if formulation == "kane" and system.body_kinds:
        kind, group = system.body_kinds[0]
        raise ValueError(
            f"model '{system.name}' has {kind.description} ({', '.join(group.names)}); the Kane formulation "
            "moves rigid bodies only: use formulation='cartesian'"
        )
    with single_threaded():
        try:
            system, state = assembled_state(system) if initial_state is None else (system, initial_state)
            check_initial_loads(system, state)
            if formulation == "kane":
                return kane_dynamics(
                    system, state, t_end, output_step, method, rtol, atol, max_step, output, progress, min_step
                )
            # BDF on the DAE, restarted at contact events (a plain BDF run when there are no contact pairs).
            integrator = EventDrivenIntegrator(system, state, method, t_end, rtol, atol, max_step, fixed_step, min_step)
        except (AnalysisError, ModelError) as error:
            if not isinstance(error, LawError):
                raise
            raise failed_at_start(system, "dynamics", output, error) from error
        except Exception as error:  # a user law or motion failing at the start, as it would later in the run
            raise failed_at_start(system, "dynamics", output, error) from error
        return integrate_to_output(
            integrator,
            results_layout(system, "dynamics"),
            integrator.first_frame,
            integrator.frame_at,
            integrator.stats,
            t_end,
            output_step,
            output,
            progress,
            integrator.compiled_steps,
        )


def check_initial_loads(system: System, state: State) -> None:
    """Raise ``ValueError`` naming the force elements whose load is not finite at ``state``: an
    integrator started from it would carry NaN forward instead of failing."""
    if not system.force_names:
        return
    loads = CartesianFormulation(system).evaluate(state.q, state.v, state.t, state.x).loads
    finite = np.all(np.isfinite(np.column_stack([loads.force_W, loads.torque_W])), axis=1)
    if not np.all(finite):
        names = ", ".join(f"'{system.force_names[k]}'" for k in np.flatnonzero(~finite))
        raise ValueError(f"force element {names} returned a non-finite load at t = {state.t:g} s")


def failed_at_start(system: System, analysis: str, output: str | None, error: Exception) -> AnalysisError:
    """The ``AnalysisError`` of an ``analysis`` of ``system`` that fails before its first frame (a
    force law or motion raising at the initial time), worded as a failure later in the run is;
    ``output``, when given, is written with status "failed" and no frame, so that it says why."""
    message = f"{analysis} of model '{system.name}' failed at the start: {type(error).__name__}: {error}"
    if output is not None:
        ResultsWriter(output, results_layout(system, analysis)).close("failed", message)
        message += f"; the results file {output} records the failure"
    return AnalysisError(message, output)
