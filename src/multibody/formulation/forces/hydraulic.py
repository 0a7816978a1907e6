"""Kernel of the hydraulic-cylinder family (``multibody.model.forces.hydraulic``): chamber
pressure rates, valve and relief flows, spool lag, end stops, vectorized over the group; only
the valves' command callables are called per element."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.forces.family import (
    FloatArray,
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
    marker_indices,
    parameters,
)
from multibody.formulation.forces.hydraulic_energy import oil_energy
from multibody.formulation.forces.states import measure_of
from multibody.model.forces.base import ForceElement
from multibody.model.forces.hydraulic import (
    HydraulicCylinder,
    ProportionalValve,
    chamber_volumes,
    piston_motion,
    pressure_rates,
    relief_flows,
    valve_flows,
)
from multibody.model.forces.hydraulic_fluid import ChamberOil, effective_bulk_modulus


@dataclass(frozen=True)
class HydraulicCylinders:
    """Cylinders as arrays (n elements; ``valved`` indexes the ones with a valve)."""

    element: IntArray
    i_marker: IntArray
    j_marker: IntArray
    areas: FloatArray
    """(n, 2) cap piston area, rod annulus [m^2]"""
    dead_volumes: FloatArray
    """(n, 2) [m^3]"""
    stroke: FloatArray
    retracted_length: FloatArray
    oil: ChamberOil
    """(n, 2) the chambers' bulk-modulus laws"""
    pressure_states: IntArray
    """(n, 2) where p_0 and p_1 sit in ``x``"""
    relief_pressure: FloatArray
    """(n,) cracking pressure [Pa], inf without relief valves"""
    relief_conductance: FloatArray
    stop_stiffness: FloatArray
    stop_damping: FloatArray
    stop_depth: FloatArray
    valved: IntArray
    """positions of the cylinders with a valve; the per-valve arrays below follow this order"""
    spool_state: IntArray
    valves: tuple[ProportionalValve, ...]
    max_area: FloatArray
    discharge_coefficient: FloatArray
    density: FloatArray
    time_constant: FloatArray
    transition_pressure: FloatArray
    supply_pressure: FloatArray
    tank_pressure: FloatArray


def _hydraulic_cylinders(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> HydraulicCylinders:
    cylinders: list[HydraulicCylinder] = [f for _, f in members]  # type: ignore[misc]
    first = np.array([context.states(f).start for f in cylinders], dtype=np.int64)
    valved = [k for k, f in enumerate(cylinders) if f.valve is not None]
    valves = tuple(cylinders[k].valve for k in valved)
    supplies = [cylinders[k].supply for k in valved]

    def valve_parameter(attribute: str) -> FloatArray:
        return np.array([getattr(v, attribute) for v in valves], dtype=float)

    return HydraulicCylinders(
        element=element_indices(members),
        i_marker=marker_indices(members, context, "i_marker"),
        j_marker=marker_indices(members, context, "j_marker"),
        areas=np.array([f.areas for f in cylinders]).reshape(-1, 2),
        dead_volumes=parameters(members, "dead_volumes", (2,)),
        stroke=parameters(members, "stroke"),
        retracted_length=np.array(
            [f.input_length() if f.retracted_length is None else f.retracted_length for f in cylinders], dtype=float
        ),
        oil=ChamberOil.stack([ChamberOil.of(f.parameters["bulk_modulus"]) for f in cylinders]),
        pressure_states=np.stack([first, first + 1], axis=-1).reshape(-1, 2),
        relief_pressure=np.array([np.inf if f.relief_pressure is None else f.relief_pressure for f in cylinders]),
        relief_conductance=parameters(members, "relief_conductance"),
        stop_stiffness=parameters(members, "end_stop_stiffness"),
        stop_damping=parameters(members, "end_stop_damping"),
        stop_depth=parameters(members, "end_stop_depth"),
        valved=np.array(valved, dtype=np.int64),
        spool_state=first[valved] + 2,
        valves=valves,  # type: ignore[arg-type]
        max_area=valve_parameter("max_area"),
        discharge_coefficient=valve_parameter("discharge_coefficient"),
        density=valve_parameter("density"),
        time_constant=valve_parameter("time_constant"),
        transition_pressure=valve_parameter("transition_pressure"),
        supply_pressure=np.array([s.pressure for s in supplies], dtype=float),  # type: ignore[union-attr]
        tank_pressure=np.array([s.tank_pressure for s in supplies], dtype=float),  # type: ignore[union-attr]
    )


def _hydraulic_loads(group: HydraulicCylinders, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Force along J -> I from the chamber pressures and stops; pressure and spool rates."""
    x = inputs.x
    along, extension, rate = piston_motion(
        inputs.p_M[group.i_marker] - inputs.p_M[group.j_marker],
        inputs.v_M[group.i_marker] - inputs.v_M[group.j_marker],
        group.retracted_length,
    )
    volumes = chamber_volumes(extension, group.areas, group.dead_volumes, group.stroke)
    pressures = x[group.pressure_states]

    flows = -relief_flows(pressures, group.relief_pressure[:, None], group.relief_conductance[:, None])
    if group.valved.size:
        measure = measure_of(inputs)
        spool = x[group.spool_state]
        names = inputs.system.force_names
        command = np.array(
            [
                valve.command_value(measure, f"hydraulic cylinder '{names[group.element[k]]}'")
                for k, valve in zip(group.valved, group.valves)
            ]
        )
        out.state_rate[group.spool_state] = (command - spool) / group.time_constant
        v = group.valved
        flows[v] += valve_flows(
            spool,
            pressures[v, 0],
            pressures[v, 1],
            group.supply_pressure,
            group.tank_pressure,
            group.max_area,
            group.discharge_coefficient,
            group.density,
            group.transition_pressure,
        )
    out.state_rate[group.pressure_states] = pressure_rates(
        flows, volumes, rate, group.areas, effective_bulk_modulus(pressures, volumes, group.oil)
    )

    below = np.maximum(-extension, 0.0)
    above = np.maximum(extension - group.stroke, 0.0)
    # The stops' damping grows smoothly over the first ``stop_depth`` of penetration (as ADAMS's
    # IMPACT does): no force jump on contact, which would stall the step-size control.
    ramp = np.clip((below + above) / group.stop_depth, 0.0, 1.0)
    stop_damping = group.stop_damping * ramp**2 * (3.0 - 2.0 * ramp)
    force = (
        pressures[:, 0] * group.areas[:, 0]
        - pressures[:, 1] * group.areas[:, 1]
        + group.stop_stiffness * (below - above)
        - stop_damping * rate
    )
    out.force[group.element] = force[:, None] * along
    out.value[group.element] = force
    stored, flow_power = oil_energy(pressures, volumes, flows, group.oil)
    out.potential += float(np.sum(stored) + np.sum(0.5 * group.stop_stiffness * (below**2 + above**2)))
    out.dissipated += float(np.sum(stop_damping * rate**2))
    out.input_power += float(np.sum(flow_power))


HYDRAULIC_CYLINDER = ForceFamily("hydraulic_cylinder", (HydraulicCylinder,), _hydraulic_cylinders, _hydraulic_loads)
