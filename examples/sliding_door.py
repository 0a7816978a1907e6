"""Sliding door: friction in its track and a rubber bumper against the door stop.

A door of mass m = 30 kg (1.0 m wide, 2.0 m tall, 40 mm thick) hangs on a horizontal
translational joint (the track, along world x). It is pushed shut at v0 = 1.5 m/s and left to
itself. The track has Coulomb friction (``mb.JointFriction``: mu_s = 0.3, mu_d = 0.2, loaded by
the track's reaction, i.e. the door's weight), so the door decelerates at mu_d g = 1.96 m/s^2.
After GAP = 0.3 m a rubber bumper on its leading edge (a sphere of radius 20 mm) strikes the
stop (a plane on the wall) through a compliant ``mb.Contact`` with the POISSON law (restitution
e = 0.5): the door arrives at v1 = sqrt(v0^2 - 2 mu_d g GAP), leaves at about e v1, slides back
(v_1 e)^2 / (2 mu_d g) and sticks: the bristle state of the friction holds it without creep.

``res.contact("track_friction").mode`` shows the track sliding, then sticking;
``res.contact("bumper").normal_force`` the impact; the energy taken by friction and by the
bumper is ``res.energy["dissipated"]``, so kinetic + dissipated stays m v0^2 / 2.

Run it with ``multibody run examples/sliding_door.py``.
"""

from __future__ import annotations

import multibody as mb

MASS = 30.0
"""Door mass [kg]."""
WIDTH, HEIGHT, THICKNESS = 1.0, 2.0, 0.04
"""Door panel [m]."""
SPEED = 1.5
"""Initial closing speed [m/s]."""
GAP = 0.3
"""Travel before the bumper touches the stop [m]."""
BUMPER_RADIUS = 0.02
"""Rubber bumper on the door's leading edge [m]."""
MU_STATIC, MU_DYNAMIC = 0.3, 0.2
"""Track friction coefficients."""
RESTITUTION = 0.5
"""Bumper's coefficient of restitution (POISSON law)."""

ANALYSIS = {"analysis": "dynamics", "t_end": 2.0, "output_step": 0.005, "rtol": 1e-7}


def build() -> mb.Model:
    """The door at its start, moving towards the stop at ``SPEED``."""
    model = mb.Model("sliding_door")
    inertia = (
        MASS / 12.0 * (THICKNESS**2 + HEIGHT**2),
        MASS / 12.0 * (WIDTH**2 + HEIGHT**2),
        MASS / 12.0 * (WIDTH**2 + THICKNESS**2),
    )
    door = model.add(mb.RigidBody("door", MASS, inertia, position=(0.0, 0.0, 1.0), velocity=(SPEED, 0.0, 0.0)))
    door.add_shape(mb.Box((WIDTH, THICKNESS, HEIGHT), color="brass"))
    along_x = (1.0, 0.0, 0.0)
    track = model.add(
        mb.Translational(
            "track",
            door.add_marker("runner", z_axis=along_x),
            model.ground.add_marker("rail", position=(0.0, 0.0, 1.0), z_axis=along_x),
        )
    )
    model.add(mb.JointFriction("track_friction", track, MU_STATIC, MU_DYNAMIC, stiction_velocity=1e-3))
    bumper = door.add_shape(
        mb.Sphere(BUMPER_RADIUS, color="black"), door.add_marker("bumper", position=(0.5 * WIDTH, 0.0, 0.0))
    )
    wall = model.ground.add_marker(
        "stop", position=(0.5 * WIDTH + BUMPER_RADIUS + GAP, 0.0, 1.0), z_axis=(-1.0, 0.0, 0.0)
    )
    stop = model.ground.add_shape(mb.Plane(size=0.3, color="steel"), wall)
    model.add(mb.Contact("bumper", bumper, stop, law="poisson", stiffness=1e7, exponent=1.0, restitution=RESTITUTION))
    return model
