"""The effective bulk modulus of hydraulic chambers (``multibody.model.forces.hydraulic_fluid``):
oil with entrained air, in series with the hoses' and the barrel wall's compliance.

References (closed forms, hand calculations and conservation laws, nothing tuned):
- Merritt's series formula 1 / beta_e = 1 / beta_f + (V_h / V) / beta_h + (1 - V_h / V) / beta_w
  and the oil-air mixture's 1 / beta_f = (1 - alpha) / beta_l + alpha / (n P), evaluated by hand;
- without air and compliance the law is the constant modulus: the same motion as ``bulk_modulus=beta``;
- a mass on a closed cylinder oscillates at sqrt(k_h / m), k_h = sum beta_e(p_i) A_i^2 / V_i at the
  equilibrium pressures, in the dynamics and in the linear model;
- a closed chamber with air and no compliance keeps its oil-air mass: v(p) / V constant, v the
  mixture's specific volume;
- energy: kinetic + the oil's stored energy + the work of flows and loads is conserved.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_hydraulics import A0, A1, BETA, DEAD, RETRACTED, STROKE, closed_cylinder, cylinder_on_slide, driven_cylinder

import multibody as mb

ATMOSPHERE = 1e5


def mixture_modulus(p: float, oil: float, air: float, n: float) -> float:
    """beta_f [Pa] of oil with air fraction ``air`` at 1 bar (absolute): liquid at constant modulus,
    air polytropic, volumes additive -- written out from the definition beta = -V dp/dV."""
    absolute = p + ATMOSPHERE
    liquid = (1 - air) * np.exp(-p / oil)  # liquid volume per mixture volume at p = 0
    gas = air * (ATMOSPHERE / absolute) ** (1 / n)  # P V^n = const
    return (liquid + gas) / (liquid / oil + gas / (n * absolute))


def test_series_formula_by_hand() -> None:
    """Hoses (40 % and 25 % of the chambers, beta_h = 4e8) and walls (beta_w = 2e10) in series with
    air-free oil (1.6e9): 1/beta_e = 6.25e-10 + 0.4/4e8 + 0.6/2e10 = 1.655e-9 and 6.25e-10 + 0.25/4e8
    + 0.75/2e10 = 1.2875e-9 1/Pa. With 1 % air at 1 bar, isothermal, at zero gauge pressure the
    mixture's 1/beta_f = 0.99/1.6e9 + 0.01/1e5 = 1.0061875e-7 1/Pa. Tolerance: round-off."""
    law = mb.EffectiveBulkModulus(1.6e9, hose_volumes=(4e-5, 2e-5), hose_modulus=4e8, wall_modulus=2e10)
    beta = law.effective([3e6, 1e5], [1e-4, 8e-5])
    assert beta == pytest.approx([1 / 1.655e-9, 1 / 1.2875e-9], rel=1e-14)
    aerated = mb.EffectiveBulkModulus(1.6e9, air_fraction=0.01, polytropic_exponent=1.0)
    assert aerated.fluid(0.0) == pytest.approx(1 / 1.0061875e-7, rel=1e-14)
    # at 100 bar gauge the air has shrunk to 1/101 of its volume and the oil by exp(-1e7 / 1.6e9)
    gas, liquid = 0.01 / 101, 0.99 * np.exp(-1e7 / 1.6e9)
    alpha = gas / (gas + liquid)
    assert aerated.fluid(1e7) == pytest.approx(1 / ((1 - alpha) / 1.6e9 + alpha / 1.01e7), rel=1e-14)
    assert aerated.fluid([0.0, 1e7, 4e7]) == pytest.approx(
        [mixture_modulus(p, 1.6e9, 0.01, 1.0) for p in (0.0, 1e7, 4e7)], rel=1e-14
    )


