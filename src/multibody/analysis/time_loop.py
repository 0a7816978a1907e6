"""The loop every time integration shares: step the integrator, write frames at the output times,
and on an error keep what was computed and say where it stopped."""

from __future__ import annotations

import time as wallclock
from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np

from multibody.analysis.errors import AnalysisError
from multibody.results import Results, ResultsLayout, ResultsWriter
from multibody.solve.integrators.base import IntegrationError

Frame = Mapping[str, np.ndarray]


CompiledSteps = Callable[[np.ndarray, int, float], tuple[int, np.ndarray]]
"""``(output times [s], index of the next, closeness [s]) -> (index of the next output time, packed frames
(k, width))``:
steps taken in compiled code with the frames of the output times they pass
(``EventDrivenIntegrator.compiled_steps``)."""


class SteppingIntegrator(Protocol):
    """What the loop reads from an integrator (``BDF``, ``ExplicitIntegrator``)."""

    t: float
    t_old: float

    def step(self) -> None: ...


def integrate_to_output(
    integrator: SteppingIntegrator,
    layout: ResultsLayout,
    first_frame: Frame,
    frame_at: Callable[[float], Frame],
    stats: Callable[[], dict[str, float]],
    t_end: float,
    output_step: float,
    output: str | None,
    progress: bool,
    compiled_steps: CompiledSteps | None = None,
) -> Results:
    """Step ``integrator`` from its time to ``t_end`` [s], appending ``first_frame`` and then
    ``frame_at(t)`` (interpolated within the last step) every ``output_step`` [s]. With
    ``compiled_steps`` (``EventDrivenIntegrator.compiled_steps``), the steps and frames it takes in
    compiled code come first, ``integrator.step`` taking the steps it leaves.

    ``output`` is an optional HDF5 path written while the run goes. On an integrator error or a
    raising user law the results so far are closed with status "failed" and an ``AnalysisError``
    names the time and the file; Ctrl-C closes them as "interrupted".
    """
    t0 = integrator.t
    count = int(np.floor((t_end - t0) / output_step + 1e-9))
    output_array = t0 + output_step * np.arange(1, count + 1)
    output_times = output_array.tolist()
    reached = 1e-12 * max(1.0, t_end)  # an output time this close after the step's end is in the step
    started = wallclock.perf_counter()

    def statistics() -> dict[str, float]:
        return {**stats(), "final_time": integrator.t, "wall_time": wallclock.perf_counter() - started}

    writer = ResultsWriter(output, layout)
    from tqdm.auto import tqdm  # heavy: loaded when first used

    bar = tqdm(
        total=t_end - t0,
        unit="s",
        disable=not progress,
        desc=f"dynamics {layout.model_name}",
        bar_format="{l_bar}{bar}| t = {n:.3f} / {total:.3f} s [{elapsed}<{remaining}]",
    )
    next_output = 0
    try:
        writer.append(first_frame)

        def write_frames(next_output: int) -> int:
            """Append the frames of the output times from ``next_output`` within the last step."""
            while next_output < count and output_times[next_output] <= integrator.t + reached:
                writer.append(frame_at(output_times[next_output]))
                next_output += 1
            return next_output

        while integrator.t < t_end:
            t_before = integrator.t
            if compiled_steps is not None:
                next_output, frames = compiled_steps(output_array, next_output, reached)
                writer.append_rows(frames)
                next_output = write_frames(next_output)  # those of their last step they had no room for
            if integrator.t < t_end:
                integrator.step()
                next_output = write_frames(next_output)
            bar.update(integrator.t - t_before)
    except Exception as error:
        # The integrator gave up, or a user law raised: keep what was computed and say where.
        if isinstance(error, IntegrationError):
            message = f"dynamics of model '{layout.model_name}' failed at t = {error.t:.6g} s: {error}"
        else:
            message = (
                f"dynamics of model '{layout.model_name}' failed after t = {integrator.t:.6g} s "
                f"(the last completed step): {type(error).__name__}: {error}"
            )
        writer.close("failed", message, statistics())
        where = (
            f"; results up to t = {writer.results().time[-1]:.6g} s are saved in {writer.path}" if writer.path else ""
        )
        raise AnalysisError(message + where, None if writer.path is None else str(writer.path)) from error
    except BaseException as error:
        status = "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
        writer.close(status, f"{type(error).__name__}: {error}", statistics())
        raise
    finally:
        bar.close()
    writer.close("complete", "", statistics())
    return writer.results()
