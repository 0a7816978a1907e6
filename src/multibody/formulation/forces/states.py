"""Kernel of the state-equation family: user differential equations, state space, transfer
functions and PID controllers (``multibody.model.states``).

Each element's law is Python (the user's rate or input callables), called once per element per
evaluation; an element that acts as a load applies its scalar output along (or about) its I
marker's z axis.
"""

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
from multibody.model.states import PID, DifferentialEquation, Measure, StateElement, StateSpace
from multibody.spatial.measurements import Measurements


def measure_of(inputs: LoadInputs) -> Measure:
    """The ``Measure`` laws read at the instant of ``inputs``."""
    system = inputs.system
    states_of = system.layout.states_of
    return Measure(
        inputs.t,
        Measurements(inputs.t, inputs.p_M, inputs.R_WM, inputs.v_M, inputs.w_M, x=inputs.x, states_of=states_of),
        inputs.x,
        system.marker_names.index,
        states_of,
    )


@dataclass(frozen=True)
class StateEquations:
    """The family's elements, where their states sit and how their outputs act."""

    element: IntArray
    law: tuple[StateElement, ...]
    """per element, the model element (its ``evaluate`` is the law)"""
    states: tuple[slice, ...]
    """per element, where its first-order states are in ``x``"""
    acts: IntArray
    """positions (into the above) of the elements whose output is a load"""
    is_torque: IntArray
    """per acting element, 1 when the output is a torque about I's z axis, 0 for a force along it"""


def _state_equations(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> StateEquations:
    laws = tuple(f for _, f in members)
    acts = [k for k, f in enumerate(laws) if f.acts]  # type: ignore[attr-defined]
    return StateEquations(
        element_indices(members),
        laws,  # type: ignore[arg-type]
        tuple(context.states(f) for f in laws),
        np.array(acts, dtype=np.int64),
        np.array([laws[k].load == "torque" for k in acts], dtype=np.int64),  # type: ignore[attr-defined]
    )


def _state_equation_loads(group: StateEquations, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Rates and outputs of every element; the outputs of acting elements as loads."""
    measure = measure_of(inputs)
    outputs = np.zeros(len(group.law))
    for k, (element, law, states) in enumerate(zip(group.element, group.law, group.states)):
        rate, y = measure.evaluate(law)
        out.state_rate[states] = rate
        outputs[k] = y[0] if y.size else 0.0
        out.value[element] = outputs[k]
    if not group.acts.size:
        return
    force_markers = inputs.system.force_markers
    for k, is_torque in zip(group.acts, group.is_torque):
        element = group.element[k]
        i = force_markers[element, 0]
        vector = outputs[k] * inputs.R_WM[i][:, 2]
        if is_torque:
            out.torque[element] = vector
        else:
            out.force[element] = vector
        out.input_power += load_power(out.force[element], out.torque[element], *force_markers[element], inputs)


STATE_EQUATION = ForceFamily(
    "state_equation", (DifferentialEquation, StateSpace, PID), _state_equations, _state_equation_loads
)
