"""A concrete pump truck's boom: three sections raised by hydraulic cylinders through valves.

Three boom sections (8, 7 and 6 m; 800, 500 and 300 kg) hinge on each other about the world -y
axis (revolute joints), the first on the truck's turret (ground). A 200 kg end hose hangs at the
tip (fixed to the last section). Each section is moved by a double-acting hydraulic cylinder
(``mb.HydraulicCylinder``) between the section before it (or the turret) and itself, fed through
a proportional valve (``mb.ProportionalValve``, 20 ms spool lag) from a 250 bar pump. The chamber
pressures are first-order states solved together with the mechanics, as in the DAE of the seed
thesis's pump-truck model.

At t = 0 the valves are closed and the cap-side pressures hold the boom still: each cylinder's
force balances the weight of everything outboard of its hinge (``holding_pressures``, a torque
balance about each hinge, rod sides at 20 bar). Then the valve commands (``COMMANDS``) raise the
first section, unfold the second and fold the third back a little; the boom swings and settles
on its oil columns when the valves close.

Plot the pressures, flows, spool positions and hydraulic power (``mb.plot_hydraulics(res)``: bar,
L/min, kW; the SI histories are ``res.hydraulics("lift_1")``), the cylinder forces
(``res.force("lift_1").value``) and the tip path (``res.body("section_3")`` and ``TIP``), or run
``multibody run examples/pump_truck_boom.py`` and ``multibody animate``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import multibody as mb

GRAVITY = 9.81
AXIS = np.array([0.0, -1.0, 0.0])
"""Hinge axis: angles grow from +x towards +z."""
LENGTHS = (8.0, 7.0, 6.0)
"""Section lengths [m], hinge to hinge."""
MASSES = (800.0, 500.0, 300.0)
"""Section masses [kg] (uniform slender sections)."""
ANGLES = np.radians([25.0, -20.0, -30.0])
"""Initial absolute angle of each section above the horizontal [rad]."""
PAYLOAD = 200.0
"""End hose at the tip [kg]."""
SUPPLY = mb.HydraulicSupply(pressure=250e5, tank_pressure=2e5)
ROD_SIDE_PRESSURE = 20e5
"""Initial rod-side pressure of every cylinder [Pa]."""
BULK_MODULUS = 1.2e9
"""Effective bulk modulus of oil with hoses [Pa]."""

# Per cylinder: bore, rod [m], stroke [m], max valve opening [m^2], barrel point on the section
# before (or the turret, world) and rod point on the moved section, as (distance along the
# section from its hinge, offset normal to it) [m].
CYLINDERS = (
    {"bore": 0.16, "rod": 0.09, "stroke": 1.2, "max_area": 2e-5, "barrel": (0.6, -1.2), "rod_end": (2.5, -0.4)},
    {"bore": 0.14, "rod": 0.08, "stroke": 1.2, "max_area": 1.5e-5, "barrel": (5.0, -0.6), "rod_end": (1.0, -0.5)},
    {"bore": 0.10, "rod": 0.06, "stroke": 1.0, "max_area": 1e-5, "barrel": (4.5, -0.5), "rod_end": (0.8, -0.45)},
)


def pulse(start: float, stop: float, level: float, ramp: float = 0.3) -> Callable[[mb.Measure], float]:
    """A valve command rising smoothly to ``level`` from ``start`` [s] and back to 0 from ``stop`` [s]."""
    up, down = mb.Step(start, 0.0, start + ramp, level), mb.Step(stop, 0.0, stop + ramp, level)
    return lambda measure: float(up(measure.t) - down(measure.t))


COMMANDS = (pulse(0.5, 2.5, 0.6), pulse(1.5, 3.5, 0.5), pulse(2.5, 3.5, -0.4))
"""Valve commands of the three cylinders, in [-1, 1] (+ extends)."""

ANALYSIS = {"analysis": "dynamics", "t_end": 6.0, "output_step": 0.02, "rtol": 1e-6}


def direction(angle: float) -> np.ndarray:
    return np.array([np.cos(angle), 0.0, np.sin(angle)])


def normal(angle: float) -> np.ndarray:
    return np.array([-np.sin(angle), 0.0, np.cos(angle)])


def hinges() -> list[np.ndarray]:
    """World positions of the three hinges and the tip [m], in the initial configuration."""
    points = [np.zeros(3)]
    for length, angle in zip(LENGTHS, ANGLES):
        points.append(points[-1] + length * direction(angle))
    return points


def on_section(k: int, along: float, offset: float) -> np.ndarray:
    """World point ``along`` the section ``k`` (-1: the turret, its frame the world) from its
    hinge and ``offset`` normal to it, initial configuration."""
    if k < 0:
        return np.array([along, 0.0, offset])
    return hinges()[k] + along * direction(ANGLES[k]) + offset * normal(ANGLES[k])


def areas(cylinder: dict) -> tuple[float, float]:
    bore, rod = cylinder["bore"], cylinder["rod"]
    return np.pi / 4 * bore**2, np.pi / 4 * (bore**2 - rod**2)


def holding_pressures() -> list[tuple[float, float]]:
    """Per cylinder, (cap, rod) pressures [Pa] whose force balances the weight outboard of its
    hinge: the moment about hinge k of the gravity on sections k.. and the payload, over the
    cylinder's lever arm about that hinge (the other cylinders act inside that part)."""
    points = hinges()
    pressures = []
    for k, cylinder in enumerate(CYLINDERS):
        weights = [(MASSES[j], 0.5 * (points[j] + points[j + 1])) for j in range(k, 3)] + [(PAYLOAD, points[3])]
        moment = sum(np.cross(p - points[k], (0.0, 0.0, -m * GRAVITY)) for m, p in weights) @ AXIS
        barrel, rod_end = on_section(k - 1, *cylinder["barrel"]), on_section(k, *cylinder["rod_end"])
        line = (rod_end - barrel) / np.linalg.norm(rod_end - barrel)
        lever = np.cross(rod_end - points[k], line) @ AXIS
        force = -moment / lever
        cap, annulus = areas(cylinder)
        pressures.append(((force + ROD_SIDE_PRESSURE * annulus) / cap, ROD_SIDE_PRESSURE))
    return pressures


