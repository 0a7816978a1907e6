"""One run of a study: build the model from parameter values, run the analysis, reduce to responses.

``ModelRun`` is the task every backend executes (in-process, a worker of the process pool, a
Dask worker), so it holds only what pickles: the build function (importable by name) or the path
of a model file whose ``build(**params)`` makes the model, the analysis and its options, and the
responses. A run never raises: a failure comes back as its error message, so one bad design point
does not stop a study.
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np

from multibody.studies.errors import StudyError
from multibody.studies.responses import ModelFileFunction, NaturalFrequency, Response

ANALYSES = {
    "dynamics": "dynamics",
    "kinematics": "kinematics",
    "quasi_statics": "quasi_statics",
    "statics": "statics",
    "linear": "linearize",
}
"""What a run can compute -> the ``multibody`` function that does; "linear" hands a
``LinearModel`` to the response functions."""

_MODEL_FILES: dict[str, ModuleType] = {}
"""Model files loaded in this process, by path (a worker loads each file once)."""


@dataclass(frozen=True)
class RunOutcome:
    """The responses of one run in the study's order (NaN where it failed), its error message
    (None if it succeeded) and its wall time [s]."""

    responses: tuple[float, ...]
    error: str | None
    seconds: float


@dataclass(frozen=True)
class ModelRun:
    """Build, analyse and reduce one design point; ``options`` go to the analysis function
    (``multibody.dynamics(model, t_end, output_step, **rest)`` for "dynamics")."""

    build: Callable[..., object] | str
    analysis: str
    options: Mapping[str, object]
    responses: Mapping[str, Response] = field(default_factory=dict)

    def __call__(self, parameters: Mapping[str, float]) -> RunOutcome:
        start = time.perf_counter()
        try:
            values = self.evaluate(parameters)
        except Exception as error:  # recorded, not raised: the study goes on
            last = traceback.extract_tb(error.__traceback__)[-1]
            where = f" (at {Path(last.filename).name}:{last.lineno})"
            nan = (float("nan"),) * len(self.responses)
            return RunOutcome(nan, f"{type(error).__name__}: {error}{where}", time.perf_counter() - start)
        return RunOutcome(values, None, time.perf_counter() - start)

    def evaluate(self, parameters: Mapping[str, float]) -> tuple[float, ...]:
        """The responses at ``parameters`` (raises whatever the model or analysis raises)."""
        import multibody as mb

        model = self.build_function()(**{name: float(value) for name, value in parameters.items()})
        if not isinstance(model, mb.Model):
            raise StudyError(f"build returned {type(model).__name__}, expected a multibody.Model")
        with warnings.catch_warnings():  # redundant rows are removed and reported by compile; a study needs no warning
            warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
            system = model.compile()
        results = self.analyse(system)
        linear_model = results if self.analysis == "linear" else None
        values = []
        for name, response in self.responses.items():
            if isinstance(response, NaturalFrequency):
                if linear_model is None:
                    linear_model = mb.linearize(system)
                value = response.frequency(linear_model)
            elif isinstance(response, ModelFileFunction):
                value = self.model_file_function(response.text)(results)
            else:
                value = response(results)
            try:
                values.append(float(value))
            except (TypeError, ValueError):
                raise StudyError(f"response '{name}' returned {value!r}, not a number") from None
        return tuple(values)

    def analyse(self, system):
        """Run the analysis on the compiled ``system``: ``Results`` (``LinearModel`` for "linear")."""
        return analysis_function(self.analysis)(system, **self.options)

    def build_function(self) -> Callable[..., object]:
        """The build function: the one given, or ``build`` of the model file."""
        if callable(self.build):
            return self.build
        return self.model_file_function("build")

    def model_file_function(self, name: str) -> Callable[..., object]:
        """The function ``name`` of the model file (loaded once per process); ``StudyError`` if
        the build is not a model file or the file has no such function."""
        if callable(self.build):
            raise StudyError(
                f"response '{name}' names a function of the model file, but build is a function; pass the "
                "model file's path as build, or give the response function itself"
            )
        if self.build not in _MODEL_FILES:
            from multibody.cli import UsageError, load_model_file

            try:
                _MODEL_FILES[self.build] = load_model_file(self.build)
            except UsageError as error:
                raise StudyError(str(error)) from None
        function = getattr(_MODEL_FILES[self.build], name, None)
        if not callable(function):
            raise StudyError(f"model file '{self.build}' defines no function {name}()")
        return function


def analysis_function(analysis: str) -> Callable[..., object]:
    """The ``multibody`` function of ``analysis`` (a key of ``ANALYSES``)."""
    import multibody

    return getattr(multibody, ANALYSES[analysis])


def check_analysis(analysis: str, options: Mapping[str, object]) -> None:
    """Raise ``StudyError`` unless ``analysis`` is known, takes ``options`` and has those it needs."""
    import inspect

    if analysis not in ANALYSES:
        raise StudyError(f"analysis must be one of {', '.join(ANALYSES)}, got {analysis!r}")
    accepted = list(inspect.signature(analysis_function(analysis)).parameters)[1:]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise StudyError(f"{analysis} takes no option {', '.join(unknown)}; its options are: {', '.join(accepted)}")
    if analysis in ("dynamics", "kinematics", "quasi_statics"):
        missing = [name for name in ("t_end", "output_step") if name not in options]
        if missing:
            raise StudyError(
                f"a {analysis} study needs {' and '.join(missing)} [s], e.g. Study(..., t_end=1.0, output_step=0.01)"
            )
    for name in ("t_end", "output_step"):
        if name in options and not (isinstance(options[name], (int, float, np.number)) and options[name] > 0):
            raise StudyError(f"{name} must be a positive number of seconds, got {options[name]!r}")
