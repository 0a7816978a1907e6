"""Bodies: the ground and rigid bodies, with their markers and initial conditions."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import Element, ModelError
from multibody.model.geometry import Link, PlacedShape, Shape, place_shape
from multibody.model.marker import (
    Marker,
    finite_vector,
    marker_orientation,
    numbers,
    position_vector,
    real_number,
    rotation_matrix,
)

EXACT_CHOICES = ("x", "y", "z", "orientation", "vx", "vy", "vz", "angular_velocity")
"""Initial-condition components a user may mark exact for assembly (world axes)."""


class Body(Element):
    """Something markers can be fixed on. ``add_marker`` creates and returns a ``Marker``."""

    kind = "body"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.markers: dict[str, Marker] = {}
        self.shapes: list[PlacedShape] = []

    def add_marker(
        self,
        name: str,
        position: ArrayLike = (0.0, 0.0, 0.0),
        z_axis: ArrayLike | None = None,
        x_axis: ArrayLike | None = None,
        orientation: ArrayLike | None = None,
        euler_angles: ArrayLike | None = None,
        frame: str = "body",
    ) -> Marker:
        """Fix a marker on this body and return it.

        ``position`` [m] and the axes are in this body's CM axes (``frame="body"``) or in world
        axes in the model's input configuration (``frame="world"``). Axes are given by one of:
        ``z_axis`` (+ optional ``x_axis``), ``orientation`` (3x3 matrix or Euler parameters),
        ``euler_angles`` (ADAMS body-fixed 3-1-3 psi, theta, phi [rad]); default: body axes.
        """
        owner = f"marker '{name}' on {self.describe()}"
        if name in self.markers:
            raise ModelError(f"{owner}: {self.describe()} already has a marker named '{name}'; choose another name")
        p = position_vector(owner, position)
        R = marker_orientation(owner, z_axis, x_axis, orientation, euler_angles)
        if frame == "world":
            p, R = self.world_to_body(p, R)
        elif frame != "body":
            raise ModelError(f"{owner}: frame must be 'body' or 'world', got {frame!r}")
        marker = Marker(name, self, p, R)
        self.markers[name] = marker
        return marker

    def add_shape(self, shape: Shape | Link, marker: Marker | None = None) -> PlacedShape:
        """Show ``shape`` (see ``multibody.model.geometry``) on this body, in the frame of ``marker``
        (one of this body's markers) or of the body; a ``Link`` spans its two markers. Display only:
        the mass properties stay as given (see ``RigidBody.from_shape``)."""
        placed = place_shape(self, shape, marker)
        self.shapes.append(placed)
        return placed

    def marker(self, name: str) -> Marker:
        """The marker called ``name`` on this body (``KeyError`` lists the body's markers)."""
        try:
            return self.markers[name]
        except KeyError:
            raise KeyError(
                f"{self.describe()} has no marker '{name}'; its markers are: {', '.join(self.markers) or 'none'}"
            ) from None

    def world_to_body(
        self, p_W: NDArray[np.float64], R_WM: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Convert a point and frame given in world axes (input configuration) to body axes."""
        return p_W, R_WM


class Ground(Body):
    """The fixed world frame. Its markers are given in world axes."""

    def __init__(self, name: str = "ground") -> None:
        super().__init__(name)


class MovingBody(Body):
    """A body with its own coordinates: where its frame is and how fast it moves at the start."""

    def set_initial_conditions(
        self,
        position: ArrayLike | None,
        orientation: ArrayLike | None,
        velocity: ArrayLike | None,
        angular_velocity: ArrayLike | None,
        exact: Iterable[str],
    ) -> None:
        """Frame origin position [m] and ``R_WB`` (3x3 or 4 Euler parameters), velocity [m/s] and
        angular velocity [rad/s] in world components; each None is zero (identity) and free in
        assembly; ``exact`` names those assembly must keep (``EXACT_CHOICES``)."""
        owner = self.describe()
        self.given = {
            "position": position is not None,
            "orientation": orientation is not None,
            "velocity": velocity is not None,
            "angular_velocity": angular_velocity is not None,
        }
        self.position = np.zeros(3) if position is None else position_vector(owner, position)
        self.orientation = np.eye(3) if orientation is None else rotation_matrix(owner, orientation)
        self.velocity = np.zeros(3) if velocity is None else finite_vector(owner, "velocity", velocity)
        self.angular_velocity = (
            np.zeros(3) if angular_velocity is None else finite_vector(owner, "angular_velocity", angular_velocity)
        )
        self.exact = tuple(exact)
        unknown = [e for e in self.exact if e not in EXACT_CHOICES]
        if unknown:
            raise ModelError(f"{owner}: exact accepts {', '.join(EXACT_CHOICES)}; got {', '.join(map(repr, unknown))}")

    def world_to_body(
        self, p_W: NDArray[np.float64], R_WM: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        R_WB = self.orientation
        return R_WB.T @ (p_W - self.position), R_WB.T @ R_WM


class RigidBody(MovingBody):
    """A rigid body.

    Parameters
    ----------
    mass : float
        Mass [kg], > 0.
    inertia : array_like
        Inertia about the CM in body axes [kg m^2]: a 3x3 symmetric matrix, 3 principal moments,
        or 6 values (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) with products of inertia as in ADAMS IP
        (the matrix holds +Ixy off the diagonal).
    position : array_like, optional
        CM position in world [m] in the input configuration (default origin, free in assembly).
    orientation : array_like, optional
        ``R_WB`` as a 3x3 rotation matrix or 4 Euler parameters (scalar first); default world
        axes, free in assembly.
    velocity, angular_velocity : array_like, optional
        Initial CM velocity [m/s] and angular velocity [rad/s], world components; default zero,
        free in assembly.
    exact : iterable of str
        Initial conditions assembly must keep: any of ``EXACT_CHOICES``.
    """

    def __init__(
        self,
        name: str,
        mass: float,
        inertia: ArrayLike,
        position: ArrayLike | None = None,
        orientation: ArrayLike | None = None,
        velocity: ArrayLike | None = None,
        angular_velocity: ArrayLike | None = None,
        exact: Iterable[str] = (),
    ) -> None:
        super().__init__(name)
        owner = self.describe()
        self.mass = real_number(owner, "mass [kg]", mass)
        if self.mass <= 0.0:
            raise ModelError(f"{owner}: mass must be positive, got {mass!r} kg")
        self.inertia = inertia_matrix(owner, inertia)
        self.set_initial_conditions(position, orientation, velocity, angular_velocity, exact)

    @classmethod
    def from_shape(cls, name: str, shape: Shape, density: float, **initial_conditions: object) -> RigidBody:
        """A body whose mass [kg] and inertia come from ``shape`` filled with ``density`` [kg/m^3].

        The body frame is at the shape's centre of mass with the shape's axes; the shape is added
        for display. ``initial_conditions`` are those of ``RigidBody`` (``position`` is the CM's).
        """
        if not isinstance(shape, Shape):
            raise ModelError(f"body '{name}': from_shape needs a solid shape (Box, Sphere, Mesh ...), got {shape!r}")
        properties = shape.mass_properties(density)
        body = cls(name, properties.mass, properties.inertia, **initial_conditions)  # type: ignore[arg-type]
        body.shapes.append(PlacedShape(shape, -properties.center, np.eye(3), body=body))
        return body


def inertia_matrix(owner: str, inertia: ArrayLike) -> NDArray[np.float64]:
    """Validated 3x3 inertia matrix [kg m^2] from 3x3, 3 principal or 6 (ADAMS IP) values.

    Raises ``ModelError`` if it is not symmetric positive definite or its principal moments
    violate the triangle inequality (no real mass distribution has such an inertia).
    """
    value = numbers(owner, "inertia", inertia)
    if value.shape == (3,):
        J = np.diag(value)
    elif value.shape == (6,):
        Ixx, Iyy, Izz, Ixy, Ixz, Iyz = value
        J = np.array([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]])
    elif value.shape == (3, 3):
        J = value
    else:
        raise ModelError(f"{owner}: inertia must be 3x3, 3 principal moments or 6 values, got shape {value.shape}")
    if not np.all(np.isfinite(J)) or np.max(np.abs(J - J.T)) > 1e-9 * max(np.max(np.abs(J)), 1e-300):
        raise ModelError(f"{owner}: inertia matrix must be finite and symmetric")
    principal = np.linalg.eigvalsh(J)
    if principal[0] <= 0.0:
        raise ModelError(
            f"{owner}: inertia is not positive definite (principal moments {np.round(principal, 12).tolist()} kg m^2)"
        )
    a, b, c = principal
    if c > a + b + 1e-9 * c:
        raise ModelError(
            f"{owner}: principal moments {a:.6g}, {b:.6g}, {c:.6g} kg m^2 violate the triangle inequality "
            f"(the largest must not exceed the sum of the other two)"
        )
    return J
