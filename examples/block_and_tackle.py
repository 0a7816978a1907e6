"""A hoist: a winch lifts a hook block on four falls of a massless rope (block and tackle).

A hook block of 500 kg runs on vertical guide rails (a translational joint) 6 m below a fixed top
block. The rope leaves a winch drum (radius 0.2 m, on a revolute joint to the ground), runs down
under the first sheave of the hook block, up over the sheave of the top block, down under the
second sheave of the hook block and up to a dead end on the ground: four falls, all vertical
(sheave radius 0.15 m). The rope is a steel wire of 10 mm (EA = 8 MN, 0.4 kg/m, its weight
neglected by the massless kind) with a little damping, pretensioned to W / 4 so that the block
starts hanging at rest.

A Motion on the drum's joint reels in at a smooth trapezoid of angular velocity: up to
``DRUM_SPEED`` over 0.5 s, held 2 s, back to rest over 0.5 s, one second more to settle. The rope
pays in ``r * angle`` = 0.2 m * 5 rad = 1.0 m and the block rises a quarter of that (plus the small
change of stretch, T dL / EA); while the speed is held the tension is W / 4 = 1226 N and the block
rises at a quarter of the rope speed. ``res.rope("hoist")`` gives the tension, paid-out length,
span lengths and wrap angles; the animation draws the rope through its tangent points.

Run it with ``multibody run examples/block_and_tackle.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

BLOCK_MASS = 500.0
"""Hook block and load [kg]."""
DROP = 6.0
"""Depth of the hook block's sheaves below the top block's [m]."""
SHEAVE_RADIUS, DRUM_RADIUS = 0.15, 0.2
"""[m]"""
AXIAL_STIFFNESS, DAMPING = 8.0e6, 2.0e4
"""EA of the wire [N]; damping on the rate of stretch [N s/m]."""
RAMP, HOLD, SETTLE = 0.5, 2.0, 1.0
"""Spin-up (and spin-down) time, time at full speed, time to settle after stopping [s]."""
DRUM_SPEED = 2.0
"""Reeling speed of the drum [rad/s]."""
FALLS = 4
GRAVITY = 9.81

ANALYSIS = {"analysis": "dynamics", "t_end": 2 * RAMP + HOLD + SETTLE, "output_step": 0.02, "rtol": 1e-7}
AXLE = (0.0, 1.0, 0.0)
"""Every sheave and the drum turn about world y; the rope runs in the x-z plane."""


def drum_speed(t: float) -> float:
    """Angular velocity of the drum about y [rad/s] at time ``t`` [s]: negative reels in."""
    up = 0.5 * (1.0 - np.cos(np.pi * np.clip(t / RAMP, 0.0, 1.0)))
    down = 0.5 * (1.0 - np.cos(np.pi * np.clip((t - RAMP - HOLD) / RAMP, 0.0, 1.0)))
    return -DRUM_SPEED * float(up - down)


def reeled_angle() -> float:
    """The drum's total turn [rad] (the area under ``drum_speed``)."""
    return DRUM_SPEED * (RAMP + HOLD)


def build() -> mb.Model:
    """The hoist in its initial configuration, the rope at its static tension."""
    model = mb.Model("block_and_tackle", gravity=(0.0, 0.0, -GRAVITY))
    r = SHEAVE_RADIUS
    hook_x, top_x = (r, 5 * r), 3 * r  # falls at x = 0, 2r, 4r, 6r
    centre = np.array([3 * r, 0.0, -DROP])
    block = model.add(mb.RigidBody("hook_block", BLOCK_MASS, (20.0, 20.0, 20.0), position=centre))
    block.add_shape(mb.Box((8 * r, 0.05, 2.5 * r), color="#d08c2c"))
    model.add(
        mb.Translational(
            "rails",
            block.add_marker("rails", z_axis=(0, 0, 1)),
            model.ground.add_marker("rails", position=centre, z_axis=(0, 0, 1)),
        )
    )
    drum_centre = (-DRUM_RADIUS, 0.0, 0.0)
    drum = model.add(mb.RigidBody("drum", 50.0, (1.0, 1.0, 1.0), position=drum_centre))
    axle = drum.add_marker("axle", z_axis=AXLE)
    drum.add_shape(mb.Cylinder(DRUM_RADIUS, 0.3, color="#4a6fa5"), axle)
    drum_joint = model.add(
        mb.Revolute("drum_axle", axle, model.ground.add_marker("drum_axle", drum_centre, z_axis=AXLE))
    )
    model.add(mb.Motion("reel", drum_joint, velocity=drum_speed))
    sheaves = [
        block.add_marker("sheave_1", (hook_x[0], 0, -DROP), z_axis=AXLE, frame="world"),
        model.ground.add_marker("top_sheave", (top_x, 0, 0), z_axis=AXLE),
        block.add_marker("sheave_2", (hook_x[1], 0, -DROP), z_axis=AXLE, frame="world"),
    ]
    for sheave in sheaves:
        sheave.body.add_shape(mb.Cylinder(r, 0.04, color="#8a8f96"), sheave)
    route = [
        mb.Winch("winch", axle, DRUM_RADIUS),
        mb.Pulley("hook_sheave_1", sheaves[0], r),
        mb.Pulley("top_sheave", sheaves[1], r),
        mb.Pulley("hook_sheave_2", sheaves[2], r),
        model.ground.add_marker("dead_end", (6 * r, 0, 0)),
    ]
    model.add(
        mb.Rope(
            "hoist",
            route,
            diameter=0.01,
            axial_stiffness=AXIAL_STIFFNESS,
            mass_per_length=0.4,
            damping=DAMPING,
            pretension=BLOCK_MASS * GRAVITY / FALLS,
        )
    )
    return model
