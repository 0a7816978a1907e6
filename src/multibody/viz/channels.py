"""Units and names of result channels, and the standard channel sets of bodies, joints and forces."""

from __future__ import annotations

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
}
"""SI unit of every quantity a result channel can name."""

ROTATIONAL_FORCES = ("TorsionSpring", "PointTorque")
"""Force elements whose scalar ``value`` is a torque [N m]; the others' is a force [N]."""

STANDARD_SETS = {
    "body": ("position", "velocity", "acceleration", "angular_velocity", "angular_acceleration"),
    "joint": ("reaction_force", "reaction_torque"),
    "force": ("force", "torque", "value"),
}
"""What one call plots for a body, a joint and a force element (as the post-processors of ADAMS do)."""


def element_kind(results: Results, name: str) -> str | None:
    """ "body", "joint" or "force" for an element name of ``results``, "energy", or None if unknown."""
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
    if quantity in ("kinetic", "potential", "total", "input", "dissipated"):
        return QUANTITY_UNITS["energy"]
    raise KeyError(f"no unit known for quantity {quantity!r}; quantities are: {', '.join(QUANTITY_UNITS)}, value")


def channel_unit(spec: str, force_types: dict[str, str] | None = None) -> str:
    """Unit of a channel "<element>.<quantity>[.<component>]" or "energy.<name>".

    ``force_types`` maps force element names to their type (e.g. "TorsionSpring").
    """
    parts = spec.split(".")
    if parts[0] == "energy":
        return QUANTITY_UNITS["energy"]
    quantity = parts[-2] if parts[-1] in ("x", "y", "z", "e0", "e1", "e2", "e3") else parts[-1]
    element = spec[: spec.rfind("." + quantity)]
    return quantity_unit(quantity, (force_types or {}).get(element))
