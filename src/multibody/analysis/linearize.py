"""Linearization about an operating point, in independent coordinates (ADAMS LINEAR/STATEMAT).

Perturb the operating point ``(q*, v*, lambda*)`` at time ``t`` by velocity-space position
increments ``x`` (``q = displace(q*, x)``) and velocity increments ``dv``. The increments of a
body's rotation vector obey ``dtheta/dt = dw_B - w*_B x theta``, so ``dv = x' + W x`` with ``W``
block-diagonal (``skew(w*_B)`` in each rotation block). The equations of motion give, to first
order::

    M dv' = K_x x + C_v dv - G^T dlambda,    K_x = d(Q - G^T lambda*)/dx,   C_v = dQ/dv

``K_x`` holds the element stiffnesses, preloads, and the geometric stiffness of the reactions
(the ``d(G^T)/dx lambda*`` term: a pendulum's only stiffness in these coordinates). The
constraints keep ``G x = (motion inputs)``; with ``N`` an orthonormal basis of the null space of
``G`` (``scipy.linalg.null_space``) and ``x = N z + X_p u`` (``X_p``: the least-norm increment
that moves the driven coordinates by ``u``), projecting on ``N^T`` removes the multipliers::

    M_r z'' + C_r z' + K_r z = F0 u + F1 u' + F2 u''
    M_r = N^T M N,  C_r = N^T (M W - C_v) N,  K_r = -N^T (K_x + C_v W) N

State space: ``z = xi + S u`` with ``S = M_r^-1 F2`` and ``xi' = eta + E u`` remove the input
derivatives (only motion inputs have them), giving ``A, B, C, D``. First-order states ``x_s``
(``State.x``; ADAMS LINEAR includes its differential states the same way) add their rows and
columns: ``M_r z'' + ... = N^T Q_s dx_s`` and ``dx_s' = (F_q + F_v W) x + F_v x' + F_s dx_s``
(``Q_s = dQ/dx_s``; ``F_q``, ``F_v``, ``F_s`` the derivatives of the state rates), with
``dx_s = zeta + T u`` (``T = F_v (N S + X_p)``) removing the input rate: ``s = (xi, eta, zeta)``. At a static equilibrium (or
any state with ``v* = 0``) this is the exact linearization. At a moving operating point it is
the frozen-time variational equation (``N``, ``W`` and the inputs' effect taken at that instant),
exact for a body's free rotation but not where constraint directions turn with the motion: it
lacks the rate of change of ``N`` (a pendulum mid-swing gets its centripetal reaction as extra
stiffness), so ``linearize`` warns (``MovingOperatingPointWarning``) at moving constrained points.
``K_x``, ``C_v`` and the output Jacobians are central finite differences (step 1e-5 of the
length scale, 1e-5 rad, 1e-5 of the speeds: relative error about 1e-10).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import scipy.linalg as la

from multibody.analysis.assemble import assembled_state
from multibody.analysis.errors import AnalysisError
from multibody.analysis.model_input import as_system
from multibody.analysis.operating_point import state_from_results
from multibody.analysis.statics import equilibrium, statics
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.constraints import KIND
from multibody.formulation.frames import Pose
from multibody.formulation.state import State
from multibody.model.model import Model
from multibody.results import Results
from multibody.results.linear import LinearModel
from multibody.solve.linear import to_dense
from multibody.solve.threads import single_threaded
from multibody.spatial.rotations import FloatArray, cross, skew
from multibody.system.system import System


class MovingOperatingPointWarning(UserWarning):
    """The operating point moves and the model has constraints: the linear model is the
    frozen-time approximation (see the module docstring), not the exact variational equation."""


RELATIVE_STEP = 1e-5
"""Central-difference step, relative to the length scale [m], 1 rad, or the speeds."""
COMPONENTS = "xyz"


def linearize(
    model: Model | System,
    at: State | Results | None = None,
    time: float | None = None,
    inputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
) -> LinearModel:
    """The linear model of ``model`` about an operating point.

    Parameters
    ----------
    at : None, State or Results
        None: the static equilibrium at ``time`` (default 0 s), found by ``statics``' Newton from
        the assembled input configuration. A ``State``: that state (its multipliers are solved
        again from the equations of motion). A ``Results`` of this model (dynamics, statics,
        kinematics ...): its frame at ``time`` (default the last).
    inputs : names
        Applied force or torque elements (``PointForce``/``PointTorque``) by name: ``"drive"``
        gives three inputs ``drive.x``, ``drive.y``, ``drive.z`` [N or N m] in the element's own
        frame (world or marker axes), added to its load; ``"drive.z"`` one of them. A ``Motion``
        by name: its displacement [m or rad] added to the prescribed one.
    outputs : names
        ``"body/marker"`` (three outputs) or ``"body/marker.x"``: displacement of a marker
        origin, world axes [m]; ``"joint.rotation"`` / ``"joint.translation"``: the angle of
        x_I from x_J about z_J [rad] / the translation of I along z_J [m] of a joint (or motion).

    Returns a ``LinearModel``; ``.modes()`` gives frequencies, damping ratios and shapes. Its
    state matrix includes the first-order states of the force elements that carry them
    (``LinearModel.state_names``). Raises ``AnalysisError`` when the model has no degree of
    freedom, the reduced mass matrix is singular or a load reads joint multipliers (not
    linearized yet), ``KeyError`` for unknown input or output names.
    """
    with single_threaded():
        system, state = _operating_point(as_system(model), at, time)
        return _linear_model(system, state, tuple(inputs), tuple(outputs))


def linear_analysis(model: Model | System, output: str | None = None) -> tuple[Results, LinearModel]:
    """The command line's ``linear`` analysis: the static equilibrium at t = 0 as one-frame
    ``Results`` (streamed to ``output``), the linear model there (no inputs or outputs) and, with
    ``output``, the linear model saved in its group ``linear`` (``LinearModel.load(output)``)."""
    equilibrium_results = statics(model, output=output)
    linear = linearize(model, at=equilibrium_results)
    if output is not None:
        linear.save(output)
    return equilibrium_results, linear


def _operating_point(system: System, at: State | Results | None, time: float | None) -> tuple[System, State]:
    if isinstance(at, Results):
        return system, state_from_results(system, at, time)
    if isinstance(at, State):
        form = CartesianFormulation(system)
        x = at.x if at.x.size else system.x0
        if x.size != system.n_states:
            raise ValueError(
                f"linearize: the State has {x.size} first-order states; model '{system.name}' has {system.n_states}"
            )
        _, lam = form.accelerations(form.evaluate(at.q, at.v, at.t, x))
        return system, State(at.t, at.q, at.v, lam, x)
    if at is not None:
        raise TypeError(f"linearize: 'at' must be None, a State or a Results, got {type(at).__name__}")
    t = 0.0 if time is None else float(time)
    system, start = assembled_state(system, t)
    found = equilibrium(system, start.q, t, x=start.x)
    return system, State(t, found.q, np.zeros(system.n_velocities), found.lam, found.x)


def _linear_model(system: System, state: State, inputs: tuple[str, ...], outputs: tuple[str, ...]) -> LinearModel:
    form = CartesianFormulation(system)
    if form.reads_multipliers:
        readers = system.multiplier_readers
        raise AnalysisError(
            f"linearize: the force elements {', '.join(map(repr, readers))} of model '{system.name}' read joint "
            "multipliers, which the linear model does not include yet"
        )
    n = system.n_velocities
    q, v, t, lam, x = state.q, state.v, state.t, state.lam, state.x
    length_scale = max(1.0, float(np.max(np.abs(system.marker_position), initial=0.0)))
    position_steps = RELATIVE_STEP * kinematics.coordinate_scale(system, length_scale)
    velocity_steps = RELATIVE_STEP * np.maximum(1.0, np.abs(v))
    state_steps = RELATIVE_STEP * np.maximum(system.x_scale, np.abs(x))

    def rates(dq: FloatArray, dv: FloatArray, dx: FloatArray) -> FloatArray:
        """``(Q - G^T lambda, F)`` at the perturbed state."""
        evaluation = form.evaluate(kinematics.displace(system, q, dq), v + dv, t, x + dx, lam)
        return np.concatenate([evaluation.generalized_force - evaluation.G.T @ lam, evaluation.state_rate])

    zero, no_state = np.zeros(n), np.zeros(x.size)
    K_x, F_q = np.split(central_difference(lambda dq: rates(dq, zero, no_state), position_steps), [n])
    C_v, F_v = np.split(central_difference(lambda dv: rates(zero, dv, no_state), velocity_steps), [n])
    Q_s, F_s = (
        np.split(central_difference(lambda dx: rates(zero, zero, dx), state_steps), [n])
        if x.size
        else (np.zeros((n, 0)), np.zeros((0, 0)))
    )
    frames = kinematics.pose(system, q, t)
    G = to_dense(form.constraint_residual(q, t)[1])
    N = la.null_space(G) if G.size else np.eye(n)
    M = to_dense(form.evaluate(q, v, t, x, lam).mass_matrix)
    W = np.zeros((n, n))
    for b, w_B in enumerate(rigid.velocity_blocks(kinematics.frame_velocities(system, v))[:, rigid.ROTATION]):
        rotation = rigid.body_columns(b, rigid.ROTATION)
        W[rotation, rotation] = skew(w_B)

    force_input, motion_input = _inputs(system, frames, G, inputs)
    if N.shape[1] == 0:
        raise AnalysisError(
            f"linearize: model '{system.name}' has no degree of freedom at t = {t:.6g} s; there is nothing to "
            "linearize (remove a motion, or use kinematics for a driven mechanism)"
        )
    if G.size and np.any(np.abs(v) > 1e-12 * max(1.0, float(np.max(np.abs(v))))):
        warnings.warn(
            f"linearize: model '{system.name}' is moving at t = {t:.6g} s and has constraints; the linear model "
            "neglects how the constraint directions turn with the motion (a pendulum mid-swing, for one, gets its "
            "centripetal reaction as extra stiffness). It is exact at equilibria and for unconstrained bodies",
            MovingOperatingPointWarning,
            stacklevel=3,
        )
    mass = N.T @ M @ N
    damping = N.T @ (M @ W - C_v) @ N
    stiffness = -N.T @ (K_x + C_v @ W) @ N
    F0 = N.T @ ((K_x + C_v @ W) @ motion_input + force_input)
    F1 = N.T @ (C_v - M @ W) @ motion_input
    F2 = -N.T @ M @ motion_input
    try:
        A, B, S = state_space(mass, damping, stiffness, F0, F1, F2)
        if x.size:
            A, B = _with_states(A, B, S, mass, N, W, motion_input, Q_s, F_q, F_v, F_s)
    except la.LinAlgError:
        raise AnalysisError(
            f"linearize: the mass matrix of model '{system.name}' is singular in its free coordinates; "
            "give every body that can move a mass and non-zero principal moments of inertia"
        ) from None
    f = N.shape[1]
    output_names, output_function = _outputs(system, outputs)
    y0 = output_function(frames)
    output_jacobian = central_difference(
        lambda dx: _wrapped(
            output_function(kinematics.pose(system, kinematics.displace(system, q, dx), t)) - y0, output_names
        ),
        position_steps,
    )
    C = np.hstack([output_jacobian @ N, np.zeros((len(output_names), f + x.size))])
    D = output_jacobian @ (N @ S + motion_input)
    R_WB = frames.R_WB[:-1]
    basis = rigid.velocity_blocks(kinematics.frame_velocities(system, N)).copy()
    basis[:, rigid.ROTATION] = np.einsum("bij,bjf->bif", R_WB, basis[:, rigid.ROTATION])
    return LinearModel(
        model_name=system.name,
        time=t,
        body_names=system.body_names,
        input_names=_input_names(system, inputs),
        output_names=output_names,
        mass=mass,
        damping=damping,
        stiffness=stiffness,
        A=A,
        B=B,
        C=C,
        D=D,
        motion_basis=basis,
        state_names=tuple(f"{b.owner}[{k}]" for b in system.layout.blocks for k in range(b.nx)) if x.size else (),
    )


def state_space(
    mass: FloatArray, damping: FloatArray, stiffness: FloatArray, F0: FloatArray, F1: FloatArray, F2: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(A (2f, 2f), B (2f, ni), S (f, ni))`` of ``M z'' + C z' + K z = F0 u + F1 u' + F2 u''``.

    The substitutions ``z = xi + S u`` (``S = M^-1 F2``) and ``xi' = eta + E u``
    (``E = M^-1 (F1 - C S)``) remove the input derivatives: ``s = (xi, eta)`` obeys
    ``s' = A s + B u``. ``numpy.linalg.LinAlgError`` if ``M`` is not positive definite.
    """
    factor = la.cho_factor(mass)
    S = la.cho_solve(factor, F2)
    E = la.cho_solve(factor, F1 - damping @ S)
    f = mass.shape[0]
    A = np.block([[np.zeros((f, f)), np.eye(f)], [-la.cho_solve(factor, stiffness), -la.cho_solve(factor, damping)]])
    B = np.vstack([E, la.cho_solve(factor, F0 - stiffness @ S - damping @ E)])
    return A, B, S


