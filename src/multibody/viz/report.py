"""A one-page HTML report of a run, laid out as a results browser: the model summary, solver
statistics and final state, then a tree of the bodies, joints, forces, contacts and energy beside
the 3D animation and interactive plots (uPlot, inlined: the page works offline by double-click).

The plots follow the animation's time (a red line) and a click on a plot moves the animation to
that time. Channels that are zero to round-off are drawn as zero with a note
(``multibody.viz.browser_data``). The page exposes its state as ``window.multibodyReport``.
"""

from __future__ import annotations

import html
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from multibody.results import Results
from multibody.viz.animation import animation_html
from multibody.viz.browser_data import browser_data

if TYPE_CHECKING:
    from multibody.model.model import Model
    from multibody.system.system import System


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
    span = (
        f"; {len(results)} output instants, t = {results.time[0]:g} .. {results.time[-1]:g} s" if len(results) else ""
    )
    parts = [
        "<header>",
        f"<h1>{_text(layout.model_name)}: {_text(layout.analysis)}</h1>",
        f'<p>status: <span class="status-{_text(results.status)}">{_text(results.status)}</span>'
        + (f" &mdash; {_text(results.message)}" if results.message else "")
        + span
        + "</p>",
        "</header>",
        '<div id="overview">',
        f'<section class="wide"><h2>Model</h2><pre>{_text(summary)}</pre></section>',
        f'<section class="narrow"><h2>Solver statistics</h2>{_stats_table(results.stats)}</section>',
    ]
    data: dict[str, Any] = {"time": "", "tree": [], "selection": []}
    if len(results):
        parts.append(
            f'<section class="wide"><h2>Final state</h2><pre>{_text(results.final_state_table())}</pre></section>'
        )
        data = browser_data(results)
    parts.append("</div>")
    if not len(results):
        parts.append('<p id="empty">The results hold no output instants: there is nothing to plot or animate.</p>')
    else:
        animation = html.escape(animation_html(model, results, channels), quote=True)
        parts += [
            '<div id="browser">',
            _tree(data),
            '<main id="views">',
            f'<iframe id="animation" title="animation" srcdoc="{animation}"></iframe>',
            '<div id="plots"></div>',
            "</main>",
            "</div>",
        ]
    vendor = resources.files("multibody.viz") / "vendor"
    sources = {
        "TITLE": _text(layout.model_name),
        "BODY": "\n".join(parts),
        "UPLOT_CSS": (vendor / "uPlot.min.css").read_text(encoding="utf-8"),
        "UPLOT": (vendor / "uPlot.iife.min.js").read_text(encoding="utf-8") if len(results) else "",
        "DATA": json.dumps(data, separators=(",", ":")).replace("</", "<\\/"),
        "REPORT": (resources.files("multibody.viz") / "report.js").read_text(encoding="utf-8") if len(results) else "",
    }
    for name in ("UPLOT", "REPORT"):
        if "</script" in sources[name].lower():
            raise ValueError(f"{name} contains '</script' and cannot be inlined in the page")
    template = (resources.files("multibody.viz") / "report.html").read_text(encoding="utf-8")
    # one pass over the template, so that inserted text is never searched for placeholders
    page = re.sub(r"@@MULTIBODY_([A-Z_]+)@@", lambda match: sources[match.group(1)], template)
    path = Path(path)
    path.write_text(page, encoding="utf-8")
    return path


def _tree(data: dict[str, Any]) -> str:
    """The browser's tree: a heading per group, a button per element (its standard plots) and
    per quantity (that plot); quantities that are zero throughout are greyed and marked."""
    lines = ['<nav id="tree" aria-label="results">']
    for group in data["tree"]:
        lines.append(f"<h3>{_text(group['title'])}</h3><ul>")
        for element in group["elements"]:
            name = _text(element["name"])
            lines.append(
                f'<li class="element-item"><button class="element" data-group="{_text(group["key"])}" data-element="{name}" '
                f'title="{name}">{name}</button><ul class="quantities">'
            )
            for panel in element["panels"]:
                quantity = panel["id"].removeprefix(element["name"] + ".")
                zero = " zero" if panel["zero"] else ""
                lines.append(
                    f'<li><button class="channel{zero}" data-panel="{_text(panel["id"])}" '
                    f'title="{_text(panel["title"])} [{_text(panel["unit"])}]">{_text(quantity)}</button></li>'
                )
            lines.append("</ul></li>")
        lines.append("</ul>")
    lines.append("</nav>")
    return "\n".join(lines)


def _stats_table(stats: dict[str, int | float]) -> str:
    if not stats:
        return "<p>(none recorded)</p>"
    rows = "".join(
        f'<tr><td>{_text(name)}</td><td class="number">{value if isinstance(value, int) else f"{value:.6g}"}</td></tr>'
        for name, value in stats.items()
    )
    return f"<table>{rows}</table>"


def _text(value: object) -> str:
    return html.escape(str(value), quote=True)
