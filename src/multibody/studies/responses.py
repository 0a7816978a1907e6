"""Responses: what one run reports, by channel name or by a user function of its results.

A response is a callable ``f(results) -> float`` (``results``: the run's ``Results``, or its
``LinearModel`` when the study's analysis is "linear") or a string:

``"slider.position.x"``        the channel's final value (any ``Results.channel`` name)
``"final(ch)"``, ``"max(ch)"``, ``"min(ch)"``, ``"mean(ch)"``, ``"rms(ch)"``   over the run
``"ch@0.25"``                   the channel at t = 0.25 s (linear interpolation between outputs)
``"frequency(1)"``              the 1st natural frequency [Hz] of the model linearized at its
                                static equilibrium (rigid-body modes skipped), whatever the analysis
``"travel"``                    (a bare name) the function ``travel(results)`` of the model file,
                                when the study's build is a model file: it travels to the workers
                                as a name, so a script's functions work on any backend
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from multibody.studies.errors import StudyError

REDUCTIONS: dict[str, Callable[[np.ndarray], float]] = {
    "final": lambda values: float(values[-1]),
    "max": lambda values: float(np.max(values)),
    "min": lambda values: float(np.min(values)),
    "mean": lambda values: float(np.mean(values)),
    "rms": lambda values: float(np.sqrt(np.mean(np.square(values)))),
}
"""Reductions of a channel over the output instants."""

_REDUCTION = re.compile(r"^(\w+)\((.+)\)$")
_AT_TIME = re.compile(r"^(.+)@(.+)$")


@dataclass(frozen=True)
class ChannelResponse:
    """A channel of the results reduced to one number (see the module docstring)."""

    text: str
    channel: str
    reduction: str = "final"
    time: float | None = None

    def __call__(self, results) -> float:
        values = results.channel(self.channel)
        if self.time is not None:
            if not results.time[0] <= self.time <= results.time[-1]:
                raise StudyError(
                    f"response '{self.text}': t = {self.time:g} s is outside the run "
                    f"({results.time[0]:g} to {results.time[-1]:g} s)"
                )
            return float(np.interp(self.time, results.time, values))
        return REDUCTIONS[self.reduction](values)


@dataclass(frozen=True)
class NaturalFrequency:
    """The ``mode``-th (1-based) elastic natural frequency [Hz] at the static equilibrium."""

    text: str
    mode: int

    def frequency(self, linear_model) -> float:
        """From a ``LinearModel``: the ``mode``-th frequency that is not a rigid-body mode."""
        modes = linear_model.modes()
        elastic = modes.frequencies_hz[~modes.rigid_body]
        if self.mode > len(elastic):
            raise StudyError(f"response '{self.text}': the model has only {len(elastic)} elastic modes")
        return float(elastic[self.mode - 1])


@dataclass(frozen=True)
class ModelFileFunction:
    """The model file's function ``text(results) -> float``, looked up by name where the run is."""

    text: str


Response = Callable[..., float] | ChannelResponse | NaturalFrequency | ModelFileFunction


def parse_response(name: str, spec: object) -> Response:
    """Validate one response: a callable or a string as in the module docstring."""
    if callable(spec) and not isinstance(spec, str):
        return spec  # type: ignore[return-value]
    if not isinstance(spec, str) or not spec.strip():
        raise StudyError(f"response '{name}': give a function f(results) -> float or a channel string, got {spec!r}")
    text = spec.strip()
    reduction = _REDUCTION.match(text)
    if reduction:
        kind, argument = reduction.groups()
        if kind == "frequency":
            if not argument.strip().isdigit() or int(argument) < 1:
                raise StudyError(f"response '{name}': frequency(n) needs a mode number n >= 1, got {text!r}")
            return NaturalFrequency(text, int(argument))
        if kind not in REDUCTIONS:
            raise StudyError(
                f"response '{name}': unknown reduction {kind!r} in {text!r}; use one of "
                f"{', '.join(REDUCTIONS)} or frequency(n)"
            )
        return ChannelResponse(text, argument.strip(), kind)
    if text.isidentifier():
        return ModelFileFunction(text)
    at_time = _AT_TIME.match(text)
    if at_time:
        channel, time = at_time.groups()
        try:
            return ChannelResponse(text, channel.strip(), time=float(time))
        except ValueError:
            raise StudyError(f"response '{name}': '{time}' in {text!r} is not a time in seconds") from None
    return ChannelResponse(text, text)


def parse_responses(responses: Mapping[str, object]) -> dict[str, Response]:
    """Validate ``{name: function or string}``; raises ``StudyError`` naming the response."""
    if not isinstance(responses, Mapping) or not responses:
        raise StudyError("responses must be a non-empty mapping of name -> f(results) or a channel string")
    for name in responses:
        if not isinstance(name, str) or not name:
            raise StudyError(f"response name {name!r} must be a non-empty string")
    return {name: parse_response(name, spec) for name, spec in responses.items()}
