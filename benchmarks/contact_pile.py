"""Benchmark: spheres falling into a box (a pile), compliant contact against MuJoCo.

N spheres (radius 0.05 m, 0.1 kg) start in layers of a jittered 5 x 5 grid above the floor of an
open box 0.6 m wide (a floor plane and four wall planes). Ours: every sphere-sphere and
sphere-wall pair is an ``mb.Contact`` (IMPACT law k = 1e5 N/m^1.5, e = 1.5, damping 20 N s/m
over 1 mm, Coulomb mu = 0.3), integrated by the default BDF (SI2) with step-size control.
MuJoCo (when installed): the same spheres on free joints, the same planes, its default soft
contacts with the same friction, implicit-fast integrator at h = 1 ms.

Printed side by side in one run: wall time, steps, cost per step, and the rest state of both
(mean and largest centre height after ``--t-end`` s, largest remaining speed): at rest the pile's
heights are set by the geometry, so they compare whatever the contact laws' details.

Usage: ``python benchmarks/contact_pile.py [--spheres 100] [--t-end 1.0]`` (our run of 100
spheres takes minutes: every pair is evaluated at each Newton iteration and the iteration matrix
takes finite differences over all bodies the contacts couple).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import multibody as mb

RADIUS, MASS = 0.05, 0.1
"""Sphere radius [m] and mass [kg]."""
HALF_WIDTH = 0.3
"""Half the box's inner width [m]."""
FRICTION = 0.3
MUJOCO_STEP = 1e-3
"""MuJoCo's fixed step [s]."""


def start_positions(count: int) -> np.ndarray:
    """(count, 3) sphere centres: layers of a jittered 5 x 5 grid, 0.12 m apart vertically."""
    rng = np.random.default_rng(7)
    grid = np.linspace(-0.2, 0.2, 5)
    cells = [(x, y) for x in grid for y in grid]
    positions = []
    for k in range(count):
        x, y = cells[k % len(cells)]
        positions.append((x + 0.01 * rng.standard_normal(), y + 0.01 * rng.standard_normal(), 0.1 + 0.12 * (k // 25)))
    return np.array(positions)


def pile_model(count: int) -> mb.Model:
    """Our model: the spheres, the box's five planes, a contact for every pair."""
    model = mb.Model("pile")
    inertia = 0.4 * MASS * RADIUS**2
    planes = [model.ground.add_shape(mb.Plane(size=2 * HALF_WIDTH), model.ground.add_marker("floor"))]
    for name, position, normal in (
        ("east", (HALF_WIDTH, 0.0, 0.0), (-1.0, 0.0, 0.0)),
        ("west", (-HALF_WIDTH, 0.0, 0.0), (1.0, 0.0, 0.0)),
        ("north", (0.0, HALF_WIDTH, 0.0), (0.0, -1.0, 0.0)),
        ("south", (0.0, -HALF_WIDTH, 0.0), (0.0, 1.0, 0.0)),
    ):
        marker = model.ground.add_marker(name, position=position, z_axis=normal)
        planes.append(model.ground.add_shape(mb.Plane(size=2 * HALF_WIDTH), marker))
    spheres = []
    for k, position in enumerate(start_positions(count)):
        body = model.add(mb.RigidBody(f"sphere{k}", MASS, (inertia,) * 3, position=position))
        spheres.append(body.add_shape(mb.Sphere(RADIUS), body.add_marker("centre")))
    law = {
        "stiffness": 1e5,
        "exponent": 1.5,
        "damping": 20.0,
        "penetration_depth": 1e-3,
        "mu_static": FRICTION,
        "mu_dynamic": FRICTION,
        "stiction_velocity": 1e-2,
    }
    for a, sphere in enumerate(spheres):
        for p, plane in enumerate(planes):
            model.add(mb.Contact(f"wall{p}_{a}", sphere, plane, **law))
        for b in range(a + 1, len(spheres)):
            model.add(mb.Contact(f"pair{a}_{b}", sphere, spheres[b], **law))
    return model


def rest_state(positions: np.ndarray, velocities: np.ndarray) -> tuple[float, float, float]:
    """(mean centre height, largest centre height, largest speed) [m, m, m/s]."""
    return (
        float(np.mean(positions[:, 2])),
        float(np.max(positions[:, 2])),
        float(np.max(np.linalg.norm(velocities, axis=1))),
    )


def run_ours(count: int, t_end: float) -> tuple[float, int, tuple[float, float, float]]:
    system = pile_model(count).compile()
    start = time.perf_counter()
    results = mb.dynamics(system, t_end, 0.05)
    wall = time.perf_counter() - start
    positions = np.array([results.body(name).position[-1] for name in system.body_names])
    velocities = np.array([results.body(name).velocity[-1] for name in system.body_names])
    return wall, int(results.stats["steps"]), rest_state(positions, velocities)


def run_mujoco(count: int, t_end: float) -> tuple[float, int, tuple[float, float, float]] | None:
    try:
        import mujoco
    except ImportError:
        return None
    walls = "".join(
        f'<geom type="plane" size="{HALF_WIDTH} {HALF_WIDTH} 0.01" pos="{x} {y} 0" zaxis="{nx} {ny} 0"/>'
        for x, y, nx, ny in (
            (HALF_WIDTH, 0, -1, 0),
            (-HALF_WIDTH, 0, 1, 0),
            (0, HALF_WIDTH, 0, -1),
            (0, -HALF_WIDTH, 0, 1),
        )
    )
    bodies = "".join(
        f'<body pos="{x} {y} {z}"><freejoint/><geom type="sphere" size="{RADIUS}" mass="{MASS}"/></body>'
        for x, y, z in start_positions(count)
    )
    xml = (
        f'<mujoco><option timestep="{MUJOCO_STEP}" integrator="implicitfast"/>'
        f'<default><geom friction="{FRICTION} 0.005 0.0001"/></default><worldbody>'
        f'<geom type="plane" size="{HALF_WIDTH} {HALF_WIDTH} 0.01"/>{walls}{bodies}</worldbody></mujoco>'
    )
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    steps = round(t_end / MUJOCO_STEP)
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    wall = time.perf_counter() - start
    positions = data.xpos[1:].copy()
    velocities = data.qvel.reshape(count, 6)[:, :3]
    return wall, steps, rest_state(positions, velocities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spheres", type=int, default=100)
    parser.add_argument("--t-end", type=float, default=1.0)
    args = parser.parse_args()
    rows = [("multibody (BDF, compliant contact)", run_ours(args.spheres, args.t_end))]
    mujoco_run = run_mujoco(args.spheres, args.t_end)
    if mujoco_run is not None:
        rows.append((f"MuJoCo (implicitfast, h = {MUJOCO_STEP:g} s)", mujoco_run))
    print(f"{args.spheres} spheres, {args.t_end:g} s")
    print(
        f"{'run':40s} {'wall [s]':>9s} {'steps':>7s} {'per step [us]':>14s} {'mean z':>8s} {'max z':>8s} {'max |v|':>9s}"
    )
    for name, (wall, steps, (mean_z, max_z, speed)) in rows:
        print(f"{name:40s} {wall:9.3f} {steps:7d} {1e6 * wall / steps:14.1f} {mean_z:8.4f} {max_z:8.4f} {speed:9.2e}")
    if len(rows) == 2:
        print(f"wall-time ratio ours / MuJoCo: {rows[0][1][0] / rows[1][1][0]:.1f}")


if __name__ == "__main__":
    main()
