"""Plots of a rope over pulleys and winches against time (``res.rope(name)``): tension in each
span [kN], wrap angles [deg], pulley spins [rad/s], material coordinates of the entry and exit
points [m] and the length the winches have paid out [m] (the paper's figures 7-14 for the
massless path)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from multibody.results import Results
from multibody.viz.plots import curve_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from multibody.results.rope import RopeHistory

N_PER_KN = 1e3
"""1 kN [N]."""


def plot_rope(
    results: Results | str | os.PathLike[str],
    rope: str,
    path: str | os.PathLike[str] | None = None,
    title: str | None = None,
) -> Figure:
    """A figure of rope ``rope`` against time [s]: span tensions [kN], the pulleys' wrap angles
    [deg] and spins [rad/s], the material coordinates where the rope enters and leaves each
    pulley [m], and the paid-out length [m] when an end is a winch. ``results`` may be a results
    file; ``path`` saves the figure (format from its suffix)."""
    results = results if isinstance(results, Results) else Results.load(results)
    history = results.rope(rope)
    panels = rope_panels(history)
    return curve_figure(results.time, panels, title or f"{results.layout.model_name}: rope '{rope}'", path)


def rope_panels(history: RopeHistory) -> list[tuple[str, list[tuple[str, np.ndarray]]]]:
    """(axis label with unit, [(legend, values in that unit)]) per panel of ``plot_rope``."""
    points = history.points
    pulleys = list(range(1, len(points) - 1))
    spans = [(f"{points[k]} - {points[k + 1]}", history.span_tension[:, k] / N_PER_KN) for k in range(len(points) - 1)]
    panels = [("tension [kN]", spans)]
    if pulleys:
        panels.append(("wrap angle [deg]", [(points[k], np.degrees(history.wrap_angle[:, k])) for k in pulleys]))
        panels.append(("spin [rad/s]", [(points[k], history.spin[:, k]) for k in pulleys]))
        coordinates = [
            (f"{points[k]} {side}", history.material_coordinate[:, k, s])
            for k in pulleys
            for s, side in enumerate(("entry", "exit"))
        ]
        panels.append(("material coordinate [m]", coordinates))
    if np.any(history.paid_out):
        panels.append(("paid out [m]", [("paid out", history.paid_out)]))
    return panels
