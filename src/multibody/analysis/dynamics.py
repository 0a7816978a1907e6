"""Dynamic analysis: integrate the Cartesian DAE with BDF, output at a fixed output step."""

from __future__ import annotations

import time as wallclock

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from multibody.analysis.assemble import assembled_state
from multibody.analysis.errors import AnalysisError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.dae import FORMS, MechanicalDAE
from multibody.formulation.state import State
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.integrators.base import IntegrationError
from multibody.solve.integrators.bdf import BDF
from multibody.system.system import System

METHODS = FORMS
"""Dynamic methods: BDF on the DAE form of the same name."""


def dynamics(
    model: Model | System,
    t_end: float,
    output_step: float,
    method: str = "SI2",
    rtol: float = 1e-6,
    atol: float | None = None,
    max_step: float | None = None,
    initial_state: State | None = None,
    output: str | None = None,
    progress: bool = False,
) -> Results:
    """Simulate ``model`` from its assembled initial conditions to ``t_end`` [s].

    Parameters
    ----------
    method : "SI2" (default) or "I3"
        DAE form solved by variable-order (1-5), variable-step BDF: stabilized index 2
        (Gear-Gupta-Leimkuhler) or index 3, as ADAMS's GSTIFF SI2 / I3.
    rtol, atol : float
        Local error tolerances on positions and velocities (``atol`` defaults to ``rtol``).
    output_step : float
        Interval [s] of the output frames, interpolated from the integrator's dense output.
    max_step : float, optional
        Largest internal step [s] (default: unbounded).
    initial_state : State, optional
        Start here instead of assembling the model's input configuration.
    output : path, optional
        HDF5 file written while the run goes (flushed every 2 s); on an error or Ctrl-C it keeps
        everything computed so far, and the error message names it.
    progress : bool
        Show a progress bar over simulated time.

    Returns ``Results`` with one frame per output time, reactions included; ``stats`` has the
    integrator's counters.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if not (t_end > 0.0 and output_step > 0.0):
        raise ValueError(f"t_end and output_step must be positive, got t_end={t_end!r}, output_step={output_step!r}")
    system = as_system(model)
    atol = rtol if atol is None else atol
    with threadpool_limits(limits=1):
        system, state = assembled_state(system) if initial_state is None else (system, initial_state)
        form = CartesianFormulation(system)
        problem = MechanicalDAE(form, method)
        start = form.evaluate(state.q, state.v, state.t)
        acceleration, lam = form.accelerations(start)
        y0 = np.concatenate([state.q, state.v, [0.0]])
        y_dot0 = np.concatenate([kinematics.position_rate(system, state.q, state.v), acceleration, [0.0]])
        integrator = BDF(
            problem, state.t, y0, y_dot0, problem.initial_algebraic(lam), t_end, rtol, atol,
            max_step=np.inf if max_step is None else max_step,
        )
        output_times = state.t + output_step * np.arange(1, int(np.floor((t_end - state.t) / output_step + 1e-9)) + 1)
        started = wallclock.perf_counter()
        writer = ResultsWriter(output, results_layout(system, "dynamics"))
        bar = tqdm(
            total=t_end - state.t, unit="s", disable=not progress, desc=f"dynamics {system.name}",
            bar_format="{l_bar}{bar}| t = {n:.3f} / {total:.3f} s [{elapsed}<{remaining}]",
        )
        next_output = 0
        try:
            writer.append(output_frame(form, start, acceleration, lam, 0.0))
            while integrator.t < t_end:
                integrator.step()
                bar.update(integrator.t - integrator.t_old)
                while next_output < len(output_times) and output_times[next_output] <= integrator.t + 1e-12 * max(1.0, t_end):
                    writer.append(_frame_at(form, problem, integrator, float(output_times[next_output])))
                    next_output += 1
        except Exception as error:
            # The integrator gave up, or a user law raised: keep what was computed and say where.
            if isinstance(error, IntegrationError):
                message = f"dynamics of model '{system.name}' failed at t = {error.t:.6g} s: {error}"
            else:
                message = (
                    f"dynamics of model '{system.name}' failed after t = {integrator.t:.6g} s "
                    f"(the last completed step): {type(error).__name__}: {error}"
                )
            writer.close("failed", message, _stats(integrator, started))
            where = f"; results up to t = {writer.results().time[-1]:.6g} s are saved in {writer.path}" if writer.path else ""
            raise AnalysisError(message + where, None if writer.path is None else str(writer.path)) from error
        except BaseException as error:
            status = "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
            writer.close(status, f"{type(error).__name__}: {error}", _stats(integrator, started))
            raise
        finally:
            bar.close()
        writer.close("complete", "", _stats(integrator, started))
    return writer.results()


def _frame_at(form: CartesianFormulation, problem: MechanicalDAE, integrator: BDF, t: float) -> dict[str, np.ndarray]:
    """Output frame at ``t`` from the dense output, with accelerations and reactions solved there."""
    y = integrator.dense_output(t)
    q, v, dissipated = problem.split(problem.finalize(y))
    state = form.evaluate(q, v, t)
    acceleration, lam = form.accelerations(state)
    return output_frame(form, state, acceleration, lam, dissipated)


def _stats(integrator: BDF, started: float) -> dict[str, float]:
    return {**integrator.stats.as_dict(), "final_time": integrator.t, "wall_time": wallclock.perf_counter() - started}