def test_air_free_rigid_law_is_the_constant_modulus() -> None:
    """``EffectiveBulkModulus(oil=beta)`` (no air, hoses or walls) moves a valve-driven cylinder
    exactly as ``bulk_modulus=beta``: the kernel returns beta itself, so the runs agree bit for bit;
    the stored energy, the same closed form written differently, to round-off."""
    runs = []
    for bulk_modulus in (BETA, mb.EffectiveBulkModulus(BETA)):
        model, _, _ = driven_cylinder(2e3, lambda measure: np.sin(20 * measure.t), bulk_modulus=bulk_modulus)
        runs.append(mb.dynamics(model, 0.1, 0.001, rtol=1e-8))
    constant, effective = runs
    assert np.array_equal(constant.state("cylinder"), effective.state("cylinder"))
    assert np.array_equal(constant.body("block").position, effective.body("block").position)
    assert effective.energy["potential"] == pytest.approx(constant.energy["potential"], rel=1e-12)
    assert effective.hydraulics("cylinder").pressure_rates == pytest.approx(
        constant.hydraulics("cylinder").pressure_rates, rel=1e-12
    )


AERATED = mb.EffectiveBulkModulus(
    BETA, air_fraction=0.005, polytropic_exponent=1.4, hose_volumes=(5e-5, 5e-5), hose_modulus=5e8, wall_modulus=3e10
)
"""Oil with 0.5 % air at 1 bar, half of each dead volume in hoses, a steel barrel."""


def effective_by_hand(p: float, volume: float, hose_volume: float) -> float:
    """beta_e of ``AERATED`` [Pa] from the series formula and ``mixture_modulus``."""
    share = hose_volume / volume
    return 1 / (1 / mixture_modulus(p, BETA, 0.005, 1.4) + share / 5e8 + (1 - share) / 3e10)


def aerated_closed_cylinder(speed: float) -> tuple[mb.Model, float]:
    """``closed_cylinder`` of test_hydraulics (500 kg at 0.25 m, rod side at 50 bar in equilibrium)
    with the ``AERATED`` oil, and the closed-form period from beta_e at the equilibrium pressures."""
    mass, extension, rod_pressure = 500.0, 0.25, 5e6
    pressures = (rod_pressure * A1 / A0, rod_pressure)
    model, _ = cylinder_on_slide(mass, extension, speed, initial_pressures=pressures, bulk_modulus=AERATED)
    V0, V1 = DEAD[0] + A0 * extension, DEAD[1] + A1 * (STROKE - extension)
    stiffness = (
        effective_by_hand(pressures[0], V0, 5e-5) * A0**2 / V0 + effective_by_hand(pressures[1], V1, 5e-5) * A1**2 / V1
    )
    return model, 2 * np.pi / np.sqrt(stiffness / mass)


def test_aerated_closed_cylinder_oscillates_at_the_effective_frequency() -> None:
    model, period = aerated_closed_cylinder(speed=0.001)
    _, air_free_period = closed_cylinder(speed=0.0)
    assert period > 1.15 * air_free_period  # air, hoses and walls soften the oil spring: 20 % longer
    res = mb.dynamics(model, 10 * period, period / 50, rtol=1e-9)
    velocity = res.body("block").velocity[:, 0]
    k = np.flatnonzero((velocity[:-1] > 0.0) & (velocity[1:] <= 0.0))
    crossings = res.time[k] - velocity[k] * (res.time[k + 1] - res.time[k]) / (velocity[k + 1] - velocity[k])
    periods = np.diff(crossings)
    assert len(periods) >= 8
    # An amplitude of 6e-6 m swings the pressures by ~5e4 Pa, over which beta_e changes by ~1e-3
    # relative (the cap side's air): the period shifts by ~1e-7; zero crossings interpolated at 50
    # samples per period at rtol 1e-9 leave ~1e-6 (measured 6e-7).
    assert periods / period == pytest.approx(1.0, abs=1e-5)


