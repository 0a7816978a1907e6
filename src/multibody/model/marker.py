"""Marker: a frame fixed on a body, the place every joint, force and output attaches to."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import Element, ModelError

if TYPE_CHECKING:
    from multibody.model.body import Body


class Marker(Element):
    """A frame fixed on ``body``.

    ``position`` [m] is the marker origin from the body's CM frame origin, in body axes
    (for ground: in world axes); ``orientation`` is ``R_BM`` (3x3), marker axes in body axes.
    Create markers with ``body.add_marker``.
    """

    kind = "marker"

    def __init__(self, name: str, body: Body, position: NDArray[np.float64], orientation: NDArray[np.float64]) -> None:
        super().__init__(name)
        self.body = body
        self.position = position
        self.orientation = orientation

    def describe(self) -> str:
        return f"marker '{self.name}' on {self.body.describe()}"

    @property
    def full_name(self) -> str:
        """``body/marker``, unique within a model."""
        return f"{self.body.name}/{self.name}"


def marker_orientation(
    owner: str,
    z_axis: ArrayLike | None,
    x_axis: ArrayLike | None,
    orientation: ArrayLike | None,
    euler_angles: ArrayLike | None,
) -> NDArray[np.float64]:
    """Validate one of the ways of giving a marker's axes and return ``R_BM`` (3x3).

    Exactly one of: ``z_axis`` (optionally with ``x_axis``), ``orientation`` (3x3 rotation
    matrix or 4 Euler parameters), ``euler_angles`` (ADAMS body-fixed 3-1-3 psi, theta, phi
    [rad]); none of them gives the body's own axes.
    """
    from multibody.spatial import rotations

    given = [g is not None for g in (z_axis, orientation, euler_angles)]
    if sum(given) > 1:
        raise ModelError(f"{owner}: give only one of z_axis, orientation or euler_angles")
    if x_axis is not None and z_axis is None:
        raise ModelError(f"{owner}: x_axis needs z_axis as well")
    if z_axis is not None:
        z = finite_vector(owner, "z_axis", z_axis, 3)
        if np.linalg.norm(z) < 1e-12:
            raise ModelError(f"{owner}: z_axis has zero length; give a direction such as (0, 0, 1)")
        if x_axis is not None:
            x = finite_vector(owner, "x_axis", x_axis, 3)
            x_perp = x - np.dot(x, z) / np.dot(z, z) * z
            if np.linalg.norm(x_perp) < 1e-9 * max(np.linalg.norm(x), 1e-300):
                raise ModelError(
                    f"{owner}: x_axis has zero length or is parallel to z_axis; give a direction perpendicular to z"
                )
            return rotations.rotation_from_axes(z, x)
        return rotations.rotation_from_axes(z)
    if euler_angles is not None:
        psi, theta, phi = finite_vector(owner, "euler_angles", euler_angles, 3)
        return rotations.rotation_from_313_angles(psi, theta, phi)
    if orientation is not None:
        return rotation_matrix(owner, orientation)
    return np.eye(3)


def rotation_matrix(owner: str, orientation: ArrayLike) -> NDArray[np.float64]:
    """A 3x3 rotation matrix from a rotation matrix or 4 Euler parameters, checked for orthonormality."""
    from multibody.spatial import rotations

    value = numbers(owner, "orientation", orientation)
    if value.shape == (4,):
        norm = np.linalg.norm(value)
        if not np.isfinite(norm) or abs(norm - 1.0) > 1e-6:
            raise ModelError(f"{owner}: Euler parameters must have unit norm, got norm {norm:.6g}")
        return rotations.rotation_from_euler_parameters(value / norm)
    if value.shape != (3, 3) or not np.all(np.isfinite(value)):
        raise ModelError(
            f"{owner}: orientation must be a 3x3 rotation matrix or 4 Euler parameters, got shape {value.shape}"
        )
    if np.max(np.abs(value.T @ value - np.eye(3))) > 1e-6 or np.linalg.det(value) < 0.0:
        raise ModelError(f"{owner}: orientation is not a proper rotation matrix (R^T R != I or det(R) != 1)")
    return value


LARGEST_COORDINATE = 1e12
"""[m] The farthest a body or marker may be placed from the world origin: float64 resolves a
coordinate that large to 2e-4 m, and squares of larger ones head for overflow."""


def numbers(owner: str, what: str, value: ArrayLike) -> NDArray[np.float64]:
    """``value`` (a number, or nested sequences of numbers) as a float array, or a ``ModelError``
    naming ``owner`` when it is anything else: a string, None, ragged lists ..."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        array = None
    if array is None or array.dtype.kind not in "iuf":
        raise ModelError(f"{owner}: {what} must be numbers, got {value!r}")
    return array.astype(float)


def real_number(owner: str, what: str, value: object) -> float:
    """``value`` as a float (any finite real number, not a string or bool), or a ``ModelError``."""
    try:
        array = numbers(owner, what, value)  # type: ignore[arg-type]
    except ModelError:
        array = None
    if array is None or array.ndim != 0 or not np.isfinite(array):
        raise ModelError(f"{owner}: {what} must be a finite number, got {value!r}")
    return float(array)


def bounded_number(
    owner: str, what: str, value: object, unit: str = "", lower: float = 0.0, strict: bool = False
) -> float:
    """``value`` as a float ``>= lower`` (``> lower`` when ``strict``), or a ``ModelError`` naming
    ``owner``, ``what`` and its ``unit``."""
    number = real_number(owner, f"{what} [{unit}]" if unit else what, value)
    if number < lower or (strict and number == lower):
        bound = f"{'>' if strict else '>='} {lower:g}{' ' + unit if unit else ''}"
        raise ModelError(f"{owner}: {what} must be {bound}, got {value!r}")
    return number


def finite_vector(owner: str, what: str, value: ArrayLike, size: int = 3) -> NDArray[np.float64]:
    """``value`` as a float vector of ``size`` finite numbers, or a ``ModelError`` naming ``owner``."""
    vector = numbers(owner, what, value)
    if vector.shape != (size,) or not np.all(np.isfinite(vector)):
        raise ModelError(f"{owner}: {what} must be {size} finite numbers, got {value!r}")
    return vector


def position_vector(owner: str, value: ArrayLike) -> NDArray[np.float64]:
    """A position [m]: 3 finite numbers within ``LARGEST_COORDINATE`` of the origin, or a ``ModelError``."""
    vector = finite_vector(owner, "position", value)
    if np.max(np.abs(vector)) > LARGEST_COORDINATE:
        raise ModelError(
            f"{owner}: position {vector.tolist()} m is more than {LARGEST_COORDINATE:g} m from the origin; "
            "float64 cannot resolve a mechanism there: give positions in metres, near the origin"
        )
    return vector


def check_marker_pair(element: Element, markers: dict[str, object], between: str | None) -> None:
    """Raise ``ModelError`` naming ``element`` unless every value of ``markers`` (role -> marker,
    e.g. ``{"i_marker": ..., "j_marker": ...}``) is a Marker, and, when ``between`` says what the
    element does (e.g. "a joint connects two different bodies"), the two markers are on
    different bodies."""
    for role, marker in markers.items():
        if not isinstance(marker, Marker):
            raise ModelError(f"{element.describe()}: {role} must be a Marker (from body.add_marker), got {marker!r}")
    if between is not None:
        i_marker, j_marker = markers.values()
        if i_marker.body is j_marker.body:
            raise ModelError(
                f"{element.describe()}: markers '{i_marker.name}' and '{j_marker.name}' are both on "
                f"{i_marker.body.describe()}; {between}"
            )
