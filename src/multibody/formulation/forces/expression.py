"""Kernel of the state-dependent load family: laws that read any markers' states (ADAMS
SFORCE, VFORCE, VTORQUE, GFORCE; ``multibody.model.forces.expression``)."""

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
from multibody.model.forces.base import ForceElement
from multibody.model.forces.expression import BoundLaw, StateDependentLoad
from multibody.spatial.measurements import Measurements


@dataclass(frozen=True)
class StateDependentLoads:
    """Loads whose laws read marker states (``StateDependentLoad``), bound to marker indices."""

    element: IntArray
    law: tuple[BoundLaw, ...]


def _state_dependent_loads(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> StateDependentLoads:
    return StateDependentLoads(
        element_indices(members),
        tuple(f.law.bind([context.marker(m) for m in f.law.markers]) for _, f in members),
    )


def _expression_loads(group: StateDependentLoads, inputs: LoadInputs, out: LoadOutputs) -> None:
    layout = inputs.system.layout  # None only for hand-made Systems, which have no states
    measurements = Measurements(
        inputs.t,
        inputs.p_M,
        inputs.R_WM,
        inputs.v_M,
        inputs.w_M,
        x=inputs.x,
        states_of=None if layout is None else layout.states_of,
    )
    force_markers = inputs.system.force_markers
    for element, law in zip(group.element, group.law):
        F, T = law(measurements)
        out.force[element], out.torque[element] = F, T
        out.value[element] = float(np.linalg.norm(F) or np.linalg.norm(T))  # the force's size, a torque's if no force
        out.input_power += load_power(F, T, *force_markers[element], inputs)


STATE_DEPENDENT_LOAD = ForceFamily(
    "state_dependent_load", (StateDependentLoad,), _state_dependent_loads, _expression_loads
)