def test_linearization_gives_the_effective_hydraulic_stiffness() -> None:
    """The linear model at the pressurized equilibrium: one mode at sqrt(beta_e(p) A^2 / (m V))."""
    model, period = aerated_closed_cylinder(speed=0.0)
    modes = mb.linearize(model).modes()
    # Finite-difference state Jacobians (relative steps ~1e-7) leave errors far below 1e-6.
    assert modes.frequencies_hz[~modes.rigid_body] == pytest.approx([1 / period], rel=1e-6)


def test_closed_aerated_chambers_keep_their_mass_and_energy() -> None:
    """A swing from 5 and 10 bar over 25 ms: the air is compressed and expands (beta_e from ~1e8 to 1e9 Pa).
    Without walls or hoses the chamber's mixture mass is conserved, v(p) / V constant with
    v = (1 - a) exp(-p / beta) + a (p_ref / P)^(1/n); with them, kinetic + stored energy is constant."""
    mass, extension, speed, initial = 20.0, 0.2, 1.0, (5e5, 1e6)
    air = mb.EffectiveBulkModulus(BETA, air_fraction=0.01, polytropic_exponent=1.2)
    model, actuator = cylinder_on_slide(mass, extension, speed, initial_pressures=initial, bulk_modulus=air)
    res = mb.dynamics(model, 0.025, 0.00025, rtol=1e-9)
    p = res.hydraulics("cylinder").pressures
    volumes = actuator.chamber_volumes(res.body("block").position[:, 0] - RETRACTED)
    mixture = 0.99 * np.exp(-p / BETA) + 0.01 * (ATMOSPHERE / (p + ATMOSPHERE)) ** (1 / 1.2)
    assert np.ptp(p[:, 0]) > 1e6  # a real swing, the cap side's pressure more than doubled
    ratio = mixture / volumes
    # rtol 1e-9 on states with pressures down to ~0 gauge, where beta_e is 1e7 Pa: measured 5e-10.
    assert ratio == pytest.approx(np.broadcast_to(ratio[0], ratio.shape), rel=1e-8)
    # conserved to the integration tolerance (measured 2e-8)
    assert np.ptp(res.energy["total"]) < 1e-6 * res.energy["total"][0]

    model, _ = cylinder_on_slide(mass, extension, speed, initial_pressures=initial, bulk_modulus=AERATED)
    res = mb.dynamics(model, 0.025, 0.00025, rtol=1e-9)
    energy = res.energy["total"]
    assert np.ptp(res.hydraulics("cylinder").pressures[:, 0]) > 1e6
    # 10 J kinetic at the start (and ~1 J in the oil); the oil stores it and gives it back:
    # conserved to the integration tolerance (measured 4e-9)
    assert energy[0] == pytest.approx(0.5 * mass * speed**2, rel=0.1)
    assert np.ptp(energy) < 1e-6 * energy[0]


def test_energy_books_close_with_air_hoses_and_walls() -> None:
    """A valve driven by sin(20 t) against 2 kN with the ``AERATED`` oil: flows, load, end stops
    and the stored oil energy balance (``total + dissipated`` constant) to the integration
    tolerance, as with constant beta (test_hydraulics); the results' pressure rates use beta_e."""
    model, _, _ = driven_cylinder(2e3, lambda measure: np.sin(20 * measure.t), bulk_modulus=AERATED)
    res = mb.dynamics(model, 0.3, 0.0005, rtol=1e-9)
    balance = res.energy["total"] + res.energy["dissipated"]
    assert res.work["input"][-1] > 10.0  # tens of joules pumped in
    # measured 7e-9 of the input at rtol 1e-9 (2e-7 and 4e-7 at rtol 1e-8 and 1e-7: the integrator's)
    assert np.ptp(balance) < 1e-6 * res.work["input"][-1]
    hydraulics = res.hydraulics("cylinder")
    volumes = hydraulics.volumes
    by_hand = np.vectorize(effective_by_hand)(hydraulics.pressures, volumes, 5e-5)
    rates = by_hand / volumes * (hydraulics.flows - np.stack([A0, -A1]) * hydraulics.extension_rate[:, None])
    # the same law evaluated two ways: round-off (measured 5e-16 of rates up to 2e8 Pa/s)
    assert hydraulics.pressure_rates == pytest.approx(rates, rel=1e-12, abs=1e-3)


