"""The energy stored in hydraulic chambers and the power their flows bring in, for any
``multibody.model.forces.hydraulic_fluid`` law (the derivation is that module's docstring):

    stored = V (h - p) + V_h (1 / beta_h - 1 / beta_w) H,    flow power = h Q,

with ``h(p) = exp(Phi(p)) int_0^p exp(-Phi(q)) dq``, ``H(p) = int_0^p h``, ``exp(Phi(p) - Phi(q)) =
v(q) / v(p) exp((p - q) / beta_w)`` and v the oil-air mixture's relative volume. Without air
(``b = 1 / beta_l + 1 / beta_w``): ``h = (exp(b p) - 1) / b`` and ``H = (h - p) / b``, closed forms.
With air they are integrals in ``u = ln(P / p_ref)`` (``dq = P du``), where the integrand is smooth
(no endpoint singularity from the air's ``P^(-1/n)``), taken by ``QUADRATURE_NODES``-point
Gauss-Legendre quadrature, nested for H (computed only where hoses or walls make it count):
relative error < 2e-14 from -0.9 bar to 1000 bar gauge against adaptive quadrature (scipy's
``quad`` at rtol 1e-13), so ``d(stored)/dt = h Q - p V'`` holds to round-off and the energy books
close to the integrator's tolerance.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from multibody.formulation.forces.family import FloatArray
from multibody.model.forces.hydraulic_fluid import ChamberOil

QUADRATURE_NODES = 20
"""Gauss-Legendre nodes of the integrals of aerated oil (16 already reach 1e-14)."""
_POINTS, _WEIGHTS = np.polynomial.legendre.leggauss(QUADRATURE_NODES)


@njit(cache=True)
def _mixture_volume(p: float, oil: float, air: float, exponent: float, reference: float) -> float:
    """v(p): the oil-air mixture's volume at gauge p per its volume at p = 0."""
    return (1.0 - air) * math.exp(-p / oil) + air * (reference / (p + reference)) ** (1.0 / exponent)


@njit(cache=True)
def _enthalpy(
    p: float,
    oil: float,
    air: float,
    exponent: float,
    reference: float,
    wall: float,
    points: FloatArray,
    weights: FloatArray,
) -> float:
    """h(p) of aerated oil [Pa] by quadrature in ln(P / p_ref); NaN at an absolute pressure <= 0."""
    if p + reference <= 0.0:
        return math.nan
    span = math.log1p(p / reference)
    total = 0.0
    for k in range(points.size):
        q = reference * math.expm1(0.5 * (points[k] + 1.0) * span)
        total += (
            weights[k] * _mixture_volume(q, oil, air, exponent, reference) * math.exp((p - q) * wall) * (q + reference)
        )
    return 0.5 * span * total / _mixture_volume(p, oil, air, exponent, reference)


@njit(cache=True)
def _aerated_energy_functions(
    p: FloatArray,
    oil: FloatArray,
    air: FloatArray,
    exponent: FloatArray,
    reference: FloatArray,
    wall: FloatArray,
    integral_wanted: np.ndarray,
    points: FloatArray,
    weights: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """(h, H) (m,) of m aerated chambers (flat parameter arrays); H = 0 where not wanted."""
    enthalpy = np.empty(p.size)
    integral = np.zeros(p.size)
    for i in range(p.size):
        enthalpy[i] = _enthalpy(p[i], oil[i], air[i], exponent[i], reference[i], wall[i], points, weights)
        if integral_wanted[i]:
            if p[i] + reference[i] <= 0.0:
                integral[i] = math.nan
                continue
            span = math.log1p(p[i] / reference[i])
            total = 0.0
            for k in range(points.size):
                q = reference[i] * math.expm1(0.5 * (points[k] + 1.0) * span)
                h = _enthalpy(q, oil[i], air[i], exponent[i], reference[i], wall[i], points, weights)
                total += weights[k] * h * (q + reference[i])
            integral[i] = 0.5 * span * total
    return enthalpy, integral


def energy_functions(pressure: FloatArray, law: ChamberOil) -> tuple[FloatArray, FloatArray]:
    """``(h, H)`` (...) at gauge ``pressure`` (...) [Pa] (broadcasting against ``law``): the flow
    enthalpy h [Pa] and its integral H [Pa^2] (module docstring). H is returned as 0 where the
    stored energy does not use it (no hoses, or hoses as stiff as the walls)."""
    p = np.asarray(pressure, dtype=float)
    shape = np.broadcast_shapes(p.shape, np.shape(law.oil))
    p = np.broadcast_to(p, shape)
    liquid_modulus = law.oil / (1.0 + law.oil * law.wall_compliance)
    enthalpy = liquid_modulus * np.expm1(p / liquid_modulus)
    integral = liquid_modulus * (enthalpy - p)
    aerated = np.broadcast_to(law.aerated, shape)
    if np.any(aerated):
        sub = law.take(aerated, shape)
        wanted = sub.hose_volume * (sub.hose_compliance - sub.wall_compliance) != 0.0
        values = (sub.oil, sub.air_fraction, sub.polytropic_exponent, sub.reference_pressure, sub.wall_compliance)
        h, H = _aerated_energy_functions(p[aerated], *values, wanted, _POINTS, _WEIGHTS)
        enthalpy, integral = np.array(enthalpy), np.array(integral)
        enthalpy[aerated], integral[aerated] = h, H
    return enthalpy, integral


def oil_energy(
    pressure: FloatArray, volume: FloatArray, flow: FloatArray, law: ChamberOil
) -> tuple[FloatArray, FloatArray]:
    """``(stored, flow_power)`` (...): the energy [J] stored in chambers' compressed oil and stretched
    walls, ``V (h - p) + V_h (1 / beta_h - 1 / beta_w) H`` (~ p^2 V / (2 beta_e)), at gauge
    ``pressure`` [Pa] and ``volume`` [m^3], and the power [W] a ``flow`` [m^3/s] into them brings
    in, ``h(p) Q`` (= p Q (1 + p / (2 beta) + ...)). Along ``p' = beta_e / V (Q - V')`` the stored
    energy's rate is ``h Q - p V'``: the flow power less the oil's work on the piston."""
    enthalpy, integral = energy_functions(pressure, law)
    walls = law.hose_volume * (law.hose_compliance - law.wall_compliance)
    return volume * (enthalpy - pressure) + walls * integral, enthalpy * flow
