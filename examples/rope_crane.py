"""The rope crane of Qi, Guo & Zhuo (2019), example 2: a moving-node rope over a grooved winch, two
fixed sheaves and a movable one carrying a 5 t load.

The rope (30 mm, 3.1 kg/m) leaves a winch drum of radius 0.63 m with a right-hand helical groove
of 34 mm pitch at ground level, runs up and over two fixed sheaves at the jib head (radius 0.27 m,
35 kg, 1.4 kg m^2 about their axles, on revolute joints), down under the movable sheave of a hook
block and up to a dead end at the jib head: two falls, the load hanging on the hook block, which
swings with the sheave but does not turn with it. The winch spins up smoothly to pi/3 rad/s in 1 s,
holds that for 2 s and stops in 1 s (the angular acceleration zero at the ends of each ramp, a
quintic), 4 s in all, reeling in 2 pi/3 rad of drum, 1.32 m of rope (the hook rises half of it).
Every span has 5 moving-node elements; the rope starts at the static tension of the two falls,
about 26 kN (the paper gives 26.6 kN).

The axial stiffness: the paper prints EA = 4.85e6 kN, which would make E = 7e12 Pa over the rope's
30 mm circle, thirty times steel's. A 30 mm steel wire rope has about 0.58 of its circle in metal,
4.1e-4 m^2 at an effective E of 1.1e11 Pa: EA = 4.5e7 N. The example uses 4.85e4 kN = 4.85e7 N
(the printed value with its exponent taken as a slip for 4): the rope stretches by 5e-4 under its
working tension. Its damping (eta = 5e4 N s, a Kelvin-Voigt time of 1 ms) damps the spans' own
axial modes above 100 Hz and leaves the load's bounce (about 9 Hz) lightly damped.

Geometry (the paper's Table 1 is not in its text; this layout follows its figure 6): the jib head
at 15 m, the winch 12 m behind it, the hook block 8 m below the jib head. ``res.rope("hoist")``
gives the material coordinates, wrap angles, tensions at every entry and exit, spins and the
paid-in length; ``plot_crane`` draws the paper's figures 7-14 from them.

Run it with ``python examples/rope_crane.py`` (statics, then the lift; it writes the figures and
the animation) or ``multibody run examples/rope_crane.py`` (the lift from the input configuration).
"""

from __future__ import annotations

import numpy as np

import multibody as mb

DRUM_RADIUS, GROOVE_PITCH = 0.63, 0.034
"""[m]"""
SHEAVE_RADIUS, SHEAVE_MASS, SHEAVE_INERTIA = 0.27, 35.0, 1.4
"""[m], [kg], [kg m^2] about the axle (half that about a diameter)"""
LOAD = 5000.0
"""[kg] the load and its hook block"""
ROPE_DIAMETER, ROPE_MASS, AXIAL_STIFFNESS, DAMPING = 0.030, 3.1, 4.85e7, 5.0e4
"""[m], [kg/m], EA [N] (see the module docstring), eta [N s]"""
TOP, DRUM_X, HOOK_DEPTH = 15.0, -12.0, 8.0
"""jib head height, winch position along x, hook block below the jib head [m]"""
SPEED, RAMP, HOLD = np.pi / 3.0, 1.0, 2.0
"""drum speed [rad/s], spin-up and spin-down [s], time at full speed [s]"""
ELEMENTS_PER_SPAN = 5
ROPE_LENGTH = 33.0
"""[m] the free rope's length, about (for the massless kind's damper)"""
GRAVITY = 9.81
AXLE = (0.0, 1.0, 0.0)
"""the sheaves and the drum turn about world y; the rope runs in the x-z plane but for the groove"""

ANALYSIS = {"analysis": "dynamics", "t_end": 2 * RAMP + HOLD, "output_step": 0.02, "rtol": 1e-5}


def drum_speed(t: float) -> float:
    """The drum's angular velocity about y [rad/s]: smooth quintic ramps with zero angular
    acceleration at their ends; negative reels in."""

    def ramp(x: float) -> float:
        x = float(np.clip(x, 0.0, 1.0))
        return x**3 * (10.0 - 15.0 * x + 6.0 * x * x)

    return -SPEED * (ramp(t / RAMP) - ramp((t - RAMP - HOLD) / RAMP))


