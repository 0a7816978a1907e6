"""Bushing: linear six-component spring-damper between two markers, in the J marker's axes."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.marker import Marker


class Bushing(ForceElement):
    """Linear bushing (ADAMS BUSHING) acting at the I origin, components in J axes.

    Force on I: ``F_J = -K d - C d_dot + preload_force`` with ``d`` the position of I from J;
    torque on I: ``T_J = -KT a - CT w_rel + preload_torque`` with ``a`` the rotation vector of I
    relative to J [rad] and ``w_rel`` the relative angular velocity, both in J axes. J receives
    the opposite force and torque at I's origin. Stiffness [N/m, N m/rad] and damping
    [N s/m, N m s/rad] are 3 non-negative diagonal values each.
    """

    def __init__(
        self,
        name: str,
        i_marker: Marker,
        j_marker: Marker,
        stiffness: ArrayLike,
        damping: ArrayLike = (0.0, 0.0, 0.0),
        rotational_stiffness: ArrayLike = (0.0, 0.0, 0.0),
        rotational_damping: ArrayLike = (0.0, 0.0, 0.0),
        preload_force: ArrayLike = (0.0, 0.0, 0.0),
        preload_torque: ArrayLike = (0.0, 0.0, 0.0),
    ) -> None:
        super().__init__(name, i_marker, j_marker)
        self.stiffness = self._diagonal("stiffness", stiffness, True)
        self.damping = self._diagonal("damping", damping, True)
        self.rotational_stiffness = self._diagonal("rotational_stiffness", rotational_stiffness, True)
        self.rotational_damping = self._diagonal("rotational_damping", rotational_damping, True)
        self.preload_force = self._diagonal("preload_force", preload_force, False)
        self.preload_torque = self._diagonal("preload_torque", preload_torque, False)

    def _diagonal(self, what: str, value: ArrayLike, non_negative: bool) -> NDArray[np.float64]:
        array = np.asarray(value, dtype=float)
        if array.shape != (3,) or not np.all(np.isfinite(array)) or (non_negative and np.any(array < 0.0)):
            need = "3 finite values >= 0" if non_negative else "3 finite values"
            raise ModelError(f"{self.describe()}: {what} must be {need}, got {value!r}")
        return array
