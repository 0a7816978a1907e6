"""Design parameters by name: a continuous range ``(low, high)`` or a list of values.

A design is made in the unit cube, one column per parameter, and scaled here: a range maps
``u`` in [0, 1] to ``low + u (high - low)``; a list maps ``u`` to the value at
``floor(u n)`` (clipped to the last), so every listed value is equally likely.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError


@dataclass(frozen=True)
class Parameter:
    """One named parameter: ``values`` (a list) or ``low``/``high`` (a range)."""

    name: str
    low: float
    high: float
    values: tuple[float, ...] | None = None

    @property
    def is_range(self) -> bool:
        """Whether the parameter takes any value between ``low`` and ``high``."""
        return self.values is None

    def from_unit(self, u: NDArray[np.float64]) -> NDArray[np.float64]:
        """Values for unit-cube coordinates ``u`` (any shape)."""
        if self.values is None:
            return self.low + u * (self.high - self.low)
        index = np.minimum((u * len(self.values)).astype(int), len(self.values) - 1)
        return np.asarray(self.values)[index]

    @property
    def middle(self) -> float:
        """The centre of the range (the middle listed value for a list)."""
        if self.values is None:
            return 0.5 * (self.low + self.high)
        return self.values[len(self.values) // 2]


def parse_parameters(parameters: Mapping[str, object]) -> tuple[Parameter, ...]:
    """Validate ``{name: (low, high) or [v1, v2, ...]}``: a tuple of two numbers is a range, a list
    (of one or more numbers) is a set of values. Raises ``StudyError`` naming the parameter."""
    if not isinstance(parameters, Mapping) or not parameters:
        raise StudyError("parameters must be a non-empty mapping of name -> (low, high) or [values]")
    parsed = []
    for name, spec in parameters.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise StudyError(f"parameter name {name!r} must be a Python identifier (it is passed as build(**params))")
        if isinstance(spec, tuple) and len(spec) == 2:
            low, high = (_number(name, value) for value in spec)
            if not high > low:
                raise StudyError(f"parameter '{name}': range ({low:g}, {high:g}) needs low < high")
            parsed.append(Parameter(name, low, high))
        elif isinstance(spec, Sequence) and not isinstance(spec, (str, tuple)) and len(spec) > 0:
            values = tuple(_number(name, value) for value in spec)
            parsed.append(Parameter(name, min(values), max(values), values))
        else:
            raise StudyError(
                f"parameter '{name}': give a range as a tuple (low, high) or values as a list [v1, v2, ...], "
                f"got {spec!r}"
            )
    return tuple(parsed)


def _number(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
    ):
        raise StudyError(f"parameter '{name}': {value!r} is not a finite number")
    return float(value)


def scale(parameters: Sequence[Parameter], unit: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n, p) parameter values for (n, p) unit-cube points."""
    return np.column_stack([parameter.from_unit(unit[:, k]) for k, parameter in enumerate(parameters)])
