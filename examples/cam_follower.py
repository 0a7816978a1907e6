"""Cam and follower: a mesh cam lifts a spring-loaded, flat-faced follower.

The cam is an eccentric disc given as a triangle mesh (radius R = 50 mm, 20 mm thick, 64 facets
around, as an STL export of a CAD part would be), its centre e = 10 mm off the camshaft axis
(world y). A motion drives the camshaft at one revolution per second. The follower (0.2 kg)
slides vertically in a translational joint; its flat face is a ``mb.Plane`` facing down, pressed
onto the cam by a spring (2000 N/m, preloaded to 20 N). The contact (``mb.Contact``, mesh -
plane: every vertex of the cam's convex hull above the face pushes it) keeps them together.

For an eccentric disc the flat face rises exactly as lift = e (1 - cos(theta)) with the cam angle
theta from the lowest position; the facets make it up to R (1 - cos(pi / 64)) = 60 micrometres
lower between vertices. The contact force is what holds the follower on that path: spring plus
weight plus m lift''.

``res.contact("cam_contact")`` gives the contact force and point; ``res.body("follower")`` the lift.

Run it with ``multibody run examples/cam_follower.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

CAM_RADIUS = 0.05
"""Radius of the cam disc [m]."""
ECCENTRICITY = 0.01
"""Offset of the disc's centre from the camshaft axis [m]."""
FACETS = 64
"""Facets around the cam mesh."""
CAM_SPEED = 2.0 * np.pi
"""Camshaft speed [rad/s]."""
FOLLOWER_MASS = 0.2
"""[kg]"""
SPRING_RATE, SPRING_PRELOAD = 2000.0, 20.0
"""Follower spring [N/m] and its force at the lowest position [N]."""
CONTACT_STIFFNESS = 1e6
"""Contact stiffness [N/m] (linear law) at each hull vertex: the two rims of the disc touch together."""
CONTACT_DAMPING = 600.0
"""[N s/m] at each vertex: the two rims together damp the follower on the contact critically."""

ANALYSIS = {"analysis": "dynamics", "t_end": 1.0, "output_step": 0.005, "rtol": 1e-5}


def cam_mesh() -> mb.Mesh:
    """The cam disc as a triangle mesh, axis along its frame's z."""
    import trimesh

    disc = trimesh.creation.cylinder(radius=CAM_RADIUS, height=0.02, sections=FACETS)
    return mb.Mesh(vertices=disc.vertices, faces=disc.faces, color="steel")


def build() -> mb.Model:
    """Camshaft at the origin turning about world y; the follower resting on the cam's lowest lift."""
    model = mb.Model("cam_follower")
    camshaft = model.add(mb.RigidBody("camshaft", 1.0, (1e-3, 1e-3, 1e-3)))
    along_y = (0.0, 1.0, 0.0)
    bearing = model.add(
        mb.Revolute(
            "bearing", camshaft.add_marker("axis", z_axis=along_y), model.ground.add_marker("bearing", z_axis=along_y)
        )
    )
    # The disc's centre starts below the axis, so the face starts at its lowest (theta = 0);
    # the drive turns x_I about y from x_J, which moves the centre from -z towards +x and up.
    model.add(mb.Motion("drive", bearing, displacement=mb.Ramp(slope=CAM_SPEED)))
    disc = camshaft.add_marker("disc", position=(0.0, 0.0, -ECCENTRICITY), z_axis=along_y)
    cam = camshaft.add_shape(cam_mesh(), disc)

    start = CAM_RADIUS - ECCENTRICITY  # face height at the lowest lift
    follower = model.add(mb.RigidBody("follower", FOLLOWER_MASS, (1e-4, 1e-4, 1e-4), position=(0.0, 0.0, start)))
    up = (0.0, 0.0, 1.0)
    guide = mb.Translational(
        "guide",
        follower.add_marker("slide", z_axis=up),
        model.ground.add_marker("guide", position=(0, 0, start), z_axis=up),
    )
    model.add(guide)
    face = follower.add_shape(mb.Plane(size=0.12, color="brass"), follower.add_marker("face", z_axis=(0.0, 0.0, -1.0)))
    free_length = SPRING_PRELOAD / SPRING_RATE + 0.1
    model.add(
        mb.SpringDamper(
            "spring",
            follower.add_marker("seat"),
            model.ground.add_marker("spring_top", position=(0.0, 0.0, start + 0.1)),
            stiffness=SPRING_RATE,
            damping=0.0,
            free_length=free_length,
        )
    )
    # the face starts pressed by the preload and the weight: k d = 20 N + m g
    depth = (SPRING_PRELOAD + FOLLOWER_MASS * 9.81) / (2.0 * CONTACT_STIFFNESS)
    follower.position = np.array([0.0, 0.0, start - depth])
    model.add(
        mb.Contact(
            "cam_contact",
            cam,
            face,
            stiffness=CONTACT_STIFFNESS,
            exponent=1.0,
            damping=CONTACT_DAMPING,
            penetration_depth=1e-6,
        )
    )
    return model
