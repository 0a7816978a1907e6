"""Compliant contact between the shapes bodies show (``mb.Contact``): a normal force law on the
penetration of two placed geometries, with Coulomb friction, integrated continuously (no
restart per touch). The event-driven rigid impacts are ``multibody.model.contact``.

Geometry pairs (exact narrow phase, one or more contact points per pair):

==========================  ==========================================================
pair                        contact points
==========================  ==========================================================
sphere - plane              the sphere's deepest point
sphere - sphere             on the line of centres
box - plane                 every corner below the plane (up to four resting flat)
capsule - plane             the end spheres' deepest points
cylinder - plane            per end cap, its rim's deepest point, the opposite one and the two
                            between (a tilted cylinder touches at the deepest; one lying on its
                            side along a line, ends included; one standing on its cap at four)
sphere - capsule            the sphere against the capsule's closest axis point
capsule - capsule           the closest points of the two axis segments
mesh - plane                every vertex of the mesh's convex hull below the plane
mesh - mesh                 every hull vertex of either mesh inside the other's hull
==========================  ==========================================================

Meshes (STL/OBJ through ``mb.Mesh``) touch through their convex hulls, exactly: a vertex is
inside a convex hull when it is behind every face plane; its penetration is the distance to the
nearest face plane, along that face's normal (face-face and vertex-face contacts; an edge
crossing an edge without a vertex inside is not seen). python-fcl's mesh-mesh contacts were
measured and set aside: two cubes overlapping by 1 mm gave 80 contacts with depths from 0 to
0.1 m and normals along the shared faces' edges, which no force law can use.

A ``Plane`` is the x-y plane of its frame with the solid below (normal: its z). At each contact
point with penetration ``d`` [m] > 0 and penetration rate ``d'`` [m/s] the normal force is
(``k`` = ``stiffness``, ``e`` = ``exponent``):

``"impact"``        ADAMS IMPACT: ``max(0, k d^e + STEP(d, 0, 0, penetration_depth, damping) d')``
``"hunt_crossley"`` ``max(0, k d^e (1 + damping d'))``, ``damping`` [s/m] the Hunt-Crossley factor
``"poisson"``       ``k d^e`` while closing and ``restitution^2 k d^e`` while opening (blended over
                    ``d'`` within ``POISSON_BLEND`` m/s): the rebound speed is ``restitution``
                    times the impact speed, whatever ``k`` and ``e`` (ADAMS POISSON's meaning)

Friction at the point opposes the tangential slip ``v_t`` with ``mu(|v_t|) F_n``: ``mu`` rises
from 0 at rest to ``mu_static`` at ``stiction_velocity`` and falls to ``mu_dynamic`` at
``transition_velocity`` (ADAMS's STEP curves). Contact points move with both bodies, so rolling
gives zero slip and no friction work.
"""

from __future__ import annotations

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.forces.friction import coulomb_parameters
from multibody.model.geometry import Box, Capsule, Cylinder, Mesh, PlacedShape, Plane, Sphere
from multibody.model.marker import Marker, bounded_number

LAWS = ("impact", "poisson", "hunt_crossley")
"""Normal force laws (see the module)."""

PAIRS: dict[tuple[type, type], str] = {
    (Sphere, Plane): "sphere_plane",
    (Sphere, Sphere): "sphere_sphere",
    (Box, Plane): "box_plane",
    (Capsule, Plane): "capsule_plane",
    (Cylinder, Plane): "cylinder_plane",
    (Sphere, Capsule): "sphere_capsule",
    (Capsule, Capsule): "capsule_capsule",
    (Mesh, Plane): "mesh_plane",
    (Mesh, Mesh): "mesh_mesh",
}
"""Supported geometry pairs, as (A, B) kinds in the order the kernel takes them, -> pair name."""

POISSON_BLEND = 1e-4
"""Penetration rate [m/s] over which the POISSON law blends its closing and opening stiffness."""


