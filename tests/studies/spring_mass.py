"""A mass on a vertical slider held by a spring, without gravity: the tiny model of the study tests.

The mass ``mass`` [kg] slides along world z on a translational joint to the ground; a spring of
rate ``stiffness`` [N/m] and damping ``damping`` [N s/m] joins it to a ground anchor at the origin,
free length ``FREE_LENGTH``. Released from rest at ``FREE_LENGTH + amplitude`` it moves as
``z(t) = FREE_LENGTH + amplitude cos(2 pi f t)`` (undamped), natural frequency
``f = sqrt(stiffness / mass) / (2 pi)`` whatever the amplitude; its highest point is its start,
``FREE_LENGTH + amplitude``, whatever the mass and the spring rate.
"""

from __future__ import annotations

import multibody as mb

FREE_LENGTH = 0.5
"""Spring free length [m]."""

ANALYSIS = {"analysis": "dynamics", "t_end": 0.5, "output_step": 0.01, "rtol": 1e-6}


def build(stiffness: float = 400.0, mass: float = 1.0, amplitude: float = 0.05, damping: float = 0.0) -> mb.Model:
    """The spring-mass released from rest ``amplitude`` [m] above the spring's free length."""
    model = mb.Model("spring_mass", gravity=(0.0, 0.0, 0.0))
    block = model.add(
        mb.RigidBody(
            "mass",
            mass,
            (0.01, 0.01, 0.01),
            position=(0.0, 0.0, FREE_LENGTH + amplitude),
            velocity=(0.0, 0.0, 0.0),
            orientation=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
            angular_velocity=(0.0, 0.0, 0.0),
        )
    )
    slider = block.add_marker("slider")
    anchor = model.ground.add_marker("anchor")
    model.add(mb.Translational("slide", slider, model.ground.add_marker("guide")))
    model.add(mb.SpringDamper("spring", slider, anchor, stiffness, damping, FREE_LENGTH))
    return model


def peak_height(results: mb.Results) -> float:
    """Highest position of the mass [m] (a response function defined at module level)."""
    return float(results.body("mass").position[:, 2].max())
