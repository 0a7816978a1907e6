"""Global sensitivity (Sobol' indices and Morris screening, by SALib) and local sensitivity.

Both global methods sample the unit cube, one axis per parameter, and the study scales it to the
parameters (``parameters.scale``), so Morris's elementary effects are per whole range: the change
of the response when a parameter moves from its low to its high value, comparable across
parameters of any unit.

Sobol' (Saltelli's sampling and estimators): ``n`` base samples give ``n (p + 2)`` runs; S1 is
the share of the response's variance due to a parameter alone, ST its share including all its
interactions. Their sampling error falls as 1/sqrt(n); SALib's bootstrap gives the confidence
half-widths ``S1_conf``, ``ST_conf`` (95 %).

Local: central differences at a point, the step chosen from the accuracy of the responses. A
response computed to relative accuracy eps has a central-difference error ~ h^2 |f'''| / 6 +
eps |f| / h, smallest near h ~ eps^(1/3); the step is ``eps^(1/3)`` times the parameter's range.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError

CONFIDENCE = 0.95
RESAMPLES = 200


def _problem(count: int) -> dict:
    return {"num_vars": count, "names": [f"x{k}" for k in range(count)], "bounds": [[0.0, 1.0]] * count}


def _salib():
    try:
        import SALib  # noqa: F401
    except ImportError:
        raise StudyError("Sobol' indices and Morris screening need SALib: pip install SALib") from None


def sobol_unit_design(count: int, n: int, seed: int | None) -> NDArray[np.float64]:
    """(n (count + 2), count) Saltelli points in the unit cube for ``count`` parameters."""
    _salib()
    from SALib.sample import sobol as sobol_sample

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise StudyError(f"Sobol' indices need n >= 2 base samples (a power of 2 is best), got {n!r}")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SALib's note when n is not a power of 2
        return sobol_sample.sample(_problem(count), n, calc_second_order=False, seed=seed)


def sobol_indices(count: int, values: NDArray[np.float64], seed: int | None) -> dict[str, NDArray[np.float64]]:
    """First-order and total indices (with 95 % confidence half-widths) of one response's
    ``values`` over the points of ``sobol_unit_design``; NaN if any run failed."""
    from SALib.analyze import sobol as sobol_analyze

    if not np.all(np.isfinite(values)):
        nan = np.full(count, np.nan)
        return {"S1": nan, "S1_conf": nan, "ST": nan, "ST_conf": nan}
    indices = sobol_analyze.analyze(
        _problem(count), values, calc_second_order=False, num_resamples=RESAMPLES, conf_level=CONFIDENCE, seed=seed
    )
    return {key: np.asarray(indices[key], dtype=float) for key in ("S1", "S1_conf", "ST", "ST_conf")}


def morris_unit_design(count: int, trajectories: int, levels: int, seed: int | None) -> NDArray[np.float64]:
    """(trajectories (count + 1), count) points of Morris's one-at-a-time trajectories on a grid of
    ``levels`` values per axis in the unit cube."""
    _salib()
    from SALib.sample import morris as morris_sample

    if isinstance(trajectories, bool) or not isinstance(trajectories, int) or trajectories < 2:
        raise StudyError(f"Morris screening needs trajectories >= 2, got {trajectories!r}")
    if not isinstance(levels, int) or levels < 2 or levels % 2:
        raise StudyError(f"Morris levels must be an even integer >= 2, got {levels!r}")
    return morris_sample.sample(_problem(count), trajectories, num_levels=levels, seed=seed)


def morris_indices(
    unit_design: NDArray[np.float64], values: NDArray[np.float64], levels: int, seed: int | None
) -> dict[str, NDArray[np.float64]]:
    """Mean (``mu``), mean absolute (``mu_star``, with its 95 % confidence half-width) and
    standard deviation (``sigma``) of the elementary effects per parameter; NaN if a run failed."""
    from SALib.analyze import morris as morris_analyze

    count = unit_design.shape[1]
    if not np.all(np.isfinite(values)):
        nan = np.full(count, np.nan)
        return {"mu": nan, "mu_star": nan, "mu_star_conf": nan, "sigma": nan}
    indices = morris_analyze.analyze(
        _problem(count),
        unit_design,
        values,
        num_levels=levels,
        num_resamples=RESAMPLES,
        conf_level=CONFIDENCE,
        seed=seed,
    )
    return {key: np.asarray(indices[key], dtype=float) for key in ("mu", "mu_star", "mu_star_conf", "sigma")}


def central_difference_design(
    at: NDArray[np.float64], ranges: NDArray[np.float64], accuracy: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(design (1 + 2p, p), steps (p,))``: the point ``at``, then ``at -/+ step_k e_k`` for each
    parameter, ``step_k = accuracy^(1/3) * ranges[k]``."""
    steps = np.cbrt(accuracy) * ranges
    rows = [at]
    for k, step in enumerate(steps):
        for sign in (-1.0, 1.0):
            point = at.copy()
            point[k] += sign * step
            rows.append(point)
    return np.array(rows), steps


def central_derivatives(values: NDArray[np.float64], steps: Sequence[float]) -> NDArray[np.float64]:
    """(p,) derivatives of one response from its values over ``central_difference_design``."""
    minus, plus = values[1::2], values[2::2]
    return (plus - minus) / (2.0 * np.asarray(steps))
