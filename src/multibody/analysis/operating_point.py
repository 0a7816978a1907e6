"""Operating points: the state of a compiled model rebuilt from one frame of its results."""

from __future__ import annotations

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.state import State
from multibody.results import Results
from multibody.spatial import rotations
from multibody.system.system import System


def frame_index(results: Results, time: float | None) -> int:
    """Index of the output frame at ``time`` [s] (the last frame when None); ``ValueError`` when
    no frame lies within 1e-9 s (relative to the span) of it."""
    if len(results) == 0:
        raise ValueError("the results hold no output frames")
    if time is None:
        return len(results) - 1
    index = int(np.argmin(np.abs(results.time - time)))
    if abs(results.time[index] - time) > 1e-9 * max(1.0, abs(float(results.time[-1]))):
        raise ValueError(
            f"the results have no frame at t = {time:g} s; they run from {results.time[0]:g} to "
            f"{results.time[-1]:g} s in {len(results)} frames (nearest {results.time[index]:g} s)"
        )
    return index


def state_from_results(system: System, results: Results, time: float | None = None) -> State:
    """``State`` of ``system`` at the frame of ``results`` at ``time`` [s] (default: the last).

    Positions come from ``body/position`` and ``body/euler_parameters``; velocities from
    ``body/velocity`` and ``body/angular_velocity`` (world, turned into body axes); the
    first-order states from ``state/x`` (the system's initial ones if the results hold none); the
    multipliers are solved again from the equations of motion at that state, so they are
    consistent with the loads of ``system`` (equal to the stored reactions' multipliers for a
    results file of the same model).
    """
    if tuple(results.layout.body_names) != tuple(system.body_names):
        raise ValueError(
            f"results of model '{results.layout.model_name}' have bodies {', '.join(results.layout.body_names)}; "
            f"model '{system.name}' has {', '.join(system.body_names)}. Use the results of this model"
        )
    k = frame_index(results, time)
    q = positions_from_results(results, k)
    R_WB = rotations.rotation_from_euler_parameters(rigid.euler_parameters(q[: system.n_frame_positions]))
    w_B = np.einsum("bji,bj->bi", R_WB, results.arrays["body/angular_velocity"][k])
    v = np.concatenate([rigid.velocities(results.arrays["body/velocity"][k], w_B), _tail(results, k, "velocities")])
    t = float(results.time[k])
    x = results.arrays["state/x"][k].copy() if "state/x" in results.arrays else system.x0.copy()
    form = CartesianFormulation(system)
    _, lam = form.accelerations(form.evaluate(q, v, t, x))
    return State(t, q, v, lam, x)


def positions_from_results(results: Results, frame: int) -> np.ndarray:
    """Position vector ``q`` (n_positions,) of output frame ``frame``: CM positions and unit Euler
    parameters, then the modal coordinates and the cables' (and rope spans') coordinates."""
    e_WB = rotations.normalize(results.arrays["body/euler_parameters"][frame])
    return np.concatenate(
        [rigid.positions(results.arrays["body/position"][frame], e_WB), _tail(results, frame, "coordinates")]
    )


def _tail(results: Results, frame: int, kind: str) -> np.ndarray:
    """The coordinates after the frames' at output frame ``frame``: modal, then cable ``kind``
    ("coordinates" or "velocities")."""
    parts = [
        results.arrays[f"{owner}/{kind}"][frame] for owner in ("modal", "cable") if f"{owner}/{kind}" in results.arrays
    ]
    return np.concatenate(parts) if parts else np.zeros(0)