def test_energy_functions_against_adaptive_quadrature() -> None:
    """h(p) = int_0^p exp(Phi(p) - Phi(q)) dq and H = int_0^p h of the ``AERATED`` oil (compiled
    Gauss-Legendre in ln P) against scipy's adaptive ``quad`` of the same definitions, from -0.9 bar
    to 1000 bar; without air the closed form is the constant-modulus beta (exp(p / beta) - 1).
    Tolerance: ``quad`` is asked for 1e-13; the measured misfit is < 2e-14."""
    from scipy.integrate import quad

    from multibody.formulation.forces.hydraulic_energy import energy_functions
    from multibody.model.forces.hydraulic_fluid import ChamberOil

    def mixture(q: float) -> float:
        return 0.995 * np.exp(-q / BETA) + 0.005 * (ATMOSPHERE / (q + ATMOSPHERE)) ** (1 / 1.4)

    def enthalpy(p: float) -> float:
        def integrand(q: float) -> float:
            return mixture(q) / mixture(p) * np.exp((p - q) / 3e10)

        return quad(integrand, 0.0, p, epsabs=0.0, epsrel=1e-13, limit=200)[0]

    pressures = np.array([-9e4, 1e3, 1e5, 5e6, 4e7, 1e8])
    h, H = energy_functions(pressures[:, None], ChamberOil.of(AERATED.parameters))
    assert h[:, 0] == pytest.approx([enthalpy(p) for p in pressures], rel=1e-13)
    integrals = [quad(enthalpy, 0.0, p, epsabs=0.0, epsrel=1e-13, limit=200)[0] for p in pressures]
    assert H[:, 0] == pytest.approx(integrals, rel=1e-12)
    h, _ = energy_functions(pressures[:, None], ChamberOil.of(BETA))
    assert h[:, 0] == pytest.approx(BETA * np.expm1(pressures / BETA), rel=1e-15)


def test_bad_oil_is_named() -> None:
    with pytest.raises(mb.ModelError, match="EffectiveBulkModulus: air_fraction must be below 1"):
        mb.EffectiveBulkModulus(1.5e9, air_fraction=1.0)
    with pytest.raises(mb.ModelError, match="EffectiveBulkModulus: polytropic_exponent must be within"):
        mb.EffectiveBulkModulus(1.5e9, polytropic_exponent=0.5)
    with pytest.raises(mb.ModelError, match="give hose_volumes and hose_modulus together"):
        mb.EffectiveBulkModulus(1.5e9, hose_volumes=(1e-5, 0.0))
    with pytest.raises(mb.ModelError, match="EffectiveBulkModulus: oil must be finite and > 0"):
        mb.EffectiveBulkModulus(-1.0)
    hoses = mb.EffectiveBulkModulus(1.5e9, hose_volumes=(2e-4, 0.0), hose_modulus=5e8)
    with pytest.raises(mb.ModelError, match="'cylinder': the bulk modulus's hose_volumes .* exceed the dead_volumes"):
        cylinder_on_slide(1.0, 0.1, bulk_modulus=hoses)
    air = mb.EffectiveBulkModulus(1.5e9, air_fraction=0.01)
    with pytest.raises(mb.ModelError, match="'cylinder': initial_pressures .* reach vacuum"):
        cylinder_on_slide(1.0, 0.1, bulk_modulus=air, initial_pressures=(0.0, -2e5))
    with pytest.raises(mb.ModelError, match="'cylinder': bulk_modulus must be a number"):
        cylinder_on_slide(1.0, 0.1, bulk_modulus="oil")