def _with_states(
    A: FloatArray,
    B: FloatArray,
    S: FloatArray,
    mass: FloatArray,
    N: FloatArray,
    W: FloatArray,
    motion_input: FloatArray,
    Q_s: FloatArray,
    F_q: FloatArray,
    F_v: FloatArray,
    F_s: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """``A`` (2f + nx, 2f + nx) and ``B`` (2f + nx, ni) of the mechanical state space ``A``, ``B``
    (``state_space``, with its ``S``) bordered by the first-order states (module docstring): their
    load on the mechanics ``Q_s`` (n, nx), and their rates' derivatives ``F_q``, ``F_v`` (nx, n)
    and ``F_s`` (nx, nx). ``numpy.linalg.LinAlgError`` if ``mass`` is not positive definite."""
    f = mass.shape[0]
    factor = la.cho_factor(mass)
    E = B[:f]
    moved = N @ S + motion_input  # position increment per unit input
    T = F_v @ moved
    state_load = la.cho_solve(factor, N.T @ Q_s)
    position_gain = F_q + F_v @ W
    top = np.hstack([A, np.vstack([np.zeros((f, Q_s.shape[1])), state_load])])
    bottom = np.hstack([position_gain @ N, F_v @ N, F_s])
    B_states = position_gain @ moved + F_v @ N @ E + F_s @ T
    return np.vstack([top, bottom]), np.vstack([E, B[f:] + state_load @ T, B_states])


def central_difference(function: Callable[[FloatArray], FloatArray], steps: FloatArray) -> FloatArray:
    """Jacobian (m, n) of ``function`` at 0 by central differences with steps ``steps`` (n,) and
    ``steps / 2``, Richardson-extrapolated (truncation error O(h^4)): a stiff cable's axial strain
    grows as the square of a transverse step over its short elements, which a plain central
    difference at ``RELATIVE_STEP`` turns into a 0.03 % error on its first frequency."""
    columns = []
    for k, h in enumerate(steps):
        dx = np.zeros(len(steps))
        dx[k] = h
        coarse = (function(dx) - function(-dx)) / (2.0 * h)
        fine = (function(0.5 * dx) - function(-0.5 * dx)) / h
        columns.append((4.0 * fine - coarse) / 3.0)
    return np.column_stack(columns) if columns else np.zeros((0, 0))


# -- inputs ------------------------------------------------------------------------------------
def _split(name: str) -> tuple[str, str | None]:
    head, _, last = name.rpartition(".")
    return (head, last) if head and last in COMPONENTS else (name, None)


def _input_names(system: System, inputs: tuple[str, ...]) -> tuple[str, ...]:
    names = []
    for name in inputs:
        element, component = _split(name)
        if element in system.force_names and component is None:
            names += [f"{element}.{c}" for c in COMPONENTS]
        else:
            names.append(name)
    return tuple(names)


def _inputs(system: System, frames: Pose, G: FloatArray, inputs: tuple[str, ...]) -> tuple[FloatArray, FloatArray]:
    """``(generalized force per unit force input, position increment per unit motion input)``,
    both (n_velocities, ni), each zero in the other kind's columns."""
    n = system.n_velocities
    names = _input_names(system, inputs)
    force_input = np.zeros((n, len(names)))
    motion_input = np.zeros((n, len(names)))
    loads = system.force_group("applied_load")
    driver_kinds = (KIND["rotation_driver"], KIND["translation_driver"])
    for column, name in enumerate(names):
        element, component = _split(name)
        if element in system.force_names and component is not None:
            index = system.force_names.index(element)
            matches = np.flatnonzero(loads.element == index) if loads is not None else np.zeros(0, dtype=int)
            if matches.size == 0:
                raise KeyError(
                    f"input '{name}': force '{element}' is not a PointForce or PointTorque; only applied loads "
                    "and motions can be inputs"
                )
            k = int(matches[0])
            marker = loads.marker[k]
            body = system.marker_body[marker]
            direction = np.eye(3)[COMPONENTS.index(component)]
            if loads.in_marker_axes[k]:
                direction = frames.R_WM[marker] @ direction
            if body < 0:
                continue  # a load on the ground moves nothing
            R_WB = frames.R_WB[body]
            translation, rotation = (
                rigid.body_columns(body, rigid.TRANSLATION),
                rigid.body_columns(body, rigid.ROTATION),
            )
            if loads.is_torque[k]:
                force_input[rotation, column] = R_WB.T @ direction
            else:
                force_input[translation, column] = direction
                force_input[rotation, column] = R_WB.T @ cross(frames.p_BM_W[marker], direction)
        elif (
            element in system.constraint_names
            and system.constraint_kinds[system.constraint_names.index(element)] == "motion"
            and component is None
        ):
            rows = np.flatnonzero(
                (system.rows.element == system.constraint_names.index(element))
                & np.isin(system.rows.kind, driver_kinds)
            )
            unit = np.zeros(G.shape[0])
            unit[rows] = 1.0
            motion_input[:, column] = la.lstsq(G, unit, cond=1e-12)[0]
        else:
            motions = [c for c, kind in zip(system.constraint_names, system.constraint_kinds) if kind == "motion"]
            applied = [system.force_names[e] for e in loads.element]
            raise KeyError(
                f"unknown input '{name}': inputs are applied loads ({', '.join(applied) or 'none'}; optionally "
                f"with .x/.y/.z) or motions ({', '.join(motions) or 'none'})"
            )
    return force_input, motion_input


# -- outputs -----------------------------------------------------------------------------------
def _outputs(system: System, outputs: tuple[str, ...]) -> tuple[tuple[str, ...], Callable[[Pose], FloatArray]]:
    """Output names (markers expanded to x, y, z) and the function of a pose that evaluates them."""
    names: list[str] = []
    evaluators: list[Callable[[Pose], float]] = []
    for spec in outputs:
        element, component = _split(spec)
        if element in system.marker_names:
            marker = system.marker_names.index(element)
            for c in (component,) if component else tuple(COMPONENTS):
                names.append(f"{element}.{c}")
                evaluators.append(partial(marker_coordinate, marker=marker, axis=COMPONENTS.index(c)))
            continue
        joint, _, coordinate = spec.rpartition(".")
        if joint in system.constraint_names and coordinate in ("rotation", "translation"):
            i_marker, j_marker = system.constraint_markers[system.constraint_names.index(joint)]
            evaluators.append(
                partial(joint_coordinate, i_marker=i_marker, j_marker=j_marker, rotation=coordinate == "rotation")
            )
            names.append(spec)
            continue
        raise KeyError(
            f"unknown output '{spec}': outputs are marker displacements 'body/marker' or 'body/marker.x' "
            f"(markers: {', '.join(system.marker_names)}) or joint coordinates 'joint.rotation' / 'joint.translation' "
            f"(joints: {', '.join(system.constraint_names) or 'none'})"
        )
    return tuple(names), lambda frames: np.array([evaluate(frames) for evaluate in evaluators])


def marker_coordinate(frames: Pose, marker: int, axis: int) -> float:
    """World coordinate ``axis`` (0, 1, 2) of the origin of marker ``marker`` [m]."""
    return float(frames.p_WM_W[marker, axis])


def joint_coordinate(frames: Pose, i_marker: int, j_marker: int, rotation: bool) -> float:
    """Angle of x_I from x_J about z_J [rad] (``rotation``) or translation of I along z_J [m]."""
    R_J = frames.R_WM[j_marker]
    if rotation:
        x_I = frames.R_WM[i_marker][:, 0]
        return float(np.arctan2(x_I @ R_J[:, 1], x_I @ R_J[:, 0]))
    return float(R_J[:, 2] @ (frames.p_WM_W[i_marker] - frames.p_WM_W[j_marker]))


def _wrapped(difference: FloatArray, names: tuple[str, ...]) -> FloatArray:
    """Differences of output values with angles brought into (-pi, pi]."""
    angles = np.array([name.endswith(".rotation") for name in names], dtype=bool)
    return np.where(angles, np.angle(np.exp(1j * difference)), difference)
