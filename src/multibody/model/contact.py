"""Impact pairs: two surfaces that may touch, each pair with a gap function and a restitution law
(event-driven rigid impacts; the compliant contact force between shapes is ``mb.Contact``,
``multibody.model.forces.contact``).

A contact pair is described by a signed normal gap ``g(q)`` [m] (positive apart, zero touching,
negative interpenetrating) written as one constraint-style row between an I and a J marker, so
that its rate is ``dg/dt = G_c v`` with the same velocity-space Jacobian machinery as the joints:

``PointPlaneContact``    a point (I marker origin) and a plane (J marker's xy-plane, normal z_J):
                         ``g = z_J . (p_I - p_J)``
``SpherePlaneContact``   a sphere (centre at the I marker origin, radius r) and a plane:
                         ``g = z_J . (p_I - p_J) - r``
``SphereSphereContact``  two spheres (centres at the I and J marker origins, radii r_I, r_J):
                         ``g = |p_I - p_J| - r_I - r_J``

Contacts are frictionless. At an impact the normal relative velocity of the contact points
reverses with Newton's coefficient of restitution ``e`` (``dg/dt+ = -e dg/dt-``, see
``multibody.analysis.impact``); an impact slower than ``rest_velocity`` [m/s] ends in sustained
contact instead of another bounce (see ``multibody.analysis.events``).
"""

from __future__ import annotations

from multibody.model.element import Element, ModelError
from multibody.model.marker import Marker, check_marker_pair, real_number

DEFAULT_REST_VELOCITY = 1e-3
"""Normal impact speed [m/s] below which a contact settles into sustained contact."""


class ImpactPair(Element):
    """A frictionless, event-driven (rigid impact) contact pair between the I marker's body and the J marker's body.

    ``gap_kind`` is the constraint primitive whose residual is the gap: "in_plane"
    (``z_J . (p_I - p_J)``) or "distance" (``|p_I - p_J| - gap_offset``).
    """

    kind = "contact"
    gap_kind = "in_plane"

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker, restitution: float, rest_velocity: float) -> None:
        super().__init__(name)
        check_marker_pair(
            self, {"i_marker": i_marker, "j_marker": j_marker}, "a contact pair is between two different bodies"
        )
        restitution = real_number(self.describe(), "coefficient of restitution", restitution)
        rest_velocity = real_number(self.describe(), "rest_velocity [m/s]", rest_velocity)
        if not 0.0 <= restitution <= 1.0:
            raise ModelError(
                f"{self.describe()}: coefficient of restitution must be in [0, 1] (0 plastic, 1 elastic), "
                f"got {restitution!r}"
            )
        if rest_velocity < 0.0:
            raise ModelError(
                f"{self.describe()}: rest_velocity must be a non-negative speed in m/s, got {rest_velocity!r}"
            )
        self.i_marker = i_marker
        self.j_marker = j_marker
        self.restitution = float(restitution)
        self.rest_velocity = float(rest_velocity)
        self.gap_offset = 0.0

    def attached_markers(self) -> tuple[Marker, ...]:
        """Markers this element attaches to."""
        return (self.i_marker, self.j_marker)


class PointPlaneContact(ImpactPair):
    """Point ``point`` (a marker origin) against the plane through ``plane``'s origin normal to its z-axis.

    The gap is positive on the +z side of the plane: put the point there in the input configuration.
    """

    def __init__(
        self,
        name: str,
        point: Marker,
        plane: Marker,
        restitution: float,
        rest_velocity: float = DEFAULT_REST_VELOCITY,
    ) -> None:
        super().__init__(name, point, plane, restitution, rest_velocity)


class SpherePlaneContact(ImpactPair):
    """Sphere of ``radius`` [m] centred at marker ``center`` against the plane of marker ``plane``
    (normal: its z-axis; the sphere lies on the +z side).

    The gap is the centre's height above the plane raised by ``radius``: the pair adds a marker
    named ``<name>.offset_plane`` on the plane's body for it.
    """

    def __init__(
        self,
        name: str,
        center: Marker,
        radius: float,
        plane: Marker,
        restitution: float,
        rest_velocity: float = DEFAULT_REST_VELOCITY,
    ) -> None:
        super().__init__(name, center, plane, restitution, rest_velocity)
        self.plane = plane
        self.radius = _radius(name, "radius", radius)
        # Validated above: only now touch the plane's body.
        self.j_marker = plane.body.add_marker(
            f"{name}.offset_plane",
            position=plane.position + self.radius * plane.orientation[:, 2],
            orientation=plane.orientation,
        )


class SphereSphereContact(ImpactPair):
    """Sphere of ``radius_i`` centred at marker ``center_i`` against sphere of ``radius_j`` at ``center_j`` [m]."""

    gap_kind = "distance"

    def __init__(
        self,
        name: str,
        center_i: Marker,
        radius_i: float,
        center_j: Marker,
        radius_j: float,
        restitution: float,
        rest_velocity: float = DEFAULT_REST_VELOCITY,
    ) -> None:
        super().__init__(name, center_i, center_j, restitution, rest_velocity)
        self.radius_i = _radius(name, "radius_i", radius_i)
        self.radius_j = _radius(name, "radius_j", radius_j)
        self.gap_offset = self.radius_i + self.radius_j


def _radius(name: str, what: str, value: float) -> float:
    if real_number(f"contact '{name}'", f"{what} [m]", value) <= 0.0:
        raise ModelError(f"contact '{name}': {what} must be a positive length in m, got {value!r}")
    return float(value)
