"""Newton's cradle: three steel balls on rigid strings; the first swings in, the last swings out.

Three balls (radius r = 2 cm, mass m = 0.1 kg, J = 2/5 m r^2) hang on massless rigid strings of
length L = 0.5 m from pivots on a line along world x, each pivot a revolute joint about world y;
gravity is -9.81 m/s^2 along z. The pivots are 2 r + 1 micrometre apart, so at rest the balls
almost touch. The first ball is released from 30 degrees; the others hang at rest. Neighbouring
balls are ``SphereSphereContact`` pairs with e = 1 (elastic).

Ball 1 reaches the bottom at v = sqrt(2 g L (1 - cos 30 deg)) = 1.146 m/s and strikes ball 2;
two identical pendula colliding elastically along the line through the bottoms of their swings
exchange their velocities (the impulse is m_eff v with m_eff = (m L^2 + J) / L^2, each
pendulum's mass seen at the ball centre). Ball 2 then crosses the 1 micrometre gap and hands
the velocity on to ball 3 in the same way: balls 1 and 2 stop, ball 3 swings out with the speed
ball 1 came in with, and no energy is lost. The gap makes the impacts sequential, as they are in
a real cradle, where the balls' small elastic compliance separates them in time.

Run it with ``multibody run examples/newtons_cradle.py``.
"""

from __future__ import annotations

import itertools

import numpy as np

import multibody as mb

RADIUS = 0.02
"""Ball radius [m]."""
MASS = 0.1
"""Ball mass [kg]."""
STRING = 0.5
"""Pivot to ball centre [m]."""
GAP = 1e-6
"""Gap between neighbouring balls at rest [m]."""
RELEASE_ANGLE = np.radians(30.0)
"""Initial angle of ball 1 from the downward vertical, swung out towards -x [rad]."""
BALLS = 3

ANALYSIS = {"analysis": "dynamics", "t_end": 1.0, "output_step": 0.005, "method": "SI2", "rtol": 1e-9}


def build() -> mb.Model:
    """The cradle with ball 1 held out at ``RELEASE_ANGLE`` and released from rest."""
    model = mb.Model("newtons_cradle")
    inertia = 0.4 * MASS * RADIUS**2
    balls = []
    for k in range(BALLS):
        pivot = np.array([k * (2.0 * RADIUS + GAP), 0.0, 0.0])
        angle = RELEASE_ANGLE if k == 0 else 0.0
        center = pivot + STRING * np.array([-np.sin(angle), 0.0, -np.cos(angle)])
        ball = model.add(
            mb.RigidBody(
                f"ball{k + 1}",
                MASS,
                (inertia, inertia, inertia),
                position=center,
                velocity=(0.0, 0.0, 0.0),
                angular_velocity=(0.0, 0.0, 0.0),
            )
        )
        hinge = ball.add_marker("hinge", position=pivot, z_axis=(0.0, 1.0, 0.0), frame="world")
        model.add(
            mb.Revolute(
                f"string{k + 1}",
                hinge,
                model.ground.add_marker(f"pivot{k + 1}", position=pivot, z_axis=(0.0, 1.0, 0.0)),
            )
        )
        ball.add_marker("center")
        balls.append(ball)
    for left, right in itertools.pairwise(balls):
        model.add(
            mb.SphereSphereContact(
                f"{left.name}_{right.name}",
                right.marker("center"),
                RADIUS,
                left.marker("center"),
                RADIUS,
                restitution=1.0,
            )
        )
    return model
