"""Shapes: mass properties (closed forms against tessellated meshes and textbook formulas),
``RigidBody.from_shape``, the inertia ellipsoid, validation, and the scene in results files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import trimesh

import multibody as mb
from multibody.model.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Frustum,
    Link,
    Mesh,
    Sphere,
    equivalent_ellipsoid,
    shape_from_description,
)
from multibody.results import Results, ResultsLayout

ROUND_SHAPES = [
    Sphere(0.4),
    Ellipsoid((0.3, 0.5, 0.7)),
    Cylinder(0.2, 0.9),
    Frustum(0.3, 0.1, 0.8),
    Frustum(0.3, 0.0, 0.8),
    Capsule(0.15, 0.6),
]


def test_box_mass_properties_equal_its_mesh_exactly() -> None:
    """A box is its own triangle mesh: trimesh's divergence-theorem integrals must agree to rounding."""
    box = Box((0.3, 0.5, 0.7))
    exact = box.mass_properties(7800.0)
    mesh = box.triangle_mesh()
    mesh.density = 7800.0
    assert exact.mass == pytest.approx(7800.0 * 0.3 * 0.5 * 0.7, rel=1e-14)
    np.testing.assert_allclose(mesh.mass_properties.mass, exact.mass, rtol=1e-13)
    np.testing.assert_allclose(
        mesh.mass_properties.inertia, exact.inertia, rtol=1e-12, atol=1e-14 * exact.inertia.max()
    )


@pytest.mark.parametrize("shape", ROUND_SHAPES, ids=lambda s: s.kind + str(getattr(s, "top_radius", "")))
def test_round_shape_mass_properties_converge_to_the_closed_forms(shape) -> None:
    """Closed forms against trimesh's integrals over tessellations of n = 48 and 256 segments.

    An inscribed n-gon misses (2 pi / n)^2 / 6 of the circle's area to leading order (1.0e-4 at
    n = 256), and the same relative error runs through the volume and inertia; we allow twice
    that, and check the error falls as n^-2 (ratio (256/48)^2 = 28; at least 20 is asked).
    """
    exact = shape.unit_mass_properties()
    errors = []
    for segments in (48, 256):
        properties = shape.triangle_mesh(segments).mass_properties
        errors.append(
            max(
                abs(properties.mass / exact.mass - 1.0),
                np.max(np.abs(properties.inertia - exact.inertia)) / np.max(np.abs(exact.inertia)),
            )
        )
        scale = np.max(np.abs(exact.center)) + 1e-3
        np.testing.assert_allclose(
            properties.center_mass, exact.center, atol=4 * (2 * np.pi / segments) ** 2 / 6 * scale
        )
    assert errors[1] < 2.0 * (2.0 * np.pi / 256) ** 2 / 6.0
    assert errors[0] / errors[1] > 20.0


def test_cone_matches_the_textbook_formulas() -> None:
    """A solid cone (frustum with a zero top radius): V = pi R^2 h / 3, CM at h/4 above the base,
    Izz = 3/10 m R^2, Ixx about the CM = 3/80 m (4 R^2 + h^2) (e.g. Meriam & Kraige, table D/4)."""
    R, h, density = 0.3, 0.8, 2.0
    cone = Frustum(R, 0.0, h).mass_properties(density)
    m = density * math.pi * R * R * h / 3.0
    assert cone.mass == pytest.approx(m, rel=1e-13)
    np.testing.assert_allclose(cone.center, [0.0, 0.0, h / 4.0], atol=1e-15)
    np.testing.assert_allclose(
        np.diag(cone.inertia), [3 / 80 * m * (4 * R * R + h * h)] * 2 + [0.3 * m * R * R], rtol=1e-13
    )


def test_from_shape_reads_a_mesh_file_with_its_centre_of_mass_offset(tmp_path) -> None:
    """An STL box 0.2 x 0.4 x 0.6 m whose corner is at the origin: from_shape must give the box's
    closed-form mass and central inertia and place the mesh so that the body frame sits at its
    centre of mass. A box mesh is exact, but STL stores float32 coordinates (relative rounding
    6e-8 each), so the agreement is to 1e-6."""
    box_mesh = trimesh.creation.box(extents=(0.2, 0.4, 0.6))
    box_mesh.apply_translation((0.1, 0.2, 0.3))
    path = tmp_path / "block.stl"
    box_mesh.export(path)
    body = mb.RigidBody.from_shape("block", Mesh(path, color="steel"), density=2700.0, position=(1.0, 2.0, 3.0))
    reference = Box((0.2, 0.4, 0.6)).mass_properties(2700.0)
    assert body.mass == pytest.approx(reference.mass, rel=1e-6)
    np.testing.assert_allclose(body.inertia, reference.inertia, rtol=1e-6, atol=1e-6 * reference.inertia.max())
    np.testing.assert_allclose(body.shapes[0].position, [-0.1, -0.2, -0.3], atol=1e-7)
    np.testing.assert_allclose(body.position, [1.0, 2.0, 3.0])