def build(elements_per_span: int = ELEMENTS_PER_SPAN, kind: str = "moving_node") -> mb.Model:
    """The crane at rest, the rope at the static tension of the two falls; ``kind="massless"`` swaps
    in the massless rope path over the same reeving (frictionless sheaves, the rope's weight left
    out, its damping ``DAMPING`` over the rope's length as a damper on the rate of stretch)."""
    model = mb.Model("rope_crane", gravity=(0.0, 0.0, -GRAVITY))
    r = SHEAVE_RADIUS
    drum = model.add(mb.RigidBody("drum", mass=800.0, inertia=(300.0, 500.0, 300.0), position=(DRUM_X, 0, DRUM_RADIUS)))
    drum_axle = drum.add_marker("axle", z_axis=AXLE)
    reel = model.add(
        mb.Revolute("reel", drum_axle, model.ground.add_marker("reel", position=(DRUM_X, 0, DRUM_RADIUS), z_axis=AXLE))
    )
    model.add(mb.Motion("winch_drive", reel, velocity=drum_speed))
    sheaves = []
    for name, x in (("sheave_1", -3.0), ("sheave_2", -3 * r)):
        inertia = (SHEAVE_INERTIA / 2, SHEAVE_INERTIA, SHEAVE_INERTIA / 2)
        sheave = model.add(mb.RigidBody(name, mass=SHEAVE_MASS, inertia=inertia, position=(x, 0, TOP)))
        axle = sheave.add_marker("axle", z_axis=AXLE)
        model.add(mb.Revolute(f"{name}_axle", axle, model.ground.add_marker(name, position=(x, 0, TOP), z_axis=AXLE)))
        sheaves.append(mb.Pulley(name, axle, r))
    # the hook block hangs from the movable sheave's axle: it swings with it but does not turn with it
    hook_position = (-r, 0.0, TOP - HOOK_DEPTH)
    hook = model.add(
        mb.RigidBody(
            "hook", mass=LOAD, inertia=(400.0, 400.0, 300.0), position=(hook_position[0], 0, hook_position[2] - 1.0)
        )
    )
    movable = model.add(
        mb.RigidBody(
            "sheave_3",
            mass=SHEAVE_MASS,
            inertia=(SHEAVE_INERTIA / 2, SHEAVE_INERTIA, SHEAVE_INERTIA / 2),
            position=hook_position,
        )
    )
    movable_axle = movable.add_marker("axle", z_axis=AXLE)
    model.add(mb.Revolute("hook_pin", movable_axle, hook.add_marker("pin", position=(0.0, 0.0, 1.0), z_axis=AXLE)))
    route = [
        mb.Winch("winch", drum_axle, DRUM_RADIUS, groove_pitch=GROOVE_PITCH, stored_length=20.0),
        sheaves[0],
        sheaves[1],
        mb.Pulley("sheave_3", movable_axle, r),
        model.ground.add_marker("dead_end", position=(0.0, 0.0, TOP)),
    ]
    tension = (LOAD + SHEAVE_MASS) * GRAVITY / 2.0
    moving = kind == "moving_node"
    model.add(
        mb.Rope(
            "hoist",
            route,
            ROPE_DIAMETER,
            AXIAL_STIFFNESS,
            ROPE_MASS,
            elements_per_span=elements_per_span,
            kind=kind,
            damping=DAMPING if moving else DAMPING / ROPE_LENGTH,
            pretension=tension,
        )
    )
    return model


def reeled_in() -> float:
    """The rope's rest length taken in by the drum [m]: the drum's turn (the area under
    ``drum_speed``, ``SPEED (RAMP + HOLD)``) times the helix's length per radian over the stretch
    on the drum (1 + T / EA at the initial tension)."""
    tension = (LOAD + SHEAVE_MASS) * GRAVITY / 2.0
    return SPEED * (RAMP + HOLD) * np.hypot(DRUM_RADIUS, GROOVE_PITCH / (2 * np.pi)) / (1 + tension / AXIAL_STIFFNESS)


def plot_crane(results: mb.Results) -> object:
    """The paper's figures 7-14 in one figure: material coordinates at the entries and exits,
    wrap angles, tensions [kN], the spins, the hook's path (x and z) and the winch's tangent
    point along the drum."""
    import matplotlib.pyplot as plt

    rope = results.rope("hoist")
    figure, axes = plt.subplots(3, 2, figsize=(11, 9), sharex=True)
    t = results.time
    for point in rope.points[1:-1]:
        entry, leaving = rope.material_coordinate_at(point).T
        axes[0, 0].plot(t, entry, label=f"{point} in")
        axes[0, 0].plot(t, leaving, "--", label=f"{point} out")
    axes[0, 0].set_ylabel("material coordinate [m]")
    axes[0, 1].plot(t, np.degrees(rope.wrap_angle[:, 1:-1]), label=list(rope.points[1:-1]))
    axes[0, 1].set_ylabel("wrap angle [deg]")
    for point in rope.points[1:-1]:
        axes[1, 0].plot(t, rope.tension_at(point)[:, 0] / 1e3, label=f"{point} in")
    axes[1, 0].set_ylabel("tension [kN]")
    axes[1, 1].plot(t, rope.spin[:, :-1], label=list(rope.points[:-1]))
    axes[1, 1].set_ylabel("spin about the axle [rad/s]")
    hook = results.body("hook").position
    axes[2, 0].plot(t, hook[:, 0] - hook[0, 0], label="x")
    axes[2, 0].plot(t, hook[:, 2] - hook[0, 2], label="z")
    axes[2, 0].set_ylabel("hook displacement [m]")
    axes[2, 1].plot(t, 1e3 * (rope.tangent_points[:, 0, 1, 1] - rope.tangent_points[0, 0, 1, 1]))
    axes[2, 1].set_ylabel("winch tangent point along the drum [mm]")
    for axis in axes.flat:
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize=7)
    for axis in axes[-1]:
        axis.set_xlabel("time [s]")
    figure.tight_layout()
    return figure


def simulate(model: mb.Model, t_end: float = ANALYSIS["t_end"], progress: bool = False) -> mb.Results:
    """The paper's run: the static equilibrium first (the rope sagging under its weight, the
    tensions balanced over the sheaves, as the paper's Table 2), then the winch's ``t_end`` [s]
    from there (``multibody run`` starts from the input configuration instead, the spans straight:
    the load then bounces on the rope as it settles)."""
    from multibody.analysis.operating_point import state_from_results

    system = model.compile()
    start = state_from_results(system, mb.statics(system))
    return mb.dynamics(
        system, t_end, ANALYSIS["output_step"], rtol=ANALYSIS["rtol"], initial_state=start, progress=progress
    )


if __name__ == "__main__":
    model = build()
    results = simulate(model, progress=True)
    rise = results.body("hook").position[-1, 2] - results.body("hook").position[0, 2]
    print(f"hook rise {rise:.4f} m; half the rope reeled in {reeled_in() / 2:.4f} m")
    print(f"largest tension {results.rope('hoist').tension.max() / 1e3:.2f} kN")
    plot_crane(results).savefig("rope_crane.png", dpi=110)
    mb.animate(model, results, "rope_crane.html")
