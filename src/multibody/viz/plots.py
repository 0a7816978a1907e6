"""Plots of results against time (matplotlib), with the channel name and unit on every axis.

Each argument of ``plot`` is one of::

    "crank.angular_velocity.z"   one channel: one curve
    "crank.angular_velocity"     a vector quantity: its components in one panel
    "crank"                      a body's, joint's or force's standard set (``STANDARD_SETS``): a panel each
    "energy"                     every energy channel in one panel (kinetic, potential, total,
                                 input and dissipated when the results carry them)

A panel whose curves are all zero to round-off (``channels.numerically_zero``) is drawn at zero
and says so, rather than magnifying the round-off into what would look like a signal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from multibody.results import Results
from multibody.viz.channels import (
    STANDARD_SETS,
    channel_unit,
    element_kind,
    family_scale,
    numerically_zero,
    quantity_unit,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PANEL_HEIGHT = 2.3
"""Height of one panel with its gap [inch]."""
MARGINS = {"left": 1.1, "right": 0.2, "top": 0.6, "bottom": 0.55, "gap": 0.5}
"""Fixed margins and the gap between panels [inch] (a layout engine would draw every figure twice)."""
FIGURE_WIDTH = 7.5
"""Width of a figure [inch]."""
COMPONENTS = {(): (), (3,): ("x", "y", "z"), (4,): ("e0", "e1", "e2", "e3")}
"""Component names of a quantity by its shape per element and instant."""


@dataclass(frozen=True)
class Panel:
    """One set of axes: its label (name and unit), and the curves (legend label, channel) in it."""

    label: str
    curves: tuple[tuple[str, str], ...]


def plot(
    results: Results | str | os.PathLike[str],
    *channels: str,
    path: str | os.PathLike[str] | None = None,
    title: str | None = None,
    force_types: dict[str, str] | None = None,
) -> Figure:
    """A figure of ``channels`` against time [s], one panel per channel, quantity or standard-set member.

    ``results`` may be a results file. ``path`` saves the figure (format from its suffix: .png,
    .svg, .pdf). ``force_types`` (force name -> element type) picks N m for rotational force
    values; it is read from the results' scene when not given.
    """
    results = results if isinstance(results, Results) else Results.load(results)
    if not channels:
        raise ValueError("name at least one channel to plot, e.g. 'crank.angular_velocity.z', 'crank' or 'energy'")
    force_types = force_types if force_types is not None else force_types_of(results)
    panels = [panel for spec in channels for panel in panels_of(results, spec, force_types)]
    figure, axes = panel_figure(len(panels))
    for ax, panel in zip(axes, panels):
        values = [results.channel(spec) for _, spec in panel.curves]
        zero = all(numerically_zero(v, family_scale(results, spec)) for v, (_, spec) in zip(values, panel.curves))
        for (label, _), curve in zip(panel.curves, values):
            ax.plot(results.time, np.zeros_like(curve) if zero else curve, label=label)
        if zero:  # round-off magnified to fill the axes would look like a signal
            ax.text(0.5, 0.6, "zero to round-off throughout", transform=ax.transAxes, ha="center", color="0.35")
        ax.set_ylabel(panel.label)
        ax.set_xlabel("time [s]")
        ax.grid(True, alpha=0.4)
        if len(panel.curves) > 1:
            ax.legend(loc="best", fontsize="small")
    figure.suptitle(title or f"{results.layout.model_name} ({results.layout.analysis})")
    if path is not None:
        figure.savefig(Path(path), dpi=110)
    return figure


def panel_figure(count: int) -> tuple[Figure, list[Axes]]:
    """A figure of ``count`` panels stacked over one shared time axis, with the fixed margins."""
    from matplotlib.figure import Figure  # imported on use: `import multibody` stays light

    height = PANEL_HEIGHT * count + MARGINS["top"] + MARGINS["bottom"] - MARGINS["gap"]
    figure = Figure(figsize=(FIGURE_WIDTH, height))
    axes = figure.subplots(count, 1, sharex=True, squeeze=False)[:, 0]
    figure.subplots_adjust(
        left=MARGINS["left"] / FIGURE_WIDTH,
        right=1.0 - MARGINS["right"] / FIGURE_WIDTH,
        top=1.0 - MARGINS["top"] / height,
        bottom=MARGINS["bottom"] / height,
        hspace=MARGINS["gap"] / (PANEL_HEIGHT - MARGINS["gap"]),
    )
    return figure, list(axes)


def curve_figure(
    time: np.ndarray,
    panels: list[tuple[str, list[tuple[str, np.ndarray]]]],
    title: str,
    path: str | os.PathLike[str] | None,
) -> Figure:
    """A ``panel_figure`` of ``panels`` (axis label with unit, [(legend, values (T,))]) over ``time``
    (T,) [s], titled ``title``, saved to ``path`` when given (format from its suffix)."""
    figure, axes = panel_figure(len(panels))
    for ax, (label, curves) in zip(axes, panels):
        for legend, values in curves:
            ax.plot(time, values, label=legend)
        ax.set_ylabel(label)
        ax.set_xlabel("time [s]")
        ax.grid(True, alpha=0.4)
        if len(curves) > 1:
            ax.legend(loc="best", fontsize="small")
    figure.suptitle(title)
    if path is not None:
        figure.savefig(Path(path), dpi=110)
    return figure


def panels_of(results: Results, spec: str, force_types: dict[str, str]) -> list[Panel]:
    """The panels one ``plot`` argument makes (see the module docstring)."""
    kind = element_kind(results, spec)
    if kind == "energy":
        return [Panel("energy [J]", tuple((name, f"energy.{name}") for name in results.energy))]
    if kind is not None:
        return [quantity_panel(results, spec, quantity, force_types) for quantity in STANDARD_SETS[kind]]
    element, _, quantity = spec.rpartition(".")
    if element and element_kind(results, element) not in (None, "energy"):
        return [quantity_panel(results, element, quantity, force_types)]
    results.channel(spec)  # raises a KeyError or ValueError that names what exists
    return [Panel(f"{spec} [{channel_unit(spec, force_types)}]", ((spec, spec),))]


def quantity_panel(results: Results, element: str, quantity: str, force_types: dict[str, str]) -> Panel:
    """A panel with every component of ``element``'s ``quantity`` (one curve for a scalar)."""
    key = f"{element_kind(results, element)}/{quantity}"
    if key not in results.arrays:
        results.channel(f"{element}.{quantity}")  # raises a KeyError that lists the quantities
    components = COMPONENTS[results.arrays[key].shape[2:]]
    unit = quantity_unit(quantity, force_types.get(element))
    curves = tuple((c, f"{element}.{quantity}.{c}") for c in components) or ((quantity, f"{element}.{quantity}"),)
    return Panel(f"{element}.{quantity} [{unit}]", curves)


def force_types_of(results: Results) -> dict[str, str]:
    """Force element name -> its type ("SpringDamper", "TorsionSpring" ...), from the results' scene."""
    if not results.layout.scene:
        return {}
    return {force["name"]: force["type"] for force in json.loads(results.layout.scene)["forces"]}