class Contact(ForceElement):
    """Compliant contact between placed geometry ``i_geometry`` and ``j_geometry`` (the values
    ``body.add_shape(shape, marker)`` returns) of two different bodies; see the module for the
    pairs and laws.

    ``stiffness`` [N/m^exponent] > 0; ``exponent`` >= 1 (1.5: Hertz for curved surfaces);
    ``damping``: [N s/m] for "impact" (reached at ``penetration_depth`` [m]), [s/m] for
    "hunt_crossley"; ``restitution`` in [0, 1] for "poisson"; ``mu_static`` >= ``mu_dynamic`` >=
    0; ``stiction_velocity`` [m/s] > 0 and ``transition_velocity`` (default 1.5 x it).
    The force and torque reported are those on the I geometry's body, at its marker's origin;
    the element's value is the total normal force [N].
    """

    def __init__(
        self,
        name: str,
        i_geometry: PlacedShape,
        j_geometry: PlacedShape,
        law: str = "impact",
        stiffness: float = 1e6,
        exponent: float = 1.5,
        damping: float = 0.0,
        penetration_depth: float = 1e-4,
        restitution: float | None = None,
        mu_static: float = 0.0,
        mu_dynamic: float = 0.0,
        stiction_velocity: float = 1e-3,
        transition_velocity: float | None = None,
    ) -> None:
        owner = f"force '{name}'"
        for role, placed in (("i_geometry", i_geometry), ("j_geometry", j_geometry)):
            if not isinstance(placed, PlacedShape) or placed.body is None:
                raise ModelError(
                    f"{owner}: {role} must be a placed shape, the value of body.add_shape(shape, marker); "
                    f"got {placed!r}"
                )
        kinds = (type(i_geometry.shape), type(j_geometry.shape))
        if kinds in PAIRS:
            self.pair, self.swapped = PAIRS[kinds], False
        elif kinds[::-1] in PAIRS:
            self.pair, self.swapped = PAIRS[kinds[::-1]], True
        else:
            supported = ", ".join(f"{a.__name__}-{b.__name__}" for a, b in PAIRS)
            raise ModelError(
                f"{owner}: contact between a {kinds[0].__name__} and a {kinds[1].__name__} is not supported; "
                f"supported pairs: {supported} (a Link is a Capsule)"
            )
        if i_geometry.body is j_geometry.body:
            raise ModelError(
                f"{owner}: both geometries are on {i_geometry.body.describe()}; contact is between two bodies"
            )
        if law not in LAWS:
            raise ModelError(f"{owner}: law must be one of {', '.join(map(repr, LAWS))}, got {law!r}")
        self.law = law
        self.stiffness = bounded_number(owner, "stiffness", stiffness, "N/m^exponent", strict=True)
        self.exponent = bounded_number(owner, "exponent", exponent, "", lower=1.0)
        self.damping = bounded_number(owner, "damping", damping)
        self.penetration_depth = bounded_number(owner, "penetration_depth", penetration_depth, "m", strict=True)
        if law == "poisson":
            if restitution is None:
                raise ModelError(f"{owner}: the POISSON law needs restitution (0 plastic ... 1 elastic)")
            self.restitution = bounded_number(owner, "restitution", restitution)
            if self.restitution > 1.0:
                raise ModelError(f"{owner}: restitution must be in [0, 1], got {restitution!r}")
        elif restitution is not None:
            raise ModelError(
                f"{owner}: restitution belongs to the POISSON law; the {law!r} law dissipates through damping"
            )
        else:
            self.restitution = 1.0
        (self.mu_static, self.mu_dynamic, self.stiction_velocity, self.transition_velocity) = coulomb_parameters(
            owner, mu_static, mu_dynamic, stiction_velocity, transition_velocity
        )
        # Validated: only now add a marker to a geometry placed at its body's frame.
        self.i_geometry, self.j_geometry = i_geometry, j_geometry
        super().__init__(name, _marker_of(name, "i", i_geometry), _marker_of(name, "j", j_geometry))


def _marker_of(name: str, side: str, placed: PlacedShape) -> Marker:
    """The marker at the geometry's frame: the one it was placed at, or a new one on its body."""
    if placed.marker is not None:
        return placed.marker
    assert placed.body is not None
    return placed.body.add_marker(f"{name}.{side}_geometry", position=placed.position, orientation=placed.orientation)
