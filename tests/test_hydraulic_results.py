"""Hydraulic cylinders in the results (``res.hydraulics(name)``, ``multibody.results.hydraulics``):
flows, supply and tank flows, power to the piston and from the supply, recomputed from the
stored pressures, spool position and bodies' motion; and their plot in bar, L/min and kW.

References (conservation laws and closed forms, nothing tuned):
- oil volume balance through the ``flows`` channel: int Q dt = dV + int V/beta dp per chamber;
- the power channel against the mechanical energy it feeds: int P dt = dT + work against the load;
- a valve held open against a constant load: at the orifice-equation steady speed v, the piston
  power is F v, the supply power p_s A_0 v - p_t A_1 v and the flows A_0 v and -A_1 v.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson
from test_hydraulics import A0, A1, BETA, closed_cylinder, driven_cylinder

import multibody as mb

SUPPLY, TANK = 1e7, 2e5
"""The supply and tank pressures of ``driven_cylinder`` [Pa]."""


@pytest.fixture(scope="module")
def oscillating() -> tuple[mb.Results, float]:
    """A valve driven by sin(20 t) moving 100 kg against 2 kN: flows in and out of both chambers,
    the oil compressed and relaxed. Output every 0.25 ms (the balances integrate the channels on
    the output grid), rtol 1e-10. Returns the results and the load."""
    load = 2e3
    model, _, _ = driven_cylinder(load, lambda measure: np.sin(20 * measure.t))
    return mb.dynamics(model, 0.3, 0.00025, rtol=1e-10), load


def integral(values: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Running integral from t[0] (Simpson's rule on the output grid), along axis 0."""
    return cumulative_simpson(values, x=t, axis=0, initial=0.0)


def test_flows_balance_the_chamber_volumes_and_the_compression(oscillating) -> None:
    """Per chamber int Q dt = dV + int V / beta dp = dV + (V p - V_0 p_0) / beta - int p V' / beta dt,
    the flows from the channel (the valve law at the stored pressures and spool), the volumes and
    V' = +-A s' from the bodies' motion."""
    res, _ = oscillating
    hydraulics = res.hydraulics("cylinder")
    t, p = res.time, hydraulics.pressures
    s = hydraulics.extension
    volumes = np.stack([1e-4 + A0 * s, 1e-4 + A1 * (0.5 - s)], axis=-1)  # DEAD, STROKE of test_hydraulics
    volume_rate = np.stack([A0, -A1]) * hydraulics.extension_rate[:, None]
    compression = (volumes * p - volumes[0] * p[0]) / BETA - integral(p * volume_rate / BETA, t)
    inflow = integral(hydraulics.flows, t)
    assert np.ptp(inflow, axis=0).min() > 5e-5  # tens of millilitres in and out of each chamber
    assert np.ptp(compression, axis=0).min() > 5e-7  # the compression term matters
    # The misfit is Simpson's rule on the output grid over the flows' hydraulic-mode ripple: measured
    # 1.6e-9, 2.6e-10, 2.9e-11 m^3 at 1, 0.5, 0.25 ms output steps (~9x less per halving: quadrature,
    # not physics; rtol 1e-9 instead of 1e-10 changes it by < 1e-12). Bound: 3x the 0.25 ms misfit,
    # 2e-6 of the ~5e-5 m^3 moved.
    assert inflow == pytest.approx(volumes - volumes[0] + compression, abs=1e-10)


def test_pressure_rates_integrate_to_the_stored_pressures(oscillating) -> None:
    """The ``pressure_rates`` channel (the kernel's law at the stored states) integrated over the
    run gives back the pressures the integrator stored, and ``volumes`` are the chamber volumes."""
    res, _ = oscillating
    hydraulics = res.hydraulics("cylinder")
    s = hydraulics.extension
    volumes = np.stack([1e-4 + A0 * s, 1e-4 + A1 * (0.5 - s)], axis=-1)
    assert hydraulics.volumes == pytest.approx(volumes, rel=1e-14)
    swing = np.ptp(hydraulics.pressures, axis=0)
    assert swing.min() > 5e6  # 50 bar and more
    # Simpson's rule on the output grid over rates up to 2e8 Pa/s: measured misfits 600 and 120 Pa
    # at 0.5 and 0.25 ms output steps (quadrature, ~5x less per halving). Bound: 300 Pa, 4e-5 of the swing.
    integrated = integral(hydraulics.pressure_rates, res.time)
    assert integrated == pytest.approx(hydraulics.pressures - hydraulics.pressures[0], abs=300.0)


def test_piston_power_is_the_rate_of_the_mechanical_energy(oscillating) -> None:
    """int (p_0 A_0 - p_1 A_1) s' dt = kinetic energy gained + work done against the load (the
    slide is frictionless and the end stops are never touched)."""
    res, load = oscillating
    hydraulics = res.hydraulics("cylinder")
    block = res.body("block")
    s = hydraulics.extension
    assert 0.0 < s.min() and s.max() < 0.5  # inside the stroke: no end-stop force
    kinetic = 0.5 * 100.0 * np.sum(block.velocity**2, axis=1)
    load_work = load * (block.position[:, 0] - block.position[0, 0])
    assert hydraulics.power == pytest.approx(hydraulics.force * hydraulics.extension_rate, rel=1e-12)
    delivered = integral(hydraulics.power, res.time)
    assert np.ptp(delivered) > 10.0  # joules moved back and forth
    # Simpson's rule on the output grid again: measured misfits 1.0e-4, 6.7e-6, 4.8e-7 J at 1, 0.5,
    # 0.25 ms output steps (~14x less per halving). Bound: 4x the 0.25 ms misfit, 2e-8 of the ~90 J moved.
    assert delivered == pytest.approx(kinetic - kinetic[0] + load_work, abs=2e-6)


