"""Bouncing ball: a sphere dropped on a rigid floor bounces lower and lower and comes to rest.

A ball of radius r = 0.1 m and mass m = 1 kg (a solid sphere, J = 2/5 m r^2) is released from
rest with its lowest point h0 = 1 m above the floor (the world xy-plane, normal +z); gravity is
-9.81 m/s^2 along z. The floor is a ``SpherePlaneContact`` with coefficient of restitution
e = 0.8: every impact reverses the normal velocity and scales it by e, so the n-th impact speed
is v_n = e^(n-1) sqrt(2 g h0), the n-th rebound height is h0 e^(2n), and the impacts come ever
faster: the flights last 2 e v_n / g, a geometric series that ends at

    t_rest = sqrt(2 h0 / g) + 2 e sqrt(2 h0 / g) / (1 - e) = 4.06 s.

A ball that bounced infinitely often in finite time would stall any integrator (Zeno), so an
impact whose rebound speed would be below the contact's rest_velocity (here 1 mm/s) is made
perfectly plastic and the ball then lies on the floor in sustained contact, the floor carrying
its weight. The energy each impact takes, (1 - e^2) m v_n^2 / 2, is recorded as dissipated
energy, so kinetic + potential + dissipated stays 9.81 * 1.1 J. ``multibody.impact_log(results, model)`` lists
the impacts (time, impulse, speed).

Run it with ``multibody run examples/bouncing_ball.py``.
"""

from __future__ import annotations

import multibody as mb

RADIUS = 0.1
"""Ball radius [m]."""
MASS = 1.0
"""Ball mass [kg]."""
DROP_HEIGHT = 1.0
"""Initial height of the ball's lowest point above the floor [m]."""
RESTITUTION = 0.8
"""Newton's coefficient of restitution of ball and floor."""
REST_VELOCITY = 1e-3
"""Rebound speed [m/s] below which the ball stays on the floor."""

ANALYSIS = {"analysis": "dynamics", "t_end": 5.0, "output_step": 0.01, "method": "SI2", "rtol": 1e-8}


def build() -> mb.Model:
    """The ball at rest, ``DROP_HEIGHT`` above the floor."""
    model = mb.Model("bouncing_ball")
    inertia = 0.4 * MASS * RADIUS**2
    ball = model.add(
        mb.RigidBody(
            "ball",
            MASS,
            (inertia, inertia, inertia),
            position=(0.0, 0.0, DROP_HEIGHT + RADIUS),
            velocity=(0.0, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, 0.0),
        )
    )
    floor = model.ground.add_marker("floor")  # the world xy-plane, normal +z
    model.add(
        mb.SpherePlaneContact("floor_contact", ball.add_marker("center"), RADIUS, floor, RESTITUTION, REST_VELOCITY)
    )
    return model
