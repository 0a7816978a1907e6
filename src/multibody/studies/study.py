"""Study: a model with named parameters and responses, and the studies one runs on it.

>>> study = Study(build, {"k": (100.0, 400.0), "m": [1.0, 2.0]},       # doctest: +SKIP
...               {"peak": "max(mass.position.z)", "f1": "frequency(1)"},
...               analysis="dynamics", t_end=0.5, output_step=0.01)
>>> study.latin_hypercube(50, seed=1).table()                            # doctest: +SKIP

Every study method takes ``client`` (see ``execution``: None a local process pool, "inline",
a ``distributed.Client`` or a scheduler address), ``workers`` (pool size, default all cores),
``progress`` (a bar over runs) and, for the designs fixed in advance, ``store``: an HDF5 file
the finished runs are appended to as they finish; calling the same study with the same file
again computes only the runs not in it (a killed study resumes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.studies import design as designs
from multibody.studies import sensitivity
from multibody.studies.errors import StudyError
from multibody.studies.execution import backend, execute, named_points
from multibody.studies.optimization import Objective
from multibody.studies.optimization import optimize as run_optimization
from multibody.studies.parameters import parse_parameters, scale
from multibody.studies.responses import ModelFileFunction, parse_responses
from multibody.studies.result import StudyResult
from multibody.studies.run import ModelRun, RunOutcome, check_analysis

DEFAULT_ACCURACY = 1e-6
"""Relative accuracy of a response when the analysis has no ``rtol`` (statics, linear: Newton to 1e-10)."""


class Study:
    """A parametrized model and its responses.

    Parameters
    ----------
    build : callable or str or Path
        ``build(**params) -> Model``, a function defined at module level (the process pool and
        Dask import it by name), or the path of a model file defining such a ``build``.
    parameters : mapping
        ``name -> (low, high)`` (a range) or ``name -> [v1, v2, ...]`` (values).
    responses : mapping
        ``name -> f(results) -> float`` or a channel string (``"max(slider.position.x)"``,
        ``"slider.position.x@0.3"``, ``"frequency(1)"``, or the bare name of a function of the
        model file; see ``multibody.studies.responses``).
    analysis : str
        "dynamics" (default), "kinematics", "quasi_statics", "statics" or "linear"; response
        functions receive the ``Results`` (the ``LinearModel`` for "linear").
    **options
        The analysis function's arguments: ``t_end`` and ``output_step`` [s] (required for
        time histories), ``method``, ``rtol``, ``formulation`` ...
    """

    def __init__(
        self,
        build: Callable[..., object] | str | Path,
        parameters: Mapping[str, object],
        responses: Mapping[str, object],
        analysis: str = "dynamics",
        **options: object,
    ) -> None:
        if isinstance(build, Path):
            build = str(build)
        if isinstance(build, str):
            if not Path(build).is_file():
                raise StudyError(f"model file '{build}' not found")
            build = str(Path(build).resolve())
        elif not callable(build):
            raise StudyError(f"build must be a function build(**params) -> Model or a model file path, got {build!r}")
        check_analysis(analysis, options)
        self.parameters = parse_parameters(parameters)
        self.names = tuple(p.name for p in self.parameters)
        self.response_names = tuple(responses)
        self.task = ModelRun(build, analysis, dict(options), parse_responses(responses))
        # A missing model-file function fails here, once, not in every run.
        if isinstance(build, str):
            self.task.model_file_function("build")
        for response in self.task.responses.values():
            if isinstance(response, ModelFileFunction):
                self.task.model_file_function(response.text)

    def __repr__(self) -> str:
        return f"Study(parameters {', '.join(self.names)}; responses {', '.join(self.response_names)})"

    @property
    def accuracy(self) -> float:
        """Relative accuracy of the responses: the integrator's ``rtol`` (dynamics default 1e-6)."""
        return float(self.task.options.get("rtol", DEFAULT_ACCURACY))  # type: ignore[arg-type]

    # -- designs ------------------------------------------------------------------------------

    def sweep(self, levels: int = 5, **execution: object) -> StudyResult:
        """Full factorial: every combination of the list values and ``levels`` evenly spaced
        values of each range (one parameter: a plain sweep)."""
        return self.run(designs.full_factorial(self.parameters, levels), kind="sweep", **execution)

    def latin_hypercube(self, n: int, seed: int | None = None, **execution: object) -> StudyResult:
        """``n`` runs on a Latin hypercube (``scipy.stats.qmc``), reproducible with ``seed``."""
        return self.run(designs.latin_hypercube(self.parameters, n, seed), kind="latin_hypercube", **execution)

    def sobol_sequence(self, n: int, seed: int | None = None, **execution: object) -> StudyResult:
        """``n`` runs on a scrambled Sobol' low-discrepancy sequence (``scipy.stats.qmc``)."""
        return self.run(designs.sobol_sequence(self.parameters, n, seed), kind="sobol_sequence", **execution)

    def run(
        self,
        design: ArrayLike,
        kind: str = "runs",
        client: object = None,
        workers: int | None = None,
        store: str | Path | None = None,
        progress: bool = True,
    ) -> StudyResult:
        """Run the (n, p) ``design`` (parameter values, columns in the parameters' order)."""
        points = np.asarray(design, dtype=float)
        if points.ndim != 2 or points.shape[1] != len(self.names) or not np.all(np.isfinite(points)):
            raise StudyError(
                f"design must be an (n, {len(self.names)}) array of finite values ({', '.join(self.names)})"
            )
        outcomes: dict[int, RunOutcome] = {}
        target = None
        if store is not None:
            from multibody.studies.storage import StudyStore

            target = StudyStore(store, kind, self.names, self.response_names, points)
            outcomes.update(target.finished())
        missing = [row for row in range(len(points)) if row not in outcomes]
        computed = []
        for row, outcome in execute(self.task, self.names, points, missing, client, workers, progress):
            if target is not None:
                target.append(row, outcome)
            outcomes[row] = outcome
            computed.append(row)
        ordered = [outcomes[row] for row in range(len(points))]
        return self._result(kind, points, ordered, tuple(sorted(computed)))

    # -- sensitivity --------------------------------------------------------------------------

    def sobol(self, n: int, seed: int | None = None, **execution: object) -> StudyResult:
        """Sobol' indices (S1, ST) of every response by Saltelli's scheme (SALib): ``n`` base
        samples, ``n (p + 2)`` runs. Indices are in ``result.sensitivity[response]``."""
        unit = sensitivity.sobol_unit_design(len(self.names), n, seed)
        result = self.run(scale(self.parameters, unit), kind="sobol", **execution)
        indices = {
            name: sensitivity.sobol_indices(len(self.names), result.response(name), seed)
            for name in self.response_names
        }
        return _with(result, sensitivity=indices)

    def morris(
        self, trajectories: int = 10, levels: int = 4, seed: int | None = None, **execution: object
    ) -> StudyResult:
        """Morris screening (SALib): ``trajectories`` one-at-a-time paths on a grid of ``levels``
        values per parameter, ``trajectories (p + 1)`` runs; elementary effects per whole range."""
        unit = sensitivity.morris_unit_design(len(self.names), trajectories, levels, seed)
        result = self.run(scale(self.parameters, unit), kind="morris", **execution)
        indices = {
            name: sensitivity.morris_indices(unit, result.response(name), levels, seed) for name in self.response_names
        }
        return _with(result, sensitivity=indices)

    def local_sensitivity(self, at: Mapping[str, float] | None = None, **execution: object) -> StudyResult:
        """Derivatives of every response with respect to every parameter at ``at`` (default: the
        middle of the ranges) by central differences, ``1 + 2 p`` runs; step ``rtol^(1/3)`` of
        each range (see ``sensitivity``). In ``result.sensitivity[response]["derivative"]``."""
        point = self._point(at)
        ranges = np.array([p.high - p.low for p in self.parameters])
        design, steps = sensitivity.central_difference_design(point, ranges, self.accuracy)
        result = self.run(design, kind="local_sensitivity", **execution)
        indices = {
            name: {"derivative": sensitivity.central_derivatives(result.response(name), steps), "step": steps}
            for name in self.response_names
        }
        return _with(result, sensitivity=indices)

    # -- optimization -------------------------------------------------------------------------

    def optimize(
        self,
        objective: Objective,
        method: str = "SLSQP",
        x0: Mapping[str, float] | None = None,
        constraints: Mapping[str, tuple[float | None, float | None]] | None = None,
        maximize: bool = False,
        max_iterations: int | None = None,
        seed: int | None = None,
        client: object = None,
        workers: int | None = None,
        progress: bool = False,
    ) -> StudyResult:
        """Minimize (or ``maximize``) ``objective`` over the parameter ranges with scipy.optimize.

        ``objective``: a parameter or response name, or a function of the dict of a run's
        parameters and responses by name (called in this process); ``constraints``:
        ``{response: (low, high)}`` (None for an open side); ``method``: "SLSQP" (default),
        "trust-constr", "L-BFGS-B" (central-difference gradients, run in parallel), or the
        derivative-free "COBYLA", "COBYQA", "Nelder-Mead", "Powell", "differential_evolution" (global;
        ``seed``). ``x0``: the start (default the middle of the ranges). The result's rows are the
        evaluations in order; ``result.optimum`` holds the best point.
        """
        lists = [p.name for p in self.parameters if not p.is_range]
        if lists:
            raise StudyError(f"optimize needs ranges (low, high); parameters {', '.join(lists)} are lists of values")
        low = np.array([p.low for p in self.parameters])
        high = np.array([p.high for p in self.parameters])

        with backend(self.task, client, workers) as runner:

            def evaluate_batch(points: NDArray[np.float64]) -> list[RunOutcome]:
                found = dict(runner(named_points(self.names, points, range(len(points))), progress))
                return [found[row] for row in range(len(points))]

            history, optimum = run_optimization(
                evaluate_batch,
                self.names,
                low,
                high,
                self.response_names,
                objective,
                method,
                self._point(x0),
                dict(constraints or {}),
                maximize,
                self.accuracy,
                max_iterations,
                seed,
            )
        points = np.array([x for x, _ in history])
        result = self._result("optimize", points, [o for _, o in history], tuple(range(len(history))))
        return _with(result, optimum=optimum)

    # -- helpers ------------------------------------------------------------------------------

    def _point(self, at: Mapping[str, float] | None) -> NDArray[np.float64]:
        given = dict(at or {})
        unknown = sorted(set(given) - set(self.names))
        if unknown:
            raise StudyError(f"unknown parameters {', '.join(unknown)}; the parameters are: {', '.join(self.names)}")
        return np.array([float(given.get(p.name, p.middle)) for p in self.parameters])

    def _result(self, kind: str, points: NDArray[np.float64], outcomes: list[RunOutcome], computed) -> StudyResult:
        count = len(self.response_names)
        return StudyResult(
            kind=kind,
            parameter_names=self.names,
            response_names=self.response_names,
            parameters=points.reshape(-1, len(self.names)),
            responses=np.array([o.responses for o in outcomes], dtype=float).reshape(-1, count),
            errors=tuple(o.error for o in outcomes),
            seconds=np.array([o.seconds for o in outcomes]),
            computed=computed,
        )


def _with(result: StudyResult, **changes: object) -> StudyResult:
    import dataclasses

    return dataclasses.replace(result, **changes)
