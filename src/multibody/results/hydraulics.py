"""Hydraulic cylinders in the results: pressures and their rates, spool, piston motion, chamber
volumes, flows and power over the output instants. Pressures and spool positions are the
element's stored states; the rest is recomputed from them and the bodies' motion with the
family's own laws (``piston_motion``, ``chamber_volumes``, ``flow_parts``, ``pressure_rates``,
``supply_and_tank_flows`` of ``multibody.model.forces.hydraulic``, which its kernel runs) and the
parameters the scene carries (``HydraulicCylinder.drawing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results


@dataclass(frozen=True)
class HydraulicsHistory:
    """One hydraulic cylinder over the output instants (SI units: ``/ 1e5`` gives bar, ``* 6e4``
    L/min from m^3/s; ``multibody.viz.hydraulic_plots`` plots them so).

    Attributes:
        name: the cylinder's name.
        pressures: (T, 2) gauge pressures of the cap (0) and rod (1) chambers [Pa].
        spool_position: (T,) its valve's normalized spool position [-] (the valve position), None
            without a valve.
        force: (T,) the cylinder's force along its line, + pushing I and J apart [N] (pressures
            and end stops).
        extension: (T,) the piston's extension from fully retracted [m].
        extension_rate: (T,) its rate [m/s], + extending.
        volumes: (T, 2) oil volumes of the cap and rod chambers, dead volumes included [m^3].
        pressure_rates: (T, 2) rates of the chamber pressures [Pa/s], ``beta_e / V (Q - V')``.
        flows: (T, 2) oil flows into the cap and rod chambers [m^3/s]: through the valve, less
            what the relief valves let out (what the pressure rates integrate).
        supply_flow: (T,) flow drawn from the supply through the valve [m^3/s], None without a valve.
        tank_flow: (T,) flow returned to tank through the valve [m^3/s] (relief flows not
            included), None without a valve.
        power: (T,) hydraulic power delivered to the piston [W]: ``(p_0 A_0 - p_1 A_1) s'``, the
            pressure force times the extension rate; + when the oil drives the load, - when the
            load drives the oil. End-stop forces are not included.
        supply_power: (T,) ``p_s Q_supply - p_t Q_tank`` [W]: net hydraulic power the supply and
            tank deliver to the valve; ``supply_power - power`` is throttled in the valve and
            stored in the oil. None without a valve.

    The recomputed fields are None for results without a scene (nothing to recompute them from).
    """

    name: str
    pressures: FloatArray
    spool_position: FloatArray | None
    force: FloatArray
    extension: FloatArray | None = None
    extension_rate: FloatArray | None = None
    volumes: FloatArray | None = None
    pressure_rates: FloatArray | None = None
    flows: FloatArray | None = None
    supply_flow: FloatArray | None = None
    tank_flow: FloatArray | None = None
    power: FloatArray | None = None
    supply_power: FloatArray | None = None


def hydraulics_history(
    results: Results, name: str, cylinder: dict[str, Any] | None, markers: list[dict[str, Any]]
) -> HydraulicsHistory:
    """The history of cylinder ``name`` from ``results``, its scene entry ``cylinder`` (None when
    the results carry no scene: then only the stored states) and the scene's ``markers``."""
    from multibody.model.forces.hydraulic import (
        chamber_volumes,
        flow_parts,
        piston_motion,
        pressure_rates,
        supply_and_tank_flows,
    )
    from multibody.model.forces.hydraulic_fluid import ChamberOil, effective_bulk_modulus
    from multibody.results.markers import marker_frames, marker_velocities

    states = results.state(name)
    pressures = states[:, :2]
    spool = states[:, 2] if states.shape[1] > 2 else None
    force = results.force(name).value
    if cylinder is None or "hydraulics" not in cylinder:
        return HydraulicsHistory(name, pressures, spool, force)
    parameters = cylinder["hydraulics"]
    ends = [markers[cylinder["i"]], markers[cylinder["j"]]]
    p_WM, _ = marker_frames(results, ends)
    v_WM = marker_velocities(results, ends)
    _, extension, extension_rate = piston_motion(
        p_WM[:, 0] - p_WM[:, 1], v_WM[:, 0] - v_WM[:, 1], cylinder["retracted_length"]
    )
    areas = np.asarray(parameters["areas"])
    volumes = chamber_volumes(extension, areas, np.asarray(parameters["dead_volumes"]), parameters["stroke"])
    through_valve, relieved = flow_parts(pressures, spool, parameters)
    flows = through_valve - relieved
    bulk_modulus = effective_bulk_modulus(pressures, volumes, ChamberOil.of(parameters["bulk_modulus"]))
    power = (pressures[:, 0] * areas[0] - pressures[:, 1] * areas[1]) * extension_rate
    supply_flow = tank_flow = supply_power = None
    valve = parameters["valve"]
    if valve is not None:
        supply_flow, tank_flow = supply_and_tank_flows(spool, through_valve)  # type: ignore[arg-type]
        supply_power = valve["supply_pressure"] * supply_flow - valve["tank_pressure"] * tank_flow
    return HydraulicsHistory(
        name,
        pressures,
        spool,
        force,
        extension,
        extension_rate,
        volumes,
        pressure_rates(flows, volumes, extension_rate, areas, bulk_modulus),
        flows,
        supply_flow,
        tank_flow,
        power,
        supply_power,
    )
