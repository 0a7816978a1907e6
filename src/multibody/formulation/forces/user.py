"""Kernel of the user-force family: a Python law per element that may read markers, its own
first-order states and joint multipliers (``multibody.model.forces.user``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
    load_power,
)
from multibody.model.element import ModelError
from multibody.model.forces.applied import MarkerState
from multibody.model.forces.base import ForceElement
from multibody.model.forces.user import UserForce, UserForceInput, UserLaw


@dataclass(frozen=True)
class UserForces:
    """User laws with the markers and joints they read and where their states sit."""

    element: IntArray
    law: tuple[UserLaw, ...]
    markers: tuple[IntArray, ...]
    """per element, the indices of the markers its law reads (its I and J markers first)"""
    joints: tuple[IntArray, ...]
    """per element, the constraint elements whose multipliers its law reads"""
    states: tuple[slice, ...]
    """per element, where its first-order states are in ``x``"""


def _user_forces(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> UserForces:
    return UserForces(
        element_indices(members),
        tuple(f.law for _, f in members),
        tuple(np.array([context.marker(m) for m in f.attached_markers()], dtype=np.int64) for _, f in members),
        tuple(np.array([context.constraint(j) for j in f.read_joints], dtype=np.int64) for _, f in members),
        tuple(context.states(f) for _, f in members),
    )


def _user_force_loads(group: UserForces, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Call every user law once; fill its rows and its states' rates."""
    system = inputs.system
    p_M, v_M, R_WM, w_M = inputs.p_M, inputs.v_M, inputs.R_WM, inputs.w_M
    for element, law, markers, joints, states in zip(
        group.element, group.law, group.markers, group.joints, group.states
    ):
        name = system.force_names[element]
        law_input = UserForceInput(
            inputs.t,
            inputs.x[states].copy(),
            {system.marker_names[m]: MarkerState(p_M[m], v_M[m], R_WM[m], w_M[m]) for m in markers},
            {system.constraint_names[j]: inputs.lam[system.active_rows_of[j]] for j in joints},
        )
        try:
            returned = law(law_input)
            F = np.asarray(returned[0], dtype=float).reshape(3)
            T = np.asarray(returned[1], dtype=float).reshape(3)
            rates = np.asarray(returned[2] if len(returned) > 2 else (), dtype=float).reshape(-1)
        except ModelError:
            raise
        except Exception as error:  # the user's law: say which element and what it must return
            raise ModelError(
                f"force '{name}': its law raised {type(error).__name__}: {error} "
                "(it must return (force (3,), torque (3,)[, state rates]))"
            ) from error
        if rates.size != states.stop - states.start:
            raise ModelError(
                f"force '{name}': its law returned {rates.size} state rates for {states.stop - states.start} states"
            )
        out.force[element], out.torque[element], out.state_rate[states] = F, T, rates
        out.value[element] = float(np.linalg.norm(F) or np.linalg.norm(T))
        out.input_power += load_power(F, T, *system.force_markers[element], inputs)


USER_FORCE = ForceFamily("user_force", (UserForce,), _user_forces, _user_force_loads)