def test_steady_speed_power_and_flows_match_the_orifice_equation() -> None:
    """A valve held open against 5 kN: the steady speed v = Cd a sqrt(2 (p_s A_0 - p_t A_1 - F) /
    (rho (A_0^3 + A_1^3))); the piston takes F v, the supply gives p_s A_0 v - p_t A_1 v, the
    difference is throttled in the valve's two orifices, rho / 2 (Q / (Cd a))^2 Q each."""
    load = 5e3
    model, _, valve = driven_cylinder(load, mb.Step(0.0, 0.0, 0.02, 1.0))
    res = mb.dynamics(model, 0.5, 0.01, rtol=1e-8)
    Cd_a = valve.discharge_coefficient * valve.max_area
    speed = Cd_a * np.sqrt(2 * (SUPPLY * A0 - TANK * A1 - load) / (valve.density * (A0**3 + A1**3)))
    late = res.time > 0.3
    hydraulics = res.hydraulics("cylinder")
    # The laminar regularization changes the flows by (dp_t / dp)^2 / 4 < 5e-6 at these pressure
    # drops (test_hydraulics.test_opened_valve_gives_the_orifice_steady_speed): rel 1e-5.
    assert hydraulics.extension_rate[late] == pytest.approx(speed, rel=1e-5)
    assert hydraulics.flows[late] == pytest.approx(np.tile([A0 * speed, -A1 * speed], (late.sum(), 1)), rel=1e-5)
    assert hydraulics.supply_flow[late] == pytest.approx(A0 * speed, rel=1e-5)
    assert hydraulics.tank_flow[late] == pytest.approx(A1 * speed, rel=1e-5)
    assert hydraulics.power[late] == pytest.approx(load * speed, rel=1e-5)
    assert hydraulics.supply_power[late] == pytest.approx(SUPPLY * A0 * speed - TANK * A1 * speed, rel=1e-5)
    throttled = sum(valve.density / 2 * (Q / Cd_a) ** 2 * Q for Q in (A0 * speed, A1 * speed))
    assert (hydraulics.supply_power - hydraulics.power)[late] == pytest.approx(throttled, rel=1e-4)
    assert hydraulics.spool_position[late] == pytest.approx(1.0, abs=1e-9)


def test_a_closed_cylinder_has_no_flows_and_the_channels_survive_a_file(tmp_path) -> None:
    model, _ = closed_cylinder(speed=0.01)
    res = mb.dynamics(model, 0.01, 0.001)
    hydraulics = res.hydraulics("cylinder")
    assert np.all(hydraulics.flows == 0.0)
    assert hydraulics.spool_position is None and hydraulics.supply_flow is None and hydraulics.supply_power is None
    res.save(tmp_path / "closed.h5")
    loaded = mb.Results.load(tmp_path / "closed.h5").hydraulics("cylinder")
    assert loaded.power == pytest.approx(hydraulics.power, rel=1e-15, abs=0.0)
    assert np.ptp(loaded.power) > 0.0  # the mass swings on the oil spring
    # Results without a scene keep the stored states and have nothing to recompute the rest from.
    bare = mb.Results(dataclasses.replace(res.layout, scene=""), res.arrays).hydraulics("cylinder")
    assert bare.pressures == pytest.approx(hydraulics.pressures, rel=0.0, abs=0.0)
    assert bare.flows is None and bare.power is None


def test_plot_shows_bar_litres_per_minute_and_kilowatts(oscillating) -> None:
    """The figure's panels carry the engineering units, and their curves are the SI channels scaled."""
    res, _ = oscillating
    figure = mb.plot_hydraulics(res)
    axes = {ax.get_ylabel(): ax for ax in figure.axes}
    assert list(axes) == [
        "pressure [bar]",
        "flow into chamber [L/min]",
        "spool position [-]",
        "hydraulic power [kW]",
        "piston extension [m]",
    ]
    hydraulics = res.hydraulics("cylinder")
    cap_pressure, rod_pressure = axes["pressure [bar]"].lines
    assert cap_pressure.get_ydata() == pytest.approx(hydraulics.pressures[:, 0] / 1e5, rel=1e-15)
    assert rod_pressure.get_label() == "cylinder rod"
    cap_flow = axes["flow into chamber [L/min]"].lines[0]
    assert cap_flow.get_ydata() == pytest.approx(hydraulics.flows[:, 0] * 60e3, rel=1e-12)
    piston, supply = axes["hydraulic power [kW]"].lines
    assert piston.get_ydata() == pytest.approx(hydraulics.power / 1e3, rel=1e-15)
    assert piston.get_ydata() == pytest.approx(hydraulics.power / 1e3, rel=1e-15)
    assert supply.get_ydata() == pytest.approx(hydraulics.supply_power / 1e3, rel=1e-15)
    with pytest.raises(KeyError, match="not a hydraulic cylinder; cylinders: cylinder"):
        mb.plot_hydraulics(res, "block")
