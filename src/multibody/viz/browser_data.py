"""What the report's results browser shows: a tree of elements (bodies, joints, forces, contacts,
energy), each with its panels of curves, and which curves are zero to round-off.

A curve is zero when ``multibody.viz.channels.numerically_zero`` says so against its family (the
same quantity over every element of its group, e.g. every joint's reaction force; every energy
channel for the energy): the browser draws it as an exact zero and says so, instead of
magnifying round-off into a signal.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import numpy as np

from multibody.results import Results
from multibody.viz.channels import STANDARD_SETS, ZERO_RELATIVE, largest_magnitude, numerically_zero, quantity_unit
from multibody.viz.plots import COMPONENTS, force_types_of

GROUP_TITLES = {"body": "Bodies", "joint": "Joints", "force": "Forces", "contact": "Contacts", "energy": "Energy"}
"""Tree sections, in display order."""

STORED_ENERGY = ("kinetic", "potential", "total")
"""Energy held by the system [J]."""
EXCHANGED_ENERGY = ("input", "dissipated")
"""Energy put in by motions, actuators and applied loads (``results.work["input"]``), and removed
by dampers, friction and impacts (``results.work["lost"]``), since t = 0 [J]."""
EXCHANGED_CHANNELS = {"input": "work.input", "dissipated": "work.lost"}
"""The results channels of the exchanged curves when input work is given apart."""


@dataclass(frozen=True)
class Curve:
    """One line of a panel: its legend label, channel name, values (T,) and whether it is zero."""

    label: str
    channel: str
    values: np.ndarray
    zero: bool


def browser_data(results: Results) -> dict[str, Any]:
    """The browser's JSON: times, the tree of groups -> elements -> panels, the curves' values
    (base64 little-endian float32, absent for a zero curve) and the default selection."""
    force_types = force_types_of(results)
    groups: dict[str, list[dict[str, Any]]] = {key: [] for key in GROUP_TITLES}
    for kind, names in results.layout.element_names().items():
        for index, name in enumerate(names):
            section = "contact" if kind == "force" and "Contact" in force_types.get(name, "") else kind
            element = _element(results, kind, name, index, force_types.get(name))
            same = next((e for e in groups[section] if e["name"] == name), None)
            if same is not None:  # a contact's own quantities join its force panels
                same["panels"] += element["panels"]
            else:
                groups[section].append(element)
    work = results.work
    exchanged = {"input": work["input"], "dissipated": work["lost"]} if np.any(work["input"]) else {}
    groups["energy"].append({"name": "energy", "panels": energy_panels(results.energy | exchanged)})
    tree = [
        {"key": key, "title": GROUP_TITLES[key], "elements": elements} for key, elements in groups.items() if elements
    ]
    first = tree[0]["elements"][0]
    return {
        "time": base64.b64encode(np.ascontiguousarray(results.time, dtype="<f8").tobytes()).decode("ascii"),
        "tree": tree,
        "selection": [panel["id"] for panel in first["panels"] if panel["standard"]],
    }


def _element(results: Results, kind: str, name: str, index: int, force_type: str | None) -> dict[str, Any]:
    """One tree node: every quantity of element ``name`` as a panel, its standard set marked."""
    panels = []
    quantities = [key.split("/")[1] for key in results.arrays if key.startswith(f"{kind}/")]
    for quantity in quantities:
        family = results.arrays[f"{kind}/{quantity}"]
        values = family[:, index]
        components = COMPONENTS[values.shape[1:]]
        scale = largest_magnitude(family)
        if components:
            curves = [
                Curve(c, f"{name}.{quantity}.{c}", values[:, k], numerically_zero(values[:, k], scale))
                for k, c in enumerate(components)
            ]
        else:
            curves = [Curve(quantity, f"{name}.{quantity}", values, numerically_zero(values, scale))]
        unit = quantity_unit(quantity, force_type)
        panels.append(_panel(f"{name}.{quantity}", f"{name}.{quantity}", unit, curves, quantity in STANDARD_SETS[kind]))
    return {"name": name, "panels": panels}


def energy_panels(energy: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """The energy node's panels: stored energy (kinetic, potential, total); the energy exchanged
    since t = 0, input work and dissipation as separate curves; and the balance
    total - input + dissipated, constant when the books close (its drift is the integration error).

    A file written before input work had its own channel has only "dissipated", the net energy
    taken out (dissipation minus input work), which a motion or a load can make negative: the
    panel says so."""
    scale = max((largest_magnitude(values) for values in energy.values()), default=0.0)

    def curves(names: tuple[str, ...]) -> list[Curve]:
        channel = EXCHANGED_CHANNELS if "input" in energy else {}
        return [
            Curve(n, channel.get(n, f"energy.{n}"), energy[n], numerically_zero(energy[n], scale))
            for n in names
            if n in energy
        ]

    panels = [_panel("energy.stored", "stored energy", "J", curves(STORED_ENERGY), True)]
    exchanged = curves(EXCHANGED_ENERGY)
    note = ""
    if "input" not in energy and "dissipated" in energy and np.min(energy["dissipated"]) < -ZERO_RELATIVE * scale:
        note = (
            "This file has no separate input work: 'dissipated' is the net energy taken out "
            "(damper dissipation minus the work put in by motions and loads), so it goes negative "
            "where a motion or a load does work on the system."
        )
    if exchanged:
        panels.append(_panel("energy.exchanged", "energy exchanged since t = 0", "J", exchanged, True, note))
    if "total" in energy and "dissipated" in energy:
        balance = energy["total"] + energy["dissipated"] - energy.get("input", 0.0)
        label = "total - input + dissipated" if "input" in energy else "total + dissipated"
        panels.append(
            _panel(
                "energy.balance",
                "energy balance",
                "J",
                [Curve(label, "", balance, numerically_zero(balance, scale))],
                True,
                "Constant in an exact solution; its drift is the error of the integration.",
            )
        )
    return panels


def _panel(
    identifier: str, title: str, unit: str, curves: list[Curve], standard: bool, note: str = ""
) -> dict[str, Any]:
    zero = [curve for curve in curves if curve.zero]
    notes = [note] if note else []
    if zero:
        largest = max(float(np.max(np.abs(curve.values))) if curve.values.size else 0.0 for curve in zero)
        which = ", ".join(curve.label for curve in zero)
        size = "exactly zero" if largest == 0.0 else f"zero to round-off (|value| <= {largest:.1e} {unit})"
        drawn = " throughout, not plotted" if len(zero) == len(curves) else ", drawn as 0"
        notes.append(f"{which}: {size}{drawn}")
    return {
        "id": identifier,
        "title": title,
        "unit": unit,
        "standard": standard,
        "zero": len(zero) == len(curves),
        "notes": notes,
        "curves": [
            {
                "label": curve.label,
                "channel": curve.channel,
                "zero": curve.zero,
                "values": ""
                if curve.zero
                else base64.b64encode(np.ascontiguousarray(curve.values, dtype="<f4").tobytes()).decode("ascii"),
            }
            for curve in curves
        ],
    }
