"""ADAMS unit systems: the SI size of a dataset's units of force, mass, length and time.

``UNITS/SYSTEM=...`` picks a set; ``FORCE=``, ``MASS=``, ``LENGTH=``, ``TIME=`` set one unit each
(after the system, so they override it). Everything read from a dataset is converted to SI by
multiplying with ``Units.factor(dimension)``. Since each base unit is converted on its own, a
dataset whose units are not consistent (pound force with pound mass, ADAMS's unit consistency
factor UCF != 1) still comes out right in SI. Angles are radians (a ``D`` suffix means degrees).
"""

from __future__ import annotations

from dataclasses import dataclass

POUND_MASS = 0.45359237
STANDARD_GRAVITY = 9.80665
POUND_FORCE = POUND_MASS * STANDARD_GRAVITY

FORCE = {
    "NEWTON": 1.0,
    "KNEWTON": 1e3,
    "MEGANEWTON": 1e6,
    "MILLINEWTON": 1e-3,
    "MICRONEWTON": 1e-6,
    "DYNE": 1e-5,
    "KILOGRAM_FORCE": STANDARD_GRAVITY,
    "POUND_FORCE": POUND_FORCE,
    "KPOUND_FORCE": 1e3 * POUND_FORCE,
    "OUNCE_FORCE": POUND_FORCE / 16.0,
    "POUNDAL": POUND_MASS * 0.3048,
}
"""Force units [N]."""
MASS = {
    "KILOGRAM": 1.0,
    "GRAM": 1e-3,
    "MILLIGRAM": 1e-6,
    "MEGAGRAM": 1e3,
    "POUND_MASS": POUND_MASS,
    "KPOUND_MASS": 1e3 * POUND_MASS,
    "OUNCE_MASS": POUND_MASS / 16.0,
    "SLUG": POUND_FORCE / 0.3048,
    "KSLUG": 1e3 * POUND_FORCE / 0.3048,
}
"""Mass units [kg]."""
LENGTH = {
    "METER": 1.0,
    "KILOMETER": 1e3,
    "CENTIMETER": 1e-2,
    "MILLIMETER": 1e-3,
    "MICROMETER": 1e-6,
    "NANOMETER": 1e-9,
    "ANGSTROM": 1e-10,
    "INCH": 0.0254,
    "FOOT": 0.3048,
    "YARD": 0.9144,
    "MILE": 1609.344,
}
"""Length units [m]."""
TIME = {"SECOND": 1.0, "MILLISECOND": 1e-3, "MICROSECOND": 1e-6, "NANOSECOND": 1e-9, "MINUTE": 60.0, "HOUR": 3600.0}
"""Time units [s]."""

SYSTEMS = {
    "MKS": ("NEWTON", "KILOGRAM", "METER", "SECOND"),
    "MMKS": ("NEWTON", "KILOGRAM", "MILLIMETER", "SECOND"),
    "CGS": ("DYNE", "GRAM", "CENTIMETER", "SECOND"),
    "IPS": ("POUND_FORCE", "POUND_MASS", "INCH", "SECOND"),
    "FPS": ("POUND_FORCE", "POUND_MASS", "FOOT", "SECOND"),
}
"""UNITS/SYSTEM = name -> (force, mass, length, time) units."""
TABLES = {"FORCE": FORCE, "MASS": MASS, "LENGTH": LENGTH, "TIME": TIME}


@dataclass(frozen=True)
class Units:
    """SI size of one dataset unit of force [N], mass [kg], length [m] and time [s]."""

    force: float = 1.0
    mass: float = 1.0
    length: float = 1.0
    time: float = 1.0

    def factor(self, dimension: str) -> float:
        """SI size of the dataset's unit of ``dimension`` ("length", "force", "stiffness", ...)."""
        F, M, L, T = self.force, self.mass, self.length, self.time
        return {
            "none": 1.0,
            "angle": 1.0,
            "force": F,
            "mass": M,
            "length": L,
            "time": T,
            "torque": F * L,
            "inertia": M * L * L,
            "velocity": L / T,
            "acceleration": L / (T * T),
            "angular_velocity": 1.0 / T,
            "angular_acceleration": 1.0 / (T * T),
            "stiffness": F / L,
            "damping": F * T / L,
            "rotational_stiffness": F * L,
            "rotational_damping": F * L * T,
        }[dimension]


def unit_value(kind: str, word: str) -> float | None:
    """SI size of unit ``word`` of ``kind`` (FORCE, MASS, LENGTH, TIME), accepting any unique
    prefix (``KILOG`` for KILOGRAM); None if unknown or ambiguous."""
    table = TABLES[kind]
    if word in table:
        return table[word]
    matches = [name for name in table if name.startswith(word)]
    return table[matches[0]] if len(matches) == 1 else None


def system_units(name: str) -> tuple[str, str, str, str] | None:
    """The (force, mass, length, time) unit names of ``UNITS/SYSTEM = name``; None if unknown."""
    return SYSTEMS.get(name)
