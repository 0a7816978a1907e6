"""REQUEST outputs, computed from a finished analysis: marker states rebuilt from the body histories.

Request values are in the dataset's units, as ADAMS writes them (its ``.req`` files), so they can
be compared with ADAMS output directly.
"""

from __future__ import annotations

import os

import numpy as np

from multibody.io.adm.builder import Request
from multibody.io.adm.errors import AdmError
from multibody.results import Results
from multibody.spatial.measurements import ElementWrench, Measurements
from multibody.spatial.rotations import FloatArray, rotation_from_euler_parameters
from multibody.system.system import System


def history_measurements(system: System, results: Results) -> Measurements:
    """Every marker's pose, motion and acceleration and every element's load over the output
    instants of ``results`` (arrays (T, nm, ...)), from the body histories and ``system``'s markers."""
    arrays = results.arrays
    T = len(results.time)

    def with_ground(values: FloatArray, ground: FloatArray) -> FloatArray:
        return np.concatenate([values, np.broadcast_to(ground, (T, 1, *ground.shape))], axis=1)

    zero = np.zeros(3)
    R_WB = with_ground(rotation_from_euler_parameters(arrays["body/euler_parameters"]), np.eye(3))
    p_WB = with_ground(arrays["body/position"], zero)
    v_WB = with_ground(arrays["body/velocity"], zero)
    a_WB = with_ground(arrays["body/acceleration"], zero)
    w_WB = with_ground(arrays["body/angular_velocity"], zero)
    alpha_WB = with_ground(arrays["body/angular_acceleration"], zero)
    body = system.marker_body
    r = np.einsum("tmij,mj->tmi", R_WB[:, body], system.marker_position)
    w, alpha = w_WB[:, body], alpha_WB[:, body]
    wrenches = {}
    for k, name in enumerate(system.constraint_names):
        joint = results.joint(name)
        i, j = system.constraint_markers[k]
        wrenches[name] = ElementWrench(joint.reaction_force, joint.reaction_torque, int(i), int(j))
    for k, name in enumerate(system.force_names):
        force = results.force(name)
        i, j = system.force_markers[k]
        wrenches[name] = ElementWrench(force.force, force.torque, int(i), None if j < 0 else int(j))
    return Measurements(
        time=results.time,
        p_WM_W=p_WB[:, body] + r,
        R_WM=R_WB[:, body] @ system.marker_orientation,
        v_WM_W=v_WB[:, body] + np.cross(w, r),
        w_WM_W=w,
        a_WM_W=a_WB[:, body] + np.cross(alpha, r) + np.cross(w, np.cross(w, r)),
        alpha_WM_W=alpha,
        wrenches=wrenches,
        x=arrays.get("state/x"),
        states_of=system.layout.states_of if system.layout is not None else None,
    )


def request_outputs(
    requests: tuple[Request, ...], system: System, results: Results
) -> dict[str, dict[str, FloatArray]]:
    """``{request name: {component: (T,) values}}`` in the dataset's units; an ``AdmError`` naming
    the request, the component and its line when a value is not a finite number."""
    outputs, failures = evaluate_requests(requests, system, results)
    if failures:
        raise failures[0]
    return outputs


def evaluate_requests(
    requests: tuple[Request, ...], system: System, results: Results
) -> tuple[dict[str, dict[str, FloatArray]], list[AdmError]]:
    """The outputs of ``request_outputs``, every component computed (NaN where its expression
    raised, as an overflow of constants does), and one located ``AdmError`` per component that is
    not finite at some output instant."""
    measurements = history_measurements(system, results)
    index = {name: k for k, name in enumerate(system.marker_names)}
    shape = results.time.shape
    outputs: dict[str, dict[str, FloatArray]] = {}
    failures: list[AdmError] = []
    for request in requests:
        outputs[request.name] = {}
        for component, expression in request.components.items():
            line, column = request.locations.get(component, (0, 0))
            try:
                with np.errstate(all="ignore"):
                    value = expression.bind([index[m.full_name] for m in expression.markers])(measurements)
                    values = np.broadcast_to(value, shape).astype(float)
            except (ArithmeticError, ValueError) as error:
                values = np.full(shape, np.nan)
                why = "overflows" if isinstance(error, OverflowError) else f"cannot be evaluated ({error})"
                why = f"{expression.text!r} {why}"
                failures.append(AdmError(f"{request.name}, component {component}: {why}", line, column, request.source))
            else:
                bad = np.flatnonzero(~np.isfinite(values))
                if bad.size:
                    failures.append(
                        AdmError(
                            f"{request.name}, component {component}: {expression.text!r} is {values[bad[0]]} at "
                            f"t = {results.time[bad[0]]:g} s ({bad.size} of {values.size} output instants)",
                            line,
                            column,
                            request.source,
                        )
                    )
            outputs[request.name][component] = values
    return outputs, failures


def load_requests(path: str | os.PathLike[str]) -> dict[str, dict[str, FloatArray]]:
    """The REQUEST outputs that ``multibody run`` added to the results file at ``path``:
    ``{"REQUEST/1": {"x": (T,) ...}}`` (empty when there are none)."""
    outputs: dict[str, dict[str, FloatArray]] = {}
    import h5py  # heavy: loaded when first used

    with h5py.File(path, "r") as file:
        if "requests" not in file:
            return outputs
        for statement, by_id in file["requests"].items():
            for request_id, components in by_id.items():
                outputs[f"{statement}/{request_id}"] = {name: values[()] for name, values in components.items()}
    return outputs
