"""Mesh contact (``mb.Mesh`` from STL): convex hulls touching planes and each other.

References: a cube resting flat carries its weight on four corners, each k d = m g / 4 (closed
form, linear law); a cube given as STL sliding on a slab given as STL decelerates at mu_d g
(closed form) and moves as the primitive box sliding on a plane does (the same four-corner
contacts found another way: hull vertices inside a hull against box corners below a plane).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

import multibody as mb

EDGE, MASS, STIFFNESS = 0.1, 1.0, 1e6
INERTIA = MASS * EDGE**2 / 6.0


def write_box(path: Path, extents) -> Path:
    trimesh.creation.box(extents=extents).export(path)
    return path


def cube_model(cube_shape, floor_shape, height: float, orientation=None, floor_offset=0.0) -> mb.Model:
    model = mb.Model("cube")
    cube = model.add(mb.RigidBody("cube", MASS, (INERTIA,) * 3, position=(0.0, 0.0, height), orientation=orientation))
    placed = cube.add_shape(cube_shape)
    floor = model.ground.add_shape(floor_shape, model.ground.add_marker("floor", position=(0.0, 0.0, floor_offset)))
    model.add(
        mb.Contact(
            "contact",
            placed,
            floor,
            law="impact",
            stiffness=STIFFNESS,
            exponent=1.0,
            damping=200.0,
            penetration_depth=1e-3,
            mu_static=0.4,
            mu_dynamic=0.3,
        )
    )
    return model


def test_stl_cube_rests_on_a_plane_on_four_corners(tmp_path: Path) -> None:
    depth = MASS * 9.81 / (4.0 * STIFFNESS)
    cube = mb.Mesh(write_box(tmp_path / "cube.stl", (EDGE,) * 3))
    results = mb.dynamics(cube_model(cube, mb.Plane(), 0.5 * EDGE - depth), 0.3, 0.05)
    assert results.body("cube").position[-1, 2] == pytest.approx(0.5 * EDGE - depth, abs=1e-9)
    contact = results.contact("contact")
    assert contact.penetration[-1] == pytest.approx(depth, rel=1e-6)
    assert contact.normal_force[-1] == pytest.approx(MASS * 9.81, rel=1e-6)


def test_stl_cube_sliding_on_stl_slab_moves_as_the_box_primitive_on_a_plane(tmp_path: Path) -> None:
    """Pushed at 1 m/s along the slab, the cube slides on its four bottom corners, decelerating
    at mu_d g (closed form) exactly as the box primitive does on a plane."""
    cube = mb.Mesh(write_box(tmp_path / "cube.stl", (EDGE,) * 3))
    slab = mb.Mesh(write_box(tmp_path / "slab.stl", (2.0, 1.0, 0.1)))
    depth = MASS * 9.81 / (4.0 * STIFFNESS)
    runs = []
    for cube_shape, floor_shape, offset in ((cube, slab, -0.05), (mb.Box((EDGE,) * 3), mb.Plane(), 0.0)):
        model = cube_model(cube_shape, floor_shape, 0.5 * EDGE - depth, floor_offset=offset)
        model.bodies["cube"].velocity = np.array([1.0, 0.0, 0.0])
        runs.append(mb.dynamics(model, 0.3, 0.02))
    meshes, boxes = runs
    t = meshes.time
    speed = meshes.body("cube").velocity[:, 0]
    # After the first instant (the bristle-free Coulomb curve reaches mu_d at 1.5 mm/s of slip),
    # v = 1 - mu_d g t to the integrator's tolerance.
    assert speed[1:] == pytest.approx(1.0 - 0.3 * 9.81 * t[1:], abs=1e-5)
    assert meshes.body("cube").position == pytest.approx(boxes.body("cube").position, abs=1e-6)
    # STL stores float32: each face sits up to 2^-24 x 0.05 m = 3e-9 m off, so four corners' k d
    # may differ by 4 k 2 x 3e-9 = 0.024 N at most.
    assert meshes.contact("contact").normal_force == pytest.approx(boxes.contact("contact").normal_force, abs=0.024)
