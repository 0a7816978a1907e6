"""Units and names of result channels, and the standard channel sets of bodies, joints and forces."""

from __future__ import annotations

import numpy as np

from multibody.results import Results

QUANTITY_UNITS = {
    "position": "m",
    "velocity": "m/s",
    "acceleration": "m/s^2",
    "euler_parameters": "-",
    "angular_velocity": "rad/s",
    "angular_acceleration": "rad/s^2",
    "reaction_force": "N",
    "reaction_torque": "N m",
    "reaction_force_in_j": "N",
    "reaction_torque_in_j": "N m",
    "force": "N",
    "torque": "N m",
    "energy": "J",
    "penetration": "m",
    "point": "m",
    "normal": "-",
    "normal_force": "N",
    "friction_force": "N",
    "slip_speed": "m/s",
    "mode": "-",
}
"""SI unit of every quantity a result channel can name."""

ROTATIONAL_FORCES = ("TorsionSpring", "PointTorque")
"""Force elements whose scalar ``value`` is a torque [N m]; the others' is a force [N]."""

STANDARD_SETS = {
    "body": ("position", "velocity", "acceleration", "angular_velocity", "angular_acceleration"),
    "joint": ("reaction_force", "reaction_torque"),
    "force": ("force", "torque", "value"),
    "contact": ("penetration", "normal_force", "friction_force", "slip_speed", "mode"),
}
"""What one call plots for a body, a joint and a force element (as the post-processors of ADAMS do)."""


def element_kind(results: Results, name: str) -> str | None:
    """ "body", "joint" or "force" (a contact is a force) for an element name of ``results``, "energy", or None if unknown."""
    if name == "energy":
        return "energy"
    for kind, names in results.layout.element_names().items():
        if name in names:
            return kind
    return None


def quantity_unit(quantity: str, force_type: str | None = None) -> str:
    """Unit of ``quantity`` ("position", "reaction_force", ...); a force element's ``value`` is
    N m for rotational elements (``force_type`` in ``ROTATIONAL_FORCES``), N otherwise."""
    if quantity == "value":
        return "N m" if force_type in ROTATIONAL_FORCES else "N"
    if quantity in QUANTITY_UNITS:
        return QUANTITY_UNITS[quantity]
    if quantity in ("kinetic", "potential", "total", "input", "dissipated", "lost"):
        return QUANTITY_UNITS["energy"]
    raise KeyError(f"no unit known for quantity {quantity!r}; quantities are: {', '.join(QUANTITY_UNITS)}, value")


def channel_unit(spec: str, force_types: dict[str, str] | None = None) -> str:
    """Unit of a channel "<element>.<quantity>[.<component>]" or "energy.<name>".

    ``force_types`` maps force element names to their type (e.g. "TorsionSpring").
    """
    if spec.split(".")[0] in ("energy", "work"):
        return QUANTITY_UNITS["energy"]
    element, quantity = _element_and_quantity(spec)
    return quantity_unit(quantity, (force_types or {}).get(element))


def _element_and_quantity(spec: str) -> tuple[str, str]:
    """("crank", "velocity") of "crank.velocity.x" or "crank.velocity" (element names may hold dots)."""
    parts = spec.split(".")
    quantity = parts[-2] if parts[-1] in ("x", "y", "z", "e0", "e1", "e2", "e3") else parts[-1]
    return spec[: spec.rfind("." + quantity)], quantity


ZERO_RELATIVE = 1e-12
"""A channel at most this fraction of its family's largest magnitude is zero (round-off of the family)."""
ZERO_ABSOLUTE = 1e-14
"""A channel whose magnitude never exceeds this (in its SI unit) is zero whatever its family."""


def numerically_zero(values: np.ndarray, family_scale: float) -> bool:
    """Whether ``values`` are zero to round-off: max |values| <= ``ZERO_RELATIVE`` x
    ``family_scale`` (the largest magnitude of the channel's family, e.g. every joint's reaction
    force, in the same unit) or <= ``ZERO_ABSOLUTE``. Non-finite values are never zero."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return True
    if not np.all(np.isfinite(values)):
        return False
    largest = float(np.max(np.abs(values)))
    return largest <= max(ZERO_RELATIVE * family_scale, ZERO_ABSOLUTE)


def family_scale(results: Results, spec: str) -> float:
    """Largest finite magnitude of the family of channel ``spec``: its quantity over every element
    of its group ("crank.velocity.x": every body's velocity), or every energy channel [SI unit]."""
    if spec.startswith("energy."):
        return max(largest_magnitude(values) for values in results.energy.values())
    element, quantity = _element_and_quantity(spec)
    return largest_magnitude(results.arrays[f"{element_kind(results, element)}/{quantity}"])


def largest_magnitude(values: np.ndarray) -> float:
    """max |values| over the finite entries (0 when there are none)."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0
