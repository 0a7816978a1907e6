"""Driver functions of velocity and acceleration motions, integrated to a displacement."""

from __future__ import annotations

import numpy as np
from scipy.integrate import quad

from multibody.model.functions import Evaluated, TimeFunction, Times


class IntegratedVelocity(TimeFunction):
    """``f(t) = f0 + integral_0^t rate(s) ds`` for a velocity motion (adaptive quadrature, 1e-13 relative)."""

    def __init__(self, rate: TimeFunction, initial: float) -> None:
        self.rate = rate
        self.initial = float(initial)

    def _value(self, t: np.ndarray) -> np.ndarray:
        return np.vectorize(lambda time: self.initial + _integral(self.rate.value, time))(t)

    def _derivative(self, t: np.ndarray) -> Evaluated:
        return self.rate.value(t)

    def _second_derivative(self, t: np.ndarray) -> Evaluated:
        return self.rate.derivative(t)


class IntegratedAcceleration(TimeFunction):
    """``f(t) = f0 + f0' t + integral_0^t (t - s) accel(s) ds`` for an acceleration motion."""

    def __init__(self, acceleration: TimeFunction, initial: float, initial_rate: float) -> None:
        self.acceleration = acceleration
        self.initial = float(initial)
        self.initial_rate = float(initial_rate)

    def _value(self, t: np.ndarray) -> np.ndarray:
        def at(time: float) -> float:
            return (
                self.initial
                + self.initial_rate * time
                + _integral(lambda s: (time - s) * self.acceleration.value(s), time)
            )

        return np.vectorize(at)(t)

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        return np.vectorize(lambda time: self.initial_rate + _integral(self.acceleration.value, time))(t)

    def _second_derivative(self, t: np.ndarray) -> Evaluated:
        return self.acceleration.value(t)


def _integral(integrand: object, t_end: Times) -> float:
    value, _ = quad(integrand, 0.0, float(t_end), epsabs=1e-14, epsrel=1e-13, limit=200)
    return value
