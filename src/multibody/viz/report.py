"""A one-page HTML report of a run: model summary, solver statistics, final state, the 3D
animation and the standard plots of every body, joint and force element (PNG, embedded)."""

from __future__ import annotations

import base64
import html
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from multibody.results import Results
from multibody.viz.animation import animation_html
from multibody.viz.plots import standard_figures

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from multibody.model.model import Model
    from multibody.system.system import System

PLOT_DPI = 80
"""Resolution of the embedded plots [dots per inch]."""

STYLE = """
body { font: 14px system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccd; padding-bottom: 4px; margin-top: 28px; }
pre { background: #f5f7fa; padding: 8px 10px; border-radius: 4px; overflow-x: auto; }
table { border-collapse: collapse; } td, th { padding: 2px 12px 2px 0; text-align: left; }
td.number { text-align: right; font-family: ui-monospace, monospace; }
iframe { width: 100%; height: 620px; border: 1px solid #ccd; border-radius: 4px; }
figure { margin: 12px 0; } img { max-width: 100%; }
.status-failed, .status-interrupted, .status-running { color: #b02a2a; font-weight: bold; }
"""


def report(
    results: Results | str | os.PathLike[str],
    path: str | os.PathLike[str],
    model: Model | System | None = None,
    channels: tuple[str, ...] | list[str] | None = None,
) -> Path:
    """Write the report of ``results`` (or of a results file) to the HTML file ``path``.

    ``model`` supplies the display geometry and summary (None: from the results file);
    ``channels`` are shown as text in the animation.
    """
    results = results if isinstance(results, Results) else Results.load(results)
    layout = results.layout
    summary = json.loads(layout.scene)["summary"] if layout.scene else "(the results file holds no model description)"
    parts = [
        f"<h1>{_text(layout.model_name)}: {_text(layout.analysis)}</h1>",
        f'<p>status: <span class="status-{_text(results.status)}">{_text(results.status)}</span>'
        + (f" &mdash; {_text(results.message)}" if results.message else "")
        + (
            f"; {len(results)} output instants, t = {results.time[0]:g} .. {results.time[-1]:g} s"
            if len(results)
            else ""
        )
        + "</p>",
        "<h2>Model</h2>",
        f"<pre>{_text(summary)}</pre>",
        "<h2>Solver statistics</h2>",
        _stats_table(results.stats),
    ]
    if len(results):
        parts += [
            "<h2>Final state</h2>",
            f"<pre>{_text(results.final_state_table())}</pre>",
            "<h2>Animation</h2>",
            f'<iframe title="animation" srcdoc="{html.escape(animation_html(model, results, channels), quote=True)}"></iframe>',
            "<h2>Plots</h2>",
        ]
        for name, figure in standard_figures(results).items():
            parts.append(f'<figure id="plot-{_text(name)}"><img alt="{_text(name)}" src="{_png(figure)}"></figure>')
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_text(layout.model_name)} report</title>'
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )
    path = Path(path)
    path.write_text(page, encoding="utf-8")
    return path


def _stats_table(stats: dict[str, int | float]) -> str:
    if not stats:
        return "<p>(none recorded)</p>"
    rows = "".join(
        f'<tr><td>{_text(name)}</td><td class="number">{value if isinstance(value, int) else f"{value:.6g}"}</td></tr>'
        for name, value in stats.items()
    )
    return f"<table>{rows}</table>"


def _png(figure: Figure) -> str:
    """The figure as a data URL of a PNG image."""
    stream = io.BytesIO()
    figure.savefig(stream, format="png", dpi=PLOT_DPI)
    return "data:image/png;base64," + base64.b64encode(stream.getvalue()).decode("ascii")


def _text(value: object) -> str:
    return html.escape(str(value), quote=True)
