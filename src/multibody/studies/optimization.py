"""Optimization of a design over its parameter ranges with scipy.optimize.

The search runs in normalized coordinates ``z = (x - low) / (high - low)`` in [0, 1], so every
parameter has the same scale for tolerances and steps. The objective is a response name, or a
function of one dict holding the parameters and the responses of a run by name; constraints
bound responses: ``{"frequency": (2.0, None)}`` keeps ``frequency >= 2``. Every evaluation is
one run of the study.

Gradient methods ("SLSQP", "trust-constr", "L-BFGS-B") get their gradients by central
differences, all ``2 p`` points of one gradient evaluated together on the study's client (in
parallel on a pool or a cluster), step ``accuracy^(1/3)`` of each range (see ``sensitivity``).
Derivative-free methods: "COBYLA" (bounds and constraints; its final trust-region radius is
``accuracy`` in normalized coordinates), "COBYQA", "Nelder-Mead" and "Powell" (bounds only) and
"differential_evolution" (global, bounds and constraints; each generation evaluated together).
COBYQA is offered without constraints only: scipy 1.17's COBYQA returns its start point for as
simple a problem as "minimize k subject to sqrt(k/m)/(2 pi) >= f", where COBYLA converges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError
from multibody.studies.run import RunOutcome
from multibody.studies.sensitivity import central_difference_design

GRADIENT_METHODS = ("SLSQP", "trust-constr", "L-BFGS-B")
DERIVATIVE_FREE = ("COBYLA", "COBYQA", "Nelder-Mead", "Powell", "differential_evolution")
CONSTRAINED = ("SLSQP", "trust-constr", "COBYLA", "differential_evolution")

Objective = str | Callable[[Mapping[str, float]], float]
BatchEvaluator = Callable[[NDArray[np.float64]], list[RunOutcome]]
"""(k, p) parameter values -> the k outcomes, in the same order."""


@dataclass
class Search:
    """The evaluations of one optimization and the scipy functions built on them."""

    evaluate_batch: BatchEvaluator
    low: NDArray[np.float64]
    span: NDArray[np.float64]
    response_names: tuple[str, ...]
    objective: Objective
    sign: float
    accuracy: float
    names: tuple[str, ...] = ()
    history: list[tuple[NDArray[np.float64], RunOutcome]] = field(default_factory=list)
    _cache: dict[bytes, tuple[NDArray[np.float64], RunOutcome]] = field(default_factory=dict)

    def outcomes(self, points_z: NDArray[np.float64]) -> list[tuple[NDArray[np.float64], RunOutcome]]:
        """(parameter values, outcome) at normalized points (k, p); new points are run together,
        repeats come from the cache."""
        keys = [np.ascontiguousarray(z).tobytes() for z in points_z]
        new = {key: z for key, z in zip(keys, points_z) if key not in self._cache}
        if new:
            x_new = self.low + np.array(list(new.values())) * self.span
            for key, x, outcome in zip(new, x_new, self.evaluate_batch(x_new)):
                self._cache[key] = (x, outcome)
                self.history.append((x, outcome))
        return [self._cache[key] for key in keys]

    def values(self, run: tuple[NDArray[np.float64], RunOutcome]) -> dict[str, float]:
        """The run's parameters and responses by name."""
        x, outcome = run
        return {**dict(zip(self.names, (float(v) for v in x))), **dict(zip(self.response_names, outcome.responses))}

    def objective_value(self, run: tuple[NDArray[np.float64], RunOutcome]) -> float:
        """The signed objective (minimized); +inf for a failed run so the search steps away from it."""
        if run[1].error is not None:
            return np.inf
        values = self.values(run)
        value = values[self.objective] if isinstance(self.objective, str) else self.objective(values)
        return self.sign * float(value)

    def function(self, z: NDArray[np.float64]) -> float:
        return self.objective_value(self.outcomes(np.atleast_2d(np.clip(z, 0.0, 1.0)))[0])

    def vectorized(self, z_columns: NDArray[np.float64]) -> NDArray[np.float64]:
        """differential_evolution's vectorized form: z (p, S) -> (S,)."""
        return np.array([self.objective_value(o) for o in self.outcomes(np.clip(z_columns.T, 0.0, 1.0))])

    def gradient_of(
        self, value: Callable[[tuple[NDArray[np.float64], RunOutcome]], float]
    ) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
        """Central-difference gradient in z of ``value`` (all points of one gradient run together)."""

        def gradient(z: NDArray[np.float64]) -> NDArray[np.float64]:
            design, steps = central_difference_design(np.asarray(z, dtype=float), np.ones(len(z)), self.accuracy)
            outcomes = self.outcomes(design)
            values = np.array([value(o) for o in outcomes])
            return (values[2::2] - values[1::2]) / (2.0 * steps)

        return gradient

    def response_value(self, name: str) -> Callable[[tuple[NDArray[np.float64], RunOutcome]], float]:
        column = self.response_names.index(name)
        return lambda run: run[1].responses[column]