def build() -> mb.Model:
    """The boom at its initial angles, held by its cylinders, valves closed."""
    model = mb.Model("pump_truck_boom", gravity=(0.0, 0.0, -GRAVITY))
    points = hinges()
    sections = []
    for k, (length, mass, angle) in enumerate(zip(LENGTHS, MASSES, ANGLES)):
        along = direction(angle)
        transverse = mass * length**2 / 12.0
        sections.append(
            model.add(
                mb.RigidBody(
                    f"section_{k + 1}",
                    mass,
                    (mass * 0.02, transverse, transverse),
                    position=0.5 * (points[k] + points[k + 1]),
                    orientation=np.column_stack([along, AXIS, np.cross(along, AXIS)]),
                )
            )
        )
    bodies = [model.ground, *sections]
    for k, section in enumerate(sections):
        model.add(
            mb.Revolute(
                f"hinge_{k + 1}",
                section.add_marker("hinge", points[k], z_axis=AXIS, frame="world"),
                bodies[k].add_marker(f"hinge_{k + 1}", points[k], z_axis=AXIS, frame="world"),
            )
        )
    hose = model.add(mb.RigidBody("end_hose", PAYLOAD, (2.0, 2.0, 2.0), position=points[3]))
    model.add(mb.Fixed("hose_clamp", hose.add_marker("clamp"), sections[2].add_marker("tip", points[3], frame="world")))
    for k, (cylinder, command, initial) in enumerate(zip(CYLINDERS, COMMANDS, holding_pressures())):
        barrel, rod_end = on_section(k - 1, *cylinder["barrel"]), on_section(k, *cylinder["rod_end"])
        length = float(np.linalg.norm(rod_end - barrel))
        model.add(
            mb.HydraulicCylinder(
                f"lift_{k + 1}",
                sections[k].add_marker("rod_end", rod_end, frame="world"),
                bodies[k].add_marker(f"barrel_{k + 1}", barrel, frame="world"),
                bore=cylinder["bore"],
                rod_diameter=cylinder["rod"],
                stroke=cylinder["stroke"],
                dead_volumes=(1e-3, 1e-3),
                bulk_modulus=BULK_MODULUS,
                supply=SUPPLY,
                valve=mb.ProportionalValve(command, max_area=cylinder["max_area"], time_constant=0.02),
                initial_pressures=initial,
                retracted_length=length - 0.5 * cylinder["stroke"],  # mid-stroke at the start
                end_stop_stiffness=1e8,
                end_stop_damping=1e6,
            )
        )
    return model


if __name__ == "__main__":
    results = mb.dynamics(build(), ANALYSIS["t_end"], ANALYSIS["output_step"], rtol=ANALYSIS["rtol"])
    for name in ("lift_1", "lift_2", "lift_3"):
        bar = results.hydraulics(name).pressures / 1e5
        print(
            f"{name}: cap {bar[:, 0].min():.0f}-{bar[:, 0].max():.0f} bar, rod {bar[:, 1].min():.0f}-"
            f"{bar[:, 1].max():.0f} bar"
        )
    mb.plot_hydraulics(results, path="pump_truck_boom_hydraulics.png")
    mb.plot(results, "lift_1.value", "lift_2.value", "lift_3.value", "section_3.position", path="pump_truck_boom.png")
