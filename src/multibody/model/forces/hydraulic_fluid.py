"""The oil in a hydraulic chamber: its effective bulk modulus and the energy it stores.

A chamber of volume V(s) [m^3] (cylinder barrel and hose together, ``dead_volumes`` included)
holds oil with entrained air; the barrel's wall and the hose stretch under pressure. Its
pressure obeys ``p' = beta_e(p, V) / V (Q - V')`` with the series (compliances add) effective
bulk modulus of Merritt (1967, *Hydraulic Control Systems*, Wiley, sec. 2.5):

    1 / beta_e = 1 / beta_f(p) + (V_h / V) / beta_h + ((V - V_h) / V) / beta_w,

``V_h`` the chamber's hose volume with expansion modulus ``beta_h``, ``V - V_h`` the oil in the
barrel, whose wall has expansion modulus ``beta_w``. The oil-air mixture ``beta_f`` takes the
liquid at constant bulk modulus ``beta_l`` and the free air following the polytropic law
``P V_air^n = const`` (its modulus ``n P``), volumes additive: with ``alpha_0`` the air's volume
fraction at the reference (atmospheric) absolute pressure ``p_ref``, where the gauge pressure p
is zero, and ``P = p + p_ref`` the absolute pressure, the mixture's volume per unit of its volume
at p = 0 is

    v(p) = (1 - alpha_0) exp(-p / beta_l) + alpha_0 (p_ref / P)^(1/n),

    1 / beta_f = -v' / v = (1 - alpha(p)) / beta_l + alpha(p) / (n P),
    alpha(p) = alpha_0 (p_ref / P)^(1/n) / v(p)     (the air's volume fraction at p).

This is Merritt's series form with his gas term ``(V_g / V_t) / beta_g``, ``beta_g = n P``,
evaluated with the air volume the pressure leaves (the pressure-dependent entrained-air models
compared by Gholizadeh, Burton and Schoenau, "Fluid bulk modulus: a literature survey", Int. J.
Fluid Power 12(3), 2011, 5-15; air dissolving into the oil is not modelled). With no air and no
compliance ``beta_e = beta_l``: the constant-modulus cylinder. The air's modulus vanishes at
P -> 0: the pressure cannot reach vacuum; a chamber with air at P <= 0 has no rate (NaN, which
makes an integrator retry smaller steps).

Energy. The capacitance ``C = V / beta_e = V (1 / beta_f(p) + 1 / beta_w) + V_h (1 / beta_h - 1 / beta_w)``
is the sum of a part proportional to V and a constant one. With ``Phi(p) = int_0^p (1 / beta_f +
1 / beta_w) dq = -ln v(p) + p / beta_w``, the functions

    h(p) = exp(Phi(p)) int_0^p exp(-Phi(q)) dq  (h' = 1 + h (1 / beta_f + 1 / beta_w), h(0) = 0),
    H(p) = int_0^p h(q) dq,

give the stored energy ``E = V (h - p) + V_h (1 / beta_h - 1 / beta_w) H`` [J] whose rate along
``p' = (Q - V') / C`` is exactly ``h Q - p V'``: the flow's power ``h Q`` less the work the oil
does on the piston. E vanishes at p = 0, so it is the work ``-int p dV`` spent compressing the
chamber's present oil (and stretching its walls) from p = 0 in a closed chamber, ~ p^2 V / (2 beta_e);
at constant modulus ``h = beta (exp(p / beta) - 1)``. ``multibody.formulation.forces.hydraulic_energy`` evaluates them:
closed forms without air, quadrature with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError

FloatArray = NDArray[np.float64]


def positive_number(owner: str, what: str, value: object, fix: str, allow_zero: bool = False) -> float:
    """``value`` as a finite float > 0 (>= 0 with ``allow_zero``), else a ``ModelError`` naming
    ``owner`` and ``what``, ending with the hint ``fix``."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: {what} must be a number, got {value!r}; {fix}") from None
    if not np.isfinite(number) or number < 0.0 or (number == 0.0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ModelError(f"{owner}: {what} must be finite and {bound}, got {value!r}; {fix}")
    return number


class EffectiveBulkModulus:
    """The effective bulk modulus of a cylinder's two chambers: oil with entrained air, in series
    with the compliance of the hoses and of the cylinder's wall (see the module docstring for the
    law, its sources and the energy). Give it as ``HydraulicCylinder(..., bulk_modulus=...)``.

    Args:
        oil: bulk modulus of the air-free oil beta_l [Pa] (mineral oil ~1.5e9 to 1.8e9).
        air_fraction: volume fraction of free (entrained) air alpha_0 [-] at the reference
            pressure, in [0, 1) (0.001 to 0.01 is common; 0: none).
        polytropic_exponent: n of the air's compression, 1 (isothermal, slow) to 1.4 (adiabatic, fast).
        hose_volumes: (2,) oil volumes of the hoses of the cap and rod chambers [m^3], parts of the
            cylinder's ``dead_volumes`` (the rest of a chamber is in the barrel).
        hose_modulus: the hoses' expansion modulus beta_h [Pa] (``V / (dV/dp)``; rubber hoses
            ~1e8 to 1e9); required with hose volumes. None: no hoses.
        wall_modulus: the barrel wall's expansion modulus beta_w [Pa] (~ E t / D for a thin steel
            tube, 1e10 to 5e10). None: a rigid barrel.
        reference_pressure: the absolute pressure [Pa] at gauge zero, where ``air_fraction`` is
            measured (atmospheric, 1e5). Chamber pressures are gauge: absolute = gauge + this.
    """

    def __init__(
        self,
        oil: float,
        air_fraction: float = 0.0,
        polytropic_exponent: float = 1.4,
        hose_volumes: ArrayLike = (0.0, 0.0),
        hose_modulus: float | None = None,
        wall_modulus: float | None = None,
        reference_pressure: float = 1e5,
    ) -> None:
        owner = "EffectiveBulkModulus"
        self.oil = positive_number(owner, "oil", oil, "give the air-free oil's bulk modulus in Pa (mineral oil ~1.5e9)")
        self.air_fraction = positive_number(
            owner, "air_fraction", air_fraction, "give the free air's volume fraction (0.01 = 1 %)", allow_zero=True
        )
        if self.air_fraction >= 1.0:
            raise ModelError(f"{owner}: air_fraction must be below 1 (a volume fraction), got {air_fraction!r}")
        self.polytropic_exponent = positive_number(
            owner, "polytropic_exponent", polytropic_exponent, "1 is isothermal, 1.4 adiabatic air"
        )
        if not 1.0 <= self.polytropic_exponent <= 5.0 / 3.0:
            raise ModelError(
                f"{owner}: polytropic_exponent must be within [1, 5/3] (1 isothermal, 1.4 adiabatic air), "
                f"got {polytropic_exponent!r}"
            )
        volumes = np.asarray(hose_volumes, dtype=float).reshape(-1) if np.size(hose_volumes) == 2 else None
        if volumes is None or not np.all(np.isfinite(volumes)) or np.any(volumes < 0.0):
            raise ModelError(
                f"{owner}: hose_volumes must be two volumes >= 0 m^3 (cap side, rod side), got {hose_volumes!r}"
            )
        self.hose_volumes = volumes
        if hose_modulus is not None:
            hose_modulus = positive_number(
                owner, "hose_modulus", hose_modulus, "give the hoses' expansion modulus in Pa"
            )
        if (hose_modulus is None) != (not np.any(volumes > 0.0)):
            raise ModelError(
                f"{owner}: give hose_volumes and hose_modulus together (hose_volumes {volumes.tolist()} m^3, "
                f"hose_modulus {hose_modulus!r} Pa), or neither for a cylinder without hoses"
            )
        self.hose_modulus = hose_modulus
        if wall_modulus is not None:
            wall_modulus = positive_number(
                owner, "wall_modulus", wall_modulus, "give the barrel's expansion modulus in Pa"
            )
        self.wall_modulus = wall_modulus
        self.reference_pressure = positive_number(
            owner, "reference_pressure", reference_pressure, "give the absolute pressure at gauge zero in Pa (1e5)"
        )

    @property
    def parameters(self) -> dict[str, Any]:
        """The law as plain numbers (JSON-ready, SI; None for an absent compliance), what
        ``ChamberOil.of`` takes."""
        return {
            "oil": self.oil,
            "air_fraction": self.air_fraction,
            "polytropic_exponent": self.polytropic_exponent,
            "hose_volumes": self.hose_volumes.tolist(),
            "hose_modulus": self.hose_modulus,
            "wall_modulus": self.wall_modulus,
            "reference_pressure": self.reference_pressure,
        }

    def fluid(self, pressure: ArrayLike) -> FloatArray:
        """beta_f (...) [Pa] of the oil-air mixture at gauge ``pressure`` (...) [Pa]."""
        law = ChamberOil.of(self.parameters)
        return fluid_bulk_modulus(np.asarray(pressure, dtype=float)[..., None], law)[..., 0]

    def effective(self, pressures: ArrayLike, volumes: ArrayLike) -> FloatArray:
        """beta_e (..., 2) [Pa] of the cap and rod chambers at gauge ``pressures`` (..., 2) [Pa]
        and chamber ``volumes`` (..., 2) [m^3] (hoses included)."""
        law = ChamberOil.of(self.parameters)
        return effective_bulk_modulus(np.asarray(pressures, dtype=float), np.asarray(volumes, dtype=float), law)

    def __repr__(self) -> str:
        return (
            f"EffectiveBulkModulus(oil={self.oil:g}, air_fraction={self.air_fraction:g}, "
            f"polytropic_exponent={self.polytropic_exponent:g}, hose_volumes={self.hose_volumes.tolist()}, "
            f"hose_modulus={self.hose_modulus}, wall_modulus={self.wall_modulus}, "
            f"reference_pressure={self.reference_pressure:g})"
        )


@dataclass(frozen=True)
class ChamberOil:
    """The law of chambers as arrays that broadcast against their pressures (..., 2): the oil's
    modulus [Pa], the air fraction [-] at ``reference_pressure`` [Pa, absolute], the polytropic
    exponent [-], the hose volume [m^3] and the compliances 1 / beta_h and 1 / beta_w [1/Pa]
    (0 when absent). A constant modulus is oil = beta and nothing else."""

    oil: FloatArray
    air_fraction: FloatArray
    polytropic_exponent: FloatArray
    reference_pressure: FloatArray
    hose_volume: FloatArray
    hose_compliance: FloatArray
    wall_compliance: FloatArray

    @classmethod
    def of(cls, bulk_modulus: float | Mapping[str, Any]) -> ChamberOil:
        """The (2,) law of a cylinder's chambers from its ``parameters["bulk_modulus"]``: a
        constant [Pa] or ``EffectiveBulkModulus.parameters``."""
        if not isinstance(bulk_modulus, Mapping):
            return cls(*(np.full(2, value) for value in (float(bulk_modulus), 0.0, 1.0, 1e5, 0.0, 0.0, 0.0)))
        law = bulk_modulus

        def compliance(modulus: float | None) -> float:
            return 0.0 if modulus is None else 1.0 / modulus

        return cls(
            oil=np.full(2, float(law["oil"])),
            air_fraction=np.full(2, float(law["air_fraction"])),
            polytropic_exponent=np.full(2, float(law["polytropic_exponent"])),
            reference_pressure=np.full(2, float(law["reference_pressure"])),
            hose_volume=np.asarray(law["hose_volumes"], dtype=float),
            hose_compliance=np.full(2, compliance(law["hose_modulus"])),
            wall_compliance=np.full(2, compliance(law["wall_modulus"])),
        )

    @classmethod
    def stack(cls, laws: list[ChamberOil]) -> ChamberOil:
        """The (n, 2) law of n cylinders' chambers."""
        fields = cls.__dataclass_fields__
        return cls(**{name: np.array([getattr(law, name) for law in laws]).reshape(-1, 2) for name in fields})

    def take(self, mask: NDArray[np.bool_], shape: tuple[int, ...]) -> ChamberOil:
        """The law of the entries ``mask`` of pressures of ``shape``, as flat arrays."""
        fields = type(self).__dataclass_fields__
        return type(self)(**{name: np.broadcast_to(getattr(self, name), shape)[mask] for name in fields})

    @property
    def aerated(self) -> NDArray[np.bool_]:
        """Where the oil holds air."""
        return self.air_fraction > 0.0


def _air_volume_ratio(pressure: FloatArray, law: ChamberOil) -> FloatArray:
    """``(p_ref / P)^(1/n)``: the air's volume per its volume at gauge zero; NaN at P <= 0."""
    absolute = pressure + law.reference_pressure
    absolute = np.where(absolute > 0.0, absolute, np.nan)
    return (law.reference_pressure / absolute) ** (1.0 / law.polytropic_exponent)


def fluid_bulk_modulus(pressure: FloatArray, law: ChamberOil) -> FloatArray:
    """beta_f = -v / v' (...) [Pa] of the oil-air mixture at gauge ``pressure`` (...) [Pa]: the oil's
    modulus itself without air; NaN with air at an absolute pressure <= 0."""
    if not np.any(law.aerated):
        return np.broadcast_to(law.oil, np.broadcast_shapes(np.shape(pressure), np.shape(law.oil))).astype(float)
    liquid = (1.0 - law.air_fraction) * np.exp(-pressure / law.oil)
    air = law.air_fraction * _air_volume_ratio(pressure, law)
    absolute = pressure + law.reference_pressure
    shrinking = liquid / law.oil + air / (law.polytropic_exponent * absolute)
    return np.where(law.aerated, (liquid + air) / shrinking, law.oil)


def effective_bulk_modulus(pressure: FloatArray, volume: FloatArray, law: ChamberOil) -> FloatArray:
    """beta_e (...) [Pa] at gauge ``pressure`` (...) [Pa] and chamber ``volume`` (...) [m^3]:
    ``1 / beta_e = 1 / beta_f + (V_h / V) / beta_h + (1 - V_h / V) / beta_w``, written as
    ``beta_f / (1 + beta_f (...))`` so that a constant modulus comes back bit for bit."""
    fluid = fluid_bulk_modulus(pressure, law)
    hose_share = law.hose_volume / np.where(volume > 0.0, volume, np.inf)
    walls = hose_share * law.hose_compliance + (1.0 - hose_share) * law.wall_compliance
    return fluid / (1.0 + fluid * walls)