def optimize(
    evaluate_batch: BatchEvaluator,
    names: Sequence[str],
    low: NDArray[np.float64],
    high: NDArray[np.float64],
    response_names: tuple[str, ...],
    objective: Objective,
    method: str,
    x0: NDArray[np.float64],
    constraints: Mapping[str, tuple[float | None, float | None]],
    maximize: bool,
    accuracy: float,
    max_evaluations: int | None,
    seed: int | None,
) -> tuple[list[tuple[NDArray[np.float64], RunOutcome]], dict]:
    """Run the optimization; returns the history (parameter values, outcome) in evaluation order
    and the optimum (parameters, objective, responses, success, message, evaluations and
    objective_history, the objective of every evaluation)."""
    import scipy.optimize as so

    if isinstance(objective, str) and objective not in (*names, *response_names):
        raise StudyError(
            f"objective '{objective}' is neither a parameter nor a response; "
            f"they are: {', '.join((*names, *response_names))}"
        )
    if not (isinstance(objective, str) or callable(objective)):
        raise StudyError(
            f"objective must be a name or a function of the dict of parameters and responses, got {objective!r}"
        )
    if method not in GRADIENT_METHODS + DERIVATIVE_FREE:
        raise StudyError(
            f"method {method!r} is not available; gradient-based: {', '.join(GRADIENT_METHODS)}; "
            f"derivative-free: {', '.join(DERIVATIVE_FREE)}"
        )
    for name, bounds in constraints.items():
        if name not in response_names:
            raise StudyError(f"constraint on '{name}': not a response; the responses are: {', '.join(response_names)}")
        if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2) or bounds == (None, None):
            raise StudyError(f"constraint on '{name}': give (low, high) with None for an open side, got {bounds!r}")
    if constraints and method not in CONSTRAINED:
        raise StudyError(f"method {method} takes no constraints; use one of {', '.join(CONSTRAINED)}")
    span = high - low
    search = Search(
        evaluate_batch, low, span, response_names, objective, -1.0 if maximize else 1.0, accuracy, tuple(names)
    )
    z0 = (np.asarray(x0, dtype=float) - low) / span
    bounds = so.Bounds(np.zeros(len(low)), np.ones(len(low)))
    scipy_constraints = []
    for name, (lower, upper) in constraints.items():
        value = search.response_value(name)
        if method == "differential_evolution":  # vectorized: z (p, S) -> (1, S)
            fun = lambda z, value=value: np.array([[value(o) for o in search.outcomes(np.atleast_2d(z.T))]])  # noqa: E731
        else:
            fun = lambda z, value=value: value(search.outcomes(np.atleast_2d(z))[0])  # noqa: E731
        jac = search.gradient_of(value) if method in GRADIENT_METHODS else "2-point"
        scipy_constraints.append(
            so.NonlinearConstraint(
                fun, -np.inf if lower is None else lower, np.inf if upper is None else upper, jac=jac
            )
        )
    options: dict = {} if max_evaluations is None else {"maxiter": int(max_evaluations)}
    if method == "differential_evolution":
        found = so.differential_evolution(
            search.vectorized,
            bounds,
            x0=z0,
            constraints=scipy_constraints,
            seed=np.random.default_rng(seed),
            vectorized=True,
            updating="deferred",
            polish=False,
            tol=accuracy,
            **options,
        )
    else:
        jac = search.gradient_of(search.objective_value) if method in GRADIENT_METHODS else None
        if method == "SLSQP":
            options["ftol"] = accuracy**2
        elif method == "COBYLA":
            options["tol"] = accuracy
        found = so.minimize(
            search.function,
            z0,
            method=method,
            jac=jac,
            bounds=bounds,
            constraints=scipy_constraints,
            options=options,
        )
    best_z = np.clip(found.x, 0.0, 1.0)
    best = search.outcomes(np.atleast_2d(best_z))[0]
    optimum = {
        "parameters": dict(zip(names, (float(v) for v in best[0]))),
        "objective": search.sign * search.objective_value(best),
        "responses": dict(zip(response_names, best[1].responses)),
        "maximize": maximize,
        "success": bool(found.success),
        "message": str(found.message),
        "evaluations": len(search.history),
        "objective_history": np.array([search.sign * search.objective_value(run) for run in search.history]),
    }
    return search.history, optimum
