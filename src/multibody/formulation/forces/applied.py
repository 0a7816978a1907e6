"""Kernel of the applied-load family: point forces and torques given as functions of time and
of their marker's state (``multibody.model.forces.applied``). One Python law per element."""

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
    marker_indices,
)
from multibody.model.forces.applied import LoadLaw, MarkerState, PointForce, PointTorque
from multibody.model.forces.base import ForceElement


@dataclass(frozen=True)
class AppliedLoads:
    """Point forces and torques: one Python law per element (user callables cannot be vectorized)."""

    element: IntArray
    marker: IntArray
    law: tuple[LoadLaw, ...]
    in_marker_axes: tuple[bool, ...]
    is_torque: tuple[bool, ...]


def _applied_loads(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> AppliedLoads:
    return AppliedLoads(
        element_indices(members),
        marker_indices(members, context, "i_marker"),
        tuple(f.law for _, f in members),
        tuple(f.frame == "marker" for _, f in members),
        tuple(isinstance(f, PointTorque) for _, f in members),
    )


def _applied_load_loads(group: AppliedLoads, inputs: LoadInputs, out: LoadOutputs) -> None:
    p_M, v_M, R_WM, w_M = inputs.p_M, inputs.v_M, inputs.R_WM, inputs.w_M
    for element, marker, law, in_marker_axes, is_torque in zip(
        group.element, group.marker, group.law, group.in_marker_axes, group.is_torque
    ):
        vector = np.asarray(law(inputs.t, MarkerState(p_M[marker], v_M[marker], R_WM[marker], w_M[marker])), float)
        vector = vector.reshape(3)
        if in_marker_axes:
            vector = R_WM[marker] @ vector
        if is_torque:
            out.torque[element] = vector
            out.input_power += float(vector @ w_M[marker])
        else:
            out.force[element] = vector
            out.input_power += float(vector @ v_M[marker])
        out.value[element] = float(np.linalg.norm(vector))


APPLIED_LOAD = ForceFamily("applied_load", (PointForce, PointTorque), _applied_loads, _applied_load_loads)
