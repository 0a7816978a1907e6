"""Plots of hydraulic cylinders in the units hydraulic engineers read: pressures in bar, flows in
L/min, power in kW, the spool position normalized [-] and the piston's extension in m
(``res.hydraulics(name)``, which holds them in SI)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from multibody.results import HydraulicsHistory, Results
from multibody.viz.plots import curve_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PA_PER_BAR = 1e5
"""1 bar [Pa]."""
M3_PER_S_PER_L_PER_MIN = 1e-3 / 60.0
"""1 L/min [m^3/s]."""
W_PER_KW = 1e3
"""1 kW [W]."""

CHAMBERS = ("cap", "rod")
"""Legend names of the chambers 0 and 1."""


def plot_hydraulics(
    results: Results | str | os.PathLike[str],
    *cylinders: str,
    path: str | os.PathLike[str] | None = None,
    title: str | None = None,
) -> Figure:
    """A figure of hydraulic cylinders ``cylinders`` (every one in the results when none is named)
    against time [s]: chamber pressures [bar], flows into the chambers [L/min], spool positions [-]
    (when a cylinder has a valve), power to the piston and from the supply [kW], piston extension [m].
    Each panel holds every cylinder's curves. ``results`` may be a results file; ``path`` saves
    the figure (format from its suffix)."""
    results = results if isinstance(results, Results) else Results.load(results)
    names = cylinders or _every_cylinder(results)
    if not names:
        raise ValueError(f"the results of {results.layout.model_name!r} hold no hydraulic cylinder to plot")
    histories = [results.hydraulics(name) for name in names]
    missing = [h.name for h in histories if h.flows is None]
    if missing:
        raise ValueError(
            f"cylinder(s) {', '.join(missing)}: the results carry no scene with their parameters, so flows and "
            "power cannot be recomputed; plot res.hydraulics(name).pressures instead"
        )
    panels = _panels(histories)
    return curve_figure(results.time, panels, title or f"{results.layout.model_name}: hydraulics", path)


def _panels(histories: list[HydraulicsHistory]) -> list[tuple[str, list[tuple[str, np.ndarray]]]]:
    """(axis label with unit, [(legend, values in that unit)]) per panel."""
    pressures = [(f"{h.name} {c}", h.pressures[:, k] / PA_PER_BAR) for h in histories for k, c in enumerate(CHAMBERS)]
    flows = [
        (f"{h.name} {c}", h.flows[:, k] / M3_PER_S_PER_L_PER_MIN)  # type: ignore[index]
        for h in histories
        for k, c in enumerate(CHAMBERS)
    ]
    spools = [(h.name, h.spool_position) for h in histories if h.spool_position is not None]
    power = [(f"{h.name} piston", h.power / W_PER_KW) for h in histories]  # type: ignore[operator]
    power += [(f"{h.name} supply", h.supply_power / W_PER_KW) for h in histories if h.supply_power is not None]
    panels = [("pressure [bar]", pressures), ("flow into chamber [L/min]", flows)]
    if spools:
        panels.append(("spool position [-]", spools))
    panels += [("hydraulic power [kW]", power), ("piston extension [m]", [(h.name, h.extension) for h in histories])]
    return panels  # type: ignore[return-value]


def _every_cylinder(results: Results) -> tuple[str, ...]:
    """Names of the results' hydraulic cylinders, from its scene."""
    from multibody.viz.plots import force_types_of

    return tuple(name for name, kind in force_types_of(results).items() if kind == "HydraulicCylinder")
