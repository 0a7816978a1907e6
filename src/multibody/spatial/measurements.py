"""Measurements between markers: what state-dependent function expressions read.

A ``Measurements`` holds the world pose and motion of every marker at one instant (arrays
(nm, ...)) or over a history (arrays (T, nm, ...)); every method broadcasts over the leading
axes. Marker arguments are marker indices, or ``None`` for the ground origin and axes (the ADAMS
default when a J or reference marker is left out). Vectors come back in the axes of marker
``k`` (world when ``k`` is None), and ``l`` names the frame in which time derivatives are taken.
Units are SI: m, m/s, m/s^2, rad, rad/s, rad/s^2, N, N m.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from multibody.spatial import rotations
from multibody.spatial.rotations import FloatArray

Marker = int | None


@dataclass(frozen=True)
class ElementWrench:
    """A force element's or constraint's load on its I marker: force [N] and torque about the I
    origin [N m], world (..., 3), and its I and J marker indices (J None when action-only)."""

    force_W: FloatArray
    torque_W: FloatArray
    i_marker: int
    j_marker: int | None


@dataclass(frozen=True)
class Measurements:
    """Marker states at one instant or over a history. Accelerations and element wrenches are
    known after an analysis (for output requests), not while forces are being evaluated."""

    time: FloatArray | float
    p_WM_W: FloatArray
    R_WM: FloatArray
    v_WM_W: FloatArray
    w_WM_W: FloatArray
    a_WM_W: FloatArray | None = None
    alpha_WM_W: FloatArray | None = None
    wrenches: Mapping[str, ElementWrench] = field(default_factory=dict)
    x: FloatArray | None = None
    """first-order states (..., nx) of the elements that carry them, when known"""
    states_of: Callable[[str], slice] | None = None
    """where an element's states sit in ``x`` (``CoordinateLayout.states_of``)"""

    def state(self, owner: str, k: int = 0) -> FloatArray:
        """State ``k`` of element ``owner`` (ADAMS DIF, ARYVAL of an X array), at the instant or
        over the history."""
        if self.x is None or self.states_of is None:
            raise ValueError("first-order states are not known here")
        return self.x[..., self.states_of(owner).start + k]

    def _vector(self, array: FloatArray | None, marker: Marker, what: str) -> FloatArray:
        if array is None:
            raise ValueError(f"{what} are not known here: they can be read in output requests only")
        if marker is None:
            return np.zeros(array.shape[:-2] + (3,))
        return array[..., marker, :]

    def _in_axes(self, vector_W: FloatArray, k: Marker) -> FloatArray:
        """World vector (..., 3) in the axes of marker ``k``."""
        if k is None:
            return vector_W
        return np.einsum("...ji,...j->...i", self.R_WM[..., k, :, :], vector_W)

    def _frame_rate(self, l: Marker) -> FloatArray:
        return self._vector(self.w_WM_W, l, "angular velocities")

    def displacement(self, i: Marker, j: Marker = None, k: Marker = None) -> FloatArray:
        """Origin of I from origin of J [m], in K axes (DX, DY, DZ; DM is its length)."""
        d = self._vector(self.p_WM_W, i, "positions") - self._vector(self.p_WM_W, j, "positions")
        return self._in_axes(d, k)

    def velocity(self, i: Marker, j: Marker = None, k: Marker = None, l: Marker = None) -> FloatArray:
        """Rate of the displacement of I from J seen in frame L [m/s], in K axes (VX, VY, VZ)."""
        d = self._vector(self.p_WM_W, i, "positions") - self._vector(self.p_WM_W, j, "positions")
        v = self._vector(self.v_WM_W, i, "velocities") - self._vector(self.v_WM_W, j, "velocities")
        return self._in_axes(v - np.cross(self._frame_rate(l), d), k)

    def radial_velocity(self, i: Marker, j: Marker = None, l: Marker = None) -> FloatArray:
        """VR: rate of the distance between the I and J origins seen in frame L [m/s]."""
        d = self.displacement(i, j)
        length = np.linalg.norm(d, axis=-1)
        direction = d / np.where(length > 0.0, length, 1.0)[..., None]
        return np.sum(direction * self.velocity(i, j, None, l), axis=-1)

    def acceleration(self, i: Marker, j: Marker = None, k: Marker = None, l: Marker = None) -> FloatArray:
        """Second rate of the displacement of I from J seen in frame L [m/s^2], in K axes (ACCX ...)."""
        d = self._vector(self.p_WM_W, i, "positions") - self._vector(self.p_WM_W, j, "positions")
        v = self._vector(self.v_WM_W, i, "velocities") - self._vector(self.v_WM_W, j, "velocities")
        a = self._vector(self.a_WM_W, i, "accelerations") - self._vector(self.a_WM_W, j, "accelerations")
        w, alpha = self._frame_rate(l), self._vector(self.alpha_WM_W, l, "angular accelerations")
        seen = a - 2.0 * np.cross(w, v) + np.cross(w, np.cross(w, d)) - np.cross(alpha, d)
        return self._in_axes(seen, k)

    def angular_velocity(self, i: Marker, j: Marker = None, k: Marker = None) -> FloatArray:
        """Angular velocity of I relative to J [rad/s], in K axes (WX, WY, WZ)."""
        w = self._vector(self.w_WM_W, i, "angular velocities") - self._vector(self.w_WM_W, j, "angular velocities")
        return self._in_axes(w, k)

    def angular_acceleration(self, i: Marker, j: Marker = None, k: Marker = None, l: Marker = None) -> FloatArray:
        """Rate seen in frame L of the angular velocity of I relative to J [rad/s^2], in K axes (WDTX ...)."""
        w = self._vector(self.w_WM_W, i, "angular velocities") - self._vector(self.w_WM_W, j, "angular velocities")
        alpha = self._vector(self.alpha_WM_W, i, "angular accelerations") - self._vector(
            self.alpha_WM_W, j, "angular accelerations"
        )
        return self._in_axes(alpha - np.cross(self._frame_rate(l), w), k)

    def rotation(self, i: Marker, j: Marker = None) -> FloatArray:
        """``R_JI`` (..., 3, 3): the axes of I in J axes."""
        R_I = self._axes(i)
        R_J = self._axes(j)
        return np.swapaxes(R_J, -1, -2) @ R_I

    def _axes(self, marker: Marker) -> FloatArray:
        if marker is None:
            return np.broadcast_to(np.eye(3), self.R_WM.shape[:-3] + (3, 3))
        return self.R_WM[..., marker, :, :]

    def rotation_angle(self, i: Marker, j: Marker, axis: int) -> FloatArray:
        """AX, AY, AZ (``axis`` 0, 1, 2): the angle [rad] I is turned about J's axis, ADAMS's
        ``atan2(-z_I.y_J, z_I.z_J)``, ``atan2(z_I.x_J, z_I.z_J)``, ``atan2(x_I.y_J, x_I.x_J)``."""
        R = self.rotation(i, j)
        if axis == 0:
            return np.arctan2(-R[..., 1, 2], R[..., 2, 2])
        if axis == 1:
            return np.arctan2(R[..., 0, 2], R[..., 2, 2])
        return np.arctan2(R[..., 1, 0], R[..., 0, 0])

    def euler_angle(self, i: Marker, j: Marker, which: int) -> FloatArray:
        """PSI, THETA, PHI (``which`` 0, 1, 2): body-fixed 3-1-3 angles [rad] of I relative to J."""
        R = self.rotation(i, j)
        if which == 0:
            return np.arctan2(R[..., 0, 2], -R[..., 1, 2])
        if which == 1:
            return np.arccos(np.clip(R[..., 2, 2], -1.0, 1.0))
        return np.arctan2(R[..., 2, 0], R[..., 2, 1])

    def euler_parameters(self, i: Marker, j: Marker = None) -> FloatArray:
        """Euler parameters (..., 4) of I relative to J, scalar first, e0 >= 0 (ORIENT type 27)."""
        return rotations.euler_parameters_from_rotation(self.rotation(i, j))

    def wrench(self, element: str, on_j: bool, k: Marker = None) -> FloatArray:
        """Force and torque (..., 6) of ``element`` on its I marker (about I's origin), or on its J
        marker (about J's origin) when ``on_j``, in K axes."""
        if element not in self.wrenches:
            raise ValueError(f"the loads of '{element}' are not known here: they can be read in output requests only")
        w = self.wrenches[element]
        force, torque = w.force_W, w.torque_W
        if on_j:
            lever = self._vector(self.p_WM_W, w.i_marker, "positions") - self._vector(
                self.p_WM_W, w.j_marker, "positions"
            )
            force, torque = -force, -torque - np.cross(lever, force)
        return np.concatenate([self._in_axes(force, k), self._in_axes(torque, k)], axis=-1)

    def net_wrench(self, i: int, j: int, k: Marker = None) -> FloatArray:
        """Force and torque (..., 6) on marker I from every element acting between markers I and J
        (either way round), torque about I's origin, in K axes (REQUEST FORCE)."""
        total = None
        for name, w in self.wrenches.items():
            if {w.i_marker, w.j_marker} != {i, j}:
                continue
            part = self.wrench(name, on_j=w.i_marker != i, k=k)
            total = part if total is None else total + part
        if total is None:
            return np.zeros(self.p_WM_W.shape[:-2] + (6,))
        return total
