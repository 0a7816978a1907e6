"""Hydraulic cylinders (``multibody.model.forces.hydraulic``): chamber pressures as first-order
states, solved with the mechanics.

References (closed forms and conservation laws, nothing tuned):
- a mass on a closed cylinder oscillates at sqrt(k_h / m), k_h = beta (A_0^2 / V_0 + A_1^2 / V_1)
  (the linearized oil springs of both chambers), in both formulations and in the linear model;
- a closed chamber at constant bulk modulus obeys p = p_i - beta ln(V / V_i) exactly;
- energy: kinetic + oil energy + the work of flows and loads is conserved (``total + dissipated``
  constant), the oil energy and flow power being those of ``chamber_energy`` / ``flow_power``;
- oil volume balance: integrated flows = change of chamber volume + compression;
- a valve opened fully against a constant load: the steady piston speed from the orifice
  equation and the force balance, v = Cd a sqrt(2 (p_s A_0 - p_t A_1 - F) / (rho (A_0^3 + A_1^3))).
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb

BETA, BORE, ROD, STROKE = 1.5e9, 0.05, 0.03, 0.5
DEAD = (1e-4, 1e-4)
A0, A1 = np.pi / 4 * BORE**2, np.pi / 4 * (BORE**2 - ROD**2)
RETRACTED = 1.0
"""I-J distance [m] with the piston fully in: the barrel sits at the origin, the rod end at x."""


def cylinder_on_slide(
    mass: float, extension: float, speed: float = 0.0, **cylinder: object
) -> tuple[mb.Model, mb.HydraulicCylinder]:
    """A mass on a frictionless slide along world x, pushed by a cylinder whose barrel is
    grounded at the origin; the piston starts ``extension`` out at ``speed``."""
    model = mb.Model("cylinder", gravity=(0.0, 0.0, 0.0))
    block = model.add(
        mb.RigidBody("block", mass, (0.1, 0.1, 0.1), position=(RETRACTED + extension, 0, 0), velocity=(speed, 0, 0))
    )
    along_x = (1.0, 0.0, 0.0)
    model.add(
        mb.Translational(
            "slide", block.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x)
        )
    )
    options = {"dead_volumes": DEAD, "bulk_modulus": BETA, "retracted_length": RETRACTED} | cylinder
    actuator = model.add(
        mb.HydraulicCylinder(
            "cylinder", block.add_marker("rod"), model.ground.add_marker("barrel"), BORE, ROD, STROKE, **options
        )
    )
    return model, actuator


def downward_crossings(t: np.ndarray, signal: np.ndarray) -> np.ndarray:
    """Times where ``signal`` crosses zero going down, by linear interpolation."""
    k = np.flatnonzero((signal[:-1] > 0.0) & (signal[1:] <= 0.0))
    return t[k] - signal[k] * (t[k + 1] - t[k]) / (signal[k + 1] - signal[k])


def closed_cylinder(speed: float) -> tuple[mb.Model, float]:
    """500 kg on a closed cylinder at 0.25 m extension, its chamber pressures in equilibrium (so
    it oscillates about its start), and the closed-form period [s] of that oscillation."""
    mass, extension, rod_pressure = 500.0, 0.25, 5e6
    model, _ = cylinder_on_slide(mass, extension, speed, initial_pressures=(rod_pressure * A1 / A0, rod_pressure))
    V0, V1 = DEAD[0] + A0 * extension, DEAD[1] + A1 * (STROKE - extension)
    return model, 2 * np.pi / np.sqrt(BETA * (A0**2 / V0 + A1**2 / V1) / mass)


@pytest.mark.parametrize("formulation", ["cartesian", "kane"])
def test_closed_cylinder_oscillates_at_the_hydraulic_natural_frequency(formulation: str) -> None:
    model, period = closed_cylinder(speed=0.01)
    res = mb.dynamics(model, 10 * period, period / 50, rtol=1e-8, formulation=formulation)
    periods = np.diff(downward_crossings(res.time, res.body("block").velocity[:, 0]))
    assert len(periods) >= 8
    # The amplitude (6e-5 m) is 1e-4 of V / A: the nonlinearity shifts the period by ~1e-8;
    # interpolating zero crossings at 50 samples per period and rtol 1e-8 leave ~1e-6.
    assert periods / period == pytest.approx(1.0, abs=1e-5)


def test_linearization_gives_the_hydraulic_natural_frequency() -> None:
    """The pressures are states of the linear model: its one oscillating mode is sqrt(k_h / m)."""
    model, period = closed_cylinder(speed=0.0)
    modes = mb.linearize(model).modes()
    oscillating = modes.frequencies_hz[~modes.rigid_body]
    # Finite-difference state Jacobians (relative steps ~1e-7) leave errors far below 1e-6.
    assert oscillating == pytest.approx([1 / period], rel=1e-6)


def test_closed_chambers_follow_the_isothermal_law_and_conserve_energy() -> None:
    """A heavier swing (pressures changing by 50 %): p = p_i - beta ln(V / V_i) in both chambers,
    and kinetic + oil energy constant."""
    mass, extension, speed = 50.0, 0.2, 0.5
    initial = (2e6, 3e6)
    model, actuator = cylinder_on_slide(mass, extension, speed, initial_pressures=initial)
    res = mb.dynamics(model, 0.05, 0.0005, rtol=1e-9)
    s = res.body("block").position[:, 0] - RETRACTED
    volumes = actuator.chamber_volumes(s)
    pressures = res.hydraulics("cylinder").pressures
    exact = np.asarray(initial) - BETA * np.log(volumes / actuator.chamber_volumes(extension))
    assert np.ptp(pressures[:, 0]) > 1e6  # a real swing
    # rtol 1e-9 on pressures of 1e6-1e7 Pa over a few hundred steps: 1e-2 Pa.
    assert pressures == pytest.approx(exact, abs=1.0)
    energy = res.energy["total"]
    kinetic = 0.5 * mass * speed**2
    # the oil's energy, p^2 V / (2 beta) to first order, is part of the potential energy
    assert energy[0] == pytest.approx(kinetic + np.sum(np.asarray(initial) ** 2 * volumes[0] / (2 * BETA)), rel=1e-3)
    assert np.ptp(energy) < 1e-6 * energy[0]  # conserved to the integration tolerance
    assert res.force("cylinder").value == pytest.approx(pressures @ [A0, -A1], rel=1e-12)


def driven_cylinder(
    load: float, command: object, extension: float = 0.05, **extra: object
) -> tuple[mb.Model, mb.HydraulicCylinder, mb.ProportionalValve]:
    valve = mb.ProportionalValve(command, max_area=1e-5, discharge_coefficient=0.7, density=850.0, time_constant=0.01)
    model, actuator = cylinder_on_slide(
        100.0,
        extension,
        initial_pressures=(load / A0, 0.0),
        supply=mb.HydraulicSupply(1e7, tank_pressure=2e5),
        valve=valve,
        end_stop_stiffness=1e8,
        end_stop_damping=1e5,
        **extra,
    )
    block = model.bodies["block"]
    model.add(mb.PointForce("load", block.add_marker("load"), (-load, 0.0, 0.0)))
    return model, actuator, valve


def test_opened_valve_gives_the_orifice_steady_speed() -> None:
    load, supply, tank = 5e3, 1e7, 2e5
    model, _, valve = driven_cylinder(load, mb.Step(0.0, 0.0, 0.02, 1.0))
    res = mb.dynamics(model, 0.5, 0.01, rtol=1e-8)
    Cd_a = valve.discharge_coefficient * valve.max_area
    speed = Cd_a * np.sqrt(2 * (supply * A0 - tank * A1 - load) / (valve.density * (A0**3 + A1**3)))
    late = res.time > 0.3
    # The laminar regularization changes the flows by (dp_t / dp)^2 / 4 < 5e-6 at these pressure drops.
    assert res.body("block").velocity[late, 0] == pytest.approx(speed, rel=1e-5)
    hydraulics = res.hydraulics("cylinder")
    assert hydraulics.spool_position[-1] == pytest.approx(1.0, abs=1e-9)
    # steady pressures from the orifice equation at Q = A v
    p0 = supply - valve.density / 2 * (A0 * speed / Cd_a) ** 2
    p1 = tank + valve.density / 2 * (A1 * speed / Cd_a) ** 2
    assert hydraulics.pressures[-1] == pytest.approx([p0, p1], rel=1e-5)
    # Energy: flows, the load and the oil's energy balance to the integration tolerance.
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-6 * res.work["input"][-1]


def test_oil_volume_balance() -> None:
    """Integrated flows = change of volume + compression, per chamber: int Q dt = dV + int V/beta dp,
    the last term integrated by parts, d(V p)/beta - int p V'/beta dt, so that every integral is
    one the integrator carries (a DifferentialEquation of the flows and of p V' / beta)."""
    model, actuator, _ = driven_cylinder(2e3, lambda m: np.sin(20 * m.t))
    rod, barrel = actuator.i_marker, actuator.j_marker

    def rates(t: float, x: np.ndarray, measure: mb.Measure) -> np.ndarray:
        states = measure.state(actuator)
        flows = actuator.flows(states[:2], states[2])
        volume_rate = actuator.areas * [1.0, -1.0] * measure.radial_velocity(rod, barrel)
        return np.concatenate([flows, states[:2] * volume_rate / BETA])

    model.add(mb.DifferentialEquation("oil", rates, initial=np.zeros(4), reads=[rod, barrel]))
    res = mb.dynamics(model, 0.3, 0.005, rtol=1e-9)
    pressures = res.hydraulics("cylinder").pressures
    volumes = actuator.chamber_volumes(res.body("block").position[:, 0] - RETRACTED)
    oil = res.state("oil")
    compression = (volumes * pressures - volumes[0] * pressures[0]) / BETA - oil[:, 2:]
    inflow = oil[:, :2]
    assert np.max(np.abs(inflow)) > 1e-5  # litres moved in and out
    # rtol 1e-9 on volumes of 1e-4 m^3: 1e-12 m^3 with a 100x margin for the flows' accumulation.
    assert inflow == pytest.approx(volumes - volumes[0] + compression, abs=1e-10)


def test_end_stop_holds_the_piston() -> None:
    """Pushed out to the end: the stop (k = 1e8 N/m) holds the piston at the stroke plus the
    static deflection F_stop / k, F_stop = p_0 A_0 - p_1 A_1 - load from the steady pressures."""
    load = 5e3
    model, _, _ = driven_cylinder(load, 1.0, extension=0.45)
    res = mb.dynamics(model, 2.0, 0.05, rtol=1e-7)
    pressures = res.hydraulics("cylinder").pressures[-1]
    stop_force = pressures @ [A0, -A1] - load
    extension = res.body("block").position[-1, 0] - RETRACTED
    assert res.body("block").velocity[-1, 0] == pytest.approx(0.0, abs=1e-6)
    assert extension == pytest.approx(STROKE + stop_force / 1e8, abs=1e-7)
    assert pressures[0] == pytest.approx(1e7, rel=1e-3)  # no flow: the cap side reaches the supply


def test_relief_valve_limits_the_pressure() -> None:
    """Held at the end stop with the valve open, the cap chamber fills from the supply until the
    relief (cracking at 60 bar, G = 1e-10 m^3/(s Pa)) lets out what the valve lets in:
    Cd a sqrt(2 (p_s - p_0) / rho) = G (p_0 - p_c), a quadratic in y = sqrt(p_s - p_0)."""
    model, _, valve = driven_cylinder(5e3, 1.0, extension=0.45, relief_pressure=6e6, relief_conductance=1e-10)
    res = mb.dynamics(model, 2.0, 0.05, rtol=1e-7)
    c, G, gap = valve.discharge_coefficient * valve.max_area * np.sqrt(2 / valve.density), 1e-10, 1e7 - 6e6
    y = (-c + np.sqrt(c**2 + 4 * G**2 * gap)) / (2 * G)
    p0 = res.hydraulics("cylinder").pressures[-1, 0]
    assert p0 < 1e7 - 5e5  # the relief did open: without it p_0 reaches the supply (test_end_stop...)
    # (dp_t / dp)^2 / 4 ~ 3e-5 of the flows at dp = 8.6 bar changes p_0 by ~ 40 Pa; settled to rtol.
    assert p0 == pytest.approx(1e7 - y**2, abs=100.0)


def test_bad_input_is_named() -> None:
    model, _ = cylinder_on_slide(1.0, 0.1)
    rod, barrel = model.bodies["block"].markers["rod"], model.ground.markers["barrel"]

    def make(**changes: object) -> mb.HydraulicCylinder:
        arguments = {
            "bore": BORE,
            "rod_diameter": ROD,
            "stroke": STROKE,
            "dead_volumes": DEAD,
            "bulk_modulus": BETA,
        } | changes
        return mb.HydraulicCylinder("bad", rod, barrel, **arguments)

    with pytest.raises(mb.ModelError, match="hydraulic cylinder 'bad': bore must be finite and > 0"):
        make(bore=-0.05)
    with pytest.raises(mb.ModelError, match="'bad': rod_diameter 0.06 m must be smaller than the bore"):
        make(rod_diameter=0.06)
    with pytest.raises(mb.ModelError, match="'bad': bulk_modulus must be finite and > 0"):
        make(bulk_modulus=0.0)
    with pytest.raises(mb.ModelError, match="'bad': dead_volumes must be two volumes"):
        make(dead_volumes=(1e-4,))
    with pytest.raises(mb.ModelError, match="'bad': give both a supply and a valve"):
        make(supply=mb.HydraulicSupply(1e7))
    with pytest.raises(mb.ModelError, match="ProportionalValve: max_area"):
        mb.ProportionalValve(1.0, max_area=-1.0)
    broken, _, _ = driven_cylinder(1e3, lambda measure: 1.0 / 0.0)
    with pytest.raises(mb.AnalysisError, match="hydraulic cylinder 'cylinder': its valve command raised ZeroDivision"):
        mb.dynamics(broken, 0.01, 0.01)
    with pytest.raises(KeyError, match="not a hydraulic cylinder"):
        mb.dynamics(model, 0.01, 0.01).hydraulics("block")