def test_mesh_in_millimetres_is_scaled() -> None:
    """scale=0.001 turns a 100 mm cube into a 0.1 m cube: volume 1e-3 m^3 exactly."""
    cube = trimesh.creation.box(extents=(100.0, 100.0, 100.0))
    assert Mesh(vertices=cube.vertices, faces=cube.faces, scale=0.001).volume == pytest.approx(1e-3, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_equivalent_ellipsoid_has_the_bodys_inertia(seed) -> None:
    """The uniform ellipsoid built from a body's mass and (rotated, non-diagonal) inertia must have
    that inertia again: closed form of the ellipsoid's inertia turned by its principal axes."""
    rng = np.random.default_rng(seed)
    mass = 3.0
    principal = Ellipsoid(rng.uniform(0.1, 1.0, 3)).mass_properties(1.0)
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    inertia = R @ (principal.inertia * mass / principal.mass) @ R.T
    semi_axes, R_BS = equivalent_ellipsoid(mass, inertia)
    ellipsoid = Ellipsoid(semi_axes)
    rebuilt = ellipsoid.mass_properties(mass / ellipsoid.volume)
    np.testing.assert_allclose(R_BS @ rebuilt.inertia @ R_BS.T, inertia, rtol=1e-10, atol=1e-12 * np.abs(inertia).max())
    assert np.linalg.det(R_BS) == pytest.approx(1.0)


def test_descriptions_round_trip() -> None:
    for shape in [Box((1, 2, 3), color="red"), *ROUND_SHAPES, Capsule(0.1, 0.0, opacity=0.5)]:
        assert shape_from_description(shape.description()).description() == shape.description()


def test_link_spans_its_markers() -> None:
    rod = mb.RigidBody("rod", 1.0, (0.01, 0.1, 0.1))
    a = rod.add_marker("a", (-0.5, 0.0, 0.0))
    b = rod.add_marker("b", (0.5, 0.0, 0.0))
    placed = rod.add_shape(Link(a, b, radius=0.02))
    assert placed.shape.length == pytest.approx(1.0)
    np.testing.assert_allclose(placed.orientation[:, 2], [1.0, 0.0, 0.0], atol=1e-15)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: Sphere(-1.0), ["sphere shape", "radius"]),
        (lambda: Box((1.0, 0.0, 1.0)), ["box shape", "size"]),
        (lambda: Frustum(0.0, 0.0, 1.0), ["frustum", "radii"]),
        (lambda: Cylinder(0.1, 1.0, color="chartreuse-ish"), ["color", "#rrggbb"]),
        (lambda: Capsule(0.1, 1.0, opacity=0.0), ["opacity"]),
        (lambda: Box((1, 1, 1)).mass_properties(-5.0), ["density"]),
        (lambda: Mesh("/nonexistent/part.stl"), ["part.stl", "not found"]),
        (lambda: Mesh(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], faces=[[0, 1, 2]]).volume, ["not closed"]),
        (lambda: mb.RigidBody.from_shape("arm", "a box", 1000.0), ["body 'arm'", "solid shape"]),
    ],
)
def test_bad_shapes_are_reported(make, words) -> None:
    with pytest.raises(mb.ModelError) as error:
        make()
    for word in words:
        assert word in str(error.value)


def test_shapes_must_sit_on_their_own_body() -> None:
    model = mb.Model("m")
    arm = model.add(mb.RigidBody("arm", 1.0, (1, 1, 1)))
    other = model.ground.add_marker("M7")
    with pytest.raises(mb.ModelError, match="marker 'M7'.*not on body 'arm'"):
        arm.add_shape(Sphere(0.1), other)
    with pytest.raises(mb.ModelError, match="link end marker 'M7'"):
        arm.add_shape(Link(arm.add_marker("tip", (1, 0, 0)), other, 0.01))


def test_scene_travels_through_the_results_file(tmp_path) -> None:
    """Shapes, markers, joints and forces of the model are stored in the results file and read back."""
    model = mb.Model("pendulum")
    bob = model.add(mb.RigidBody.from_shape("bob", Sphere(0.05, color="red"), 7800.0, position=(0.5, 0.0, 0.0)))
    model.ground.add_shape(Box((0.1, 0.1, 0.02)))
    model.add(
        mb.Revolute(
            "pivot",
            bob.add_marker("pivot", (-0.5, 0, 0), z_axis=(0, 1, 0)),
            model.ground.add_marker("o", z_axis=(0, 1, 0)),
        )
    )
    results = mb.dynamics(model, t_end=0.05, output_step=0.01, output=tmp_path / "run.h5")
    scene = json.loads(Results.load(tmp_path / "run.h5").layout.scene)
    assert results.layout.scene == Results.load(tmp_path / "run.h5").layout.scene
    assert scene["bodies"][0]["shapes"][0]["type"] == "sphere" and scene["bodies"][0]["shapes"][0]["color"] == "#d64541"
    assert scene["ground"]["shapes"][0]["type"] == "box"
    assert scene["joints"] == [{"name": "pivot", "type": "Revolute", "i": 1, "j": 0}]
    assert "1 body" in scene["summary"]


def test_results_without_a_scene_still_load(tmp_path) -> None:
    """Files written before scenes existed (no /scene dataset) load with an empty scene."""
    layout = ResultsLayout("old", "dynamics", body_names=("a",))
    arrays = {key: np.zeros((2, *shape)) for key, shape in layout.frame_shapes().items()}
    Results(layout, arrays).save(tmp_path / "old.h5")
    assert Results.load(tmp_path / "old.h5").layout.scene == ""
