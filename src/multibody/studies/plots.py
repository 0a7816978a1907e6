"""Figures of a study (matplotlib, imported on use): responses against parameters, a scatter
matrix, Sobol'/Morris/local sensitivity bars, and an optimization's history."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from multibody.studies.errors import StudyError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from multibody.studies.result import StudyResult

PANEL = 2.4
"""Width and height of one panel [in]."""
KINDS = ("response", "scatter_matrix", "sensitivity", "history")
DEFAULT_KIND = {
    "sobol": "sensitivity",
    "morris": "sensitivity",
    "local_sensitivity": "sensitivity",
    "optimize": "history",
}


def plot_study(result: StudyResult, kind: str | None = None, response: str | None = None) -> Figure:
    """The figure ``kind`` (see ``StudyResult.plot``) of ``result``, for ``response`` or all."""
    kind = kind or DEFAULT_KIND.get(result.kind, "response")
    if kind not in KINDS:
        raise StudyError(f"plot kind must be one of {', '.join(KINDS)}, got {kind!r}")
    responses = (
        result.response_names
        if response is None
        else (result.response_names[result._column(result.response_names, response, "response")],)
    )
    if kind == "response":
        return _responses(result, responses)
    if kind == "scatter_matrix":
        return _scatter_matrix(result, responses)
    if kind == "sensitivity":
        if not result.sensitivity:
            raise StudyError(
                f"a {result.kind} study has no sensitivity indices; run .sobol, .morris or .local_sensitivity"
            )
        return _sensitivity(result, responses)
    if not result.optimum:
        raise StudyError(f"a {result.kind} study has no optimization history; run .optimize")
    return _history(result)


def _figure(rows: int, columns: int):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(PANEL * columns + 0.6, PANEL * rows + 0.4), layout="constrained")
    return figure, figure.subplots(rows, columns, squeeze=False)


def _responses(result: StudyResult, responses: tuple[str, ...]) -> Figure:
    figure, axes = _figure(len(responses), len(result.parameter_names))
    for i, name in enumerate(responses):
        for j, parameter in enumerate(result.parameter_names):
            ax = axes[i, j]
            ax.plot(result.parameter(parameter), result.response(name), "o", markersize=3)
            ax.set_xlabel(parameter)
            ax.set_ylabel(name)
            ax.grid(True, alpha=0.4)
    return figure


def _scatter_matrix(result: StudyResult, responses: tuple[str, ...]) -> Figure:
    columns = {name: result.parameter(name) for name in result.parameter_names}
    columns.update({name: result.response(name) for name in responses})
    names = list(columns)
    figure, axes = _figure(len(names), len(names))
    for i, row_name in enumerate(names):
        for j, column_name in enumerate(names):
            ax = axes[i, j]
            if i == j:
                values = columns[row_name]
                ax.hist(values[np.isfinite(values)], bins="auto")
            else:
                ax.plot(columns[column_name], columns[row_name], "o", markersize=2)
            if i == len(names) - 1:
                ax.set_xlabel(column_name)
            if j == 0:
                ax.set_ylabel(row_name)
    return figure


def _sensitivity(result: StudyResult, responses: tuple[str, ...]) -> Figure:
    figure, axes = _figure(len(responses), 1)
    positions = np.arange(len(result.parameter_names))
    for ax, name in zip(axes[:, 0], responses):
        indices = result.sensitivity[name]
        if result.kind == "sobol":
            bars = (("S1", "first order S1", "S1_conf"), ("ST", "total ST", "ST_conf"))
        elif result.kind == "morris":
            bars = (("mu_star", "mu* (mean |effect|)", "mu_star_conf"), ("sigma", "sigma", None))
        else:
            bars = (("derivative", "d response / d parameter", None),)
        width = 0.8 / len(bars)
        for k, (key, label, error) in enumerate(bars):
            ax.bar(
                positions + (k - (len(bars) - 1) / 2) * width,
                indices[key],
                width,
                label=label,
                yerr=None if error is None else indices[error],
                capsize=3,
            )
        ax.set_xticks(positions, result.parameter_names)
        ax.set_title(f"{name}: {result.kind.replace('_', ' ')}")
        ax.legend(fontsize="small")
        ax.grid(True, axis="y", alpha=0.4)
    return figure


def _history(result: StudyResult) -> Figure:
    figure, axes = _figure(1, 1)
    ax = axes[0, 0]
    values = np.asarray(result.optimum["objective_history"], dtype=float)
    evaluations = np.arange(1, len(values) + 1)
    ax.plot(evaluations, values, "o", markersize=3, label="evaluation")
    if result.optimum.get("maximize"):
        best = np.maximum.accumulate(np.where(np.isfinite(values), values, -np.inf))
    else:
        best = np.minimum.accumulate(np.where(np.isfinite(values), values, np.inf))
    ax.plot(evaluations, best, "-", label="best so far")
    ax.set_xlabel("evaluation")
    ax.set_ylabel("objective")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.4)
    return figure
