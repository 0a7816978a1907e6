"""The study file of ``multibody study study.toml``: model, parameters, responses, design, where to run.

::

    model = "four_bar_study.py"          # a model file with build(**params); relative to this file
    analysis = "dynamics"                # default dynamics

    [options]                            # the analysis' arguments
    t_end = 1.0
    output_step = 0.01

    [parameters]                         # a range as {low, high}, values as a list
    crank_length = { low = 0.08, high = 0.12 }
    damping = [0.0, 0.5, 1.0]

    [responses]                          # channel strings (see multibody.studies.responses)
    peak_speed = "max(rocker.angular_velocity.y)"

    [design]                             # type: sweep, latin_hypercube, sobol_sequence, sobol,
    type = "latin_hypercube"             #   morris, local_sensitivity or optimize; with its
    n = 200                              #   arguments (n, seed, levels, trajectories, objective,
    seed = 1                             #   method, constraints = { f = [2.0, "none"] } ...)

    [run]                                # client: "pool" (default), "inline" or a Dask scheduler
    client = "pool"                      #   address; workers; store (HDF5, for resuming);
    workers = 2                          #   table (CSV) and plot (.png/.svg/.pdf) to write
    store = "study.h5"
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from multibody.studies.errors import StudyError
from multibody.studies.result import StudyResult
from multibody.studies.study import Study

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DESIGNS = ("sweep", "latin_hypercube", "sobol_sequence", "sobol", "morris", "local_sensitivity", "optimize")
SECTIONS = ("model", "analysis", "options", "parameters", "responses", "design", "run")
RUN_KEYS = ("client", "workers", "store", "table", "plot", "progress")
NO_BOUND = "none"
"""Written for an open side of a constraint (TOML has no null)."""


def read_config(path: str | Path) -> dict[str, Any]:
    """The parsed study file, checked for its sections; paths made relative to its folder."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"study file '{path}' not found")
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise StudyError(f"study file '{path}' is not valid TOML: {error}") from None
    unknown = sorted(set(config) - set(SECTIONS))
    if unknown:
        raise StudyError(f"study file '{path}': unknown keys {', '.join(unknown)}; the keys are {', '.join(SECTIONS)}")
    for required in ("model", "parameters", "responses"):
        if required not in config:
            raise StudyError(f"study file '{path}' needs '{required}'")
    run = config.setdefault("run", {})
    unknown = sorted(set(run) - set(RUN_KEYS))
    if unknown:
        raise StudyError(
            f"study file '{path}': [run] has unknown keys {', '.join(unknown)}; they are {', '.join(RUN_KEYS)}"
        )
    config["model"] = str(path.parent / config["model"])
    for key in ("store", "table", "plot"):
        if key in run:
            run[key] = str(path.parent / run[key])
    return config


def study_from_config(config: dict[str, Any]) -> Study:
    """The ``Study`` a parsed study file describes."""
    parameters: dict[str, object] = {}
    for name, spec in config["parameters"].items():
        if isinstance(spec, dict):
            if sorted(spec) != ["high", "low"]:
                raise StudyError(f"parameter '{name}': write a range as {{ low = ..., high = ... }}, got {spec!r}")
            parameters[name] = (spec["low"], spec["high"])
        else:
            parameters[name] = spec
    return Study(
        config["model"],
        parameters,
        config["responses"],
        config.get("analysis", "dynamics"),
        **config.get("options", {}),
    )


def run_config(path: str | Path, client: object = None, workers: int | None = None) -> StudyResult:
    """Run the study file at ``path``; ``client`` and ``workers`` override its [run] section.
    Writes the table (CSV) and plot the file asks for."""
    config = read_config(path)
    study = study_from_config(config)
    run = config["run"]
    client = client if client is not None else run.get("client", "pool")
    execution: dict[str, Any] = {
        "client": None if client == "pool" else client,
        "workers": workers if workers is not None else run.get("workers"),
        "progress": run.get("progress", True),
    }
    design = dict(config.get("design", {"type": "sweep"}))
    kind = design.pop("type", "sweep")
    if kind not in DESIGNS:
        raise StudyError(f"[design] type must be one of {', '.join(DESIGNS)}, got {kind!r}")
    if kind == "optimize":
        design["constraints"] = {
            name: tuple(None if bound == NO_BOUND else bound for bound in bounds)
            for name, bounds in design.get("constraints", {}).items()
        }
    elif "store" in run:
        execution["store"] = run["store"]
    try:
        result = getattr(study, kind)(**design, **execution)
    except TypeError as error:
        raise StudyError(f"[design] of type {kind}: {error}") from None
    if "table" in run:
        write_csv(result, run["table"])
    if "plot" in run:
        result.plot().savefig(run["plot"])
    return result


def write_csv(result: StudyResult, path: str | Path) -> None:
    """The result's table as CSV: a header of names, one row per run, the error last."""
    names = [*result.parameter_names, *result.response_names]
    with open(path, "w", encoding="utf-8") as file:
        file.write(",".join([*names, "error"]) + "\n")
        for values, error in zip(np.hstack([result.parameters, result.responses]), result.errors):
            cleaned = (error or "").replace('"', "'")
            file.write(",".join(f"{v:.17g}" for v in values) + f',"{cleaned}"\n')


def summary(result: StudyResult) -> str:
    """What ``multibody study`` prints: the runs, the sensitivity indices or the optimum."""
    lines = [repr(result)]
    for row in result.failed[:5]:
        lines.append(f"  run {row} failed: {result.errors[row]}")
    for response, indices in result.sensitivity.items():
        lines.append(f"{response}:")
        keys = [key for key in indices if key != "step"]
        lines.append(f"  {'parameter':<20}" + "".join(f"{key:>14}" for key in keys))
        for k, name in enumerate(result.parameter_names):
            lines.append(f"  {name:<20}" + "".join(f"{indices[key][k]:>14.6g}" for key in keys))
    if result.optimum:
        optimum = result.optimum
        lines.append(f"optimum ({optimum['message']}, {optimum['evaluations']} evaluations):")
        lines += [
            f"  {name} = {value:.10g}" for name, value in {**optimum["parameters"], **optimum["responses"]}.items()
        ]
        lines.append(f"  objective = {optimum['objective']:.10g}")
    if not result.sensitivity and not result.optimum:
        lines.append(f"  {'response':<20}{'min':>14}{'mean':>14}{'max':>14}")
        for name in result.response_names:
            values = result.response(name)
            values = values[np.isfinite(values)]
            if len(values):
                lines.append(f"  {name:<20}{values.min():>14.6g}{values.mean():>14.6g}{values.max():>14.6g}")
    return "\n".join(lines)
