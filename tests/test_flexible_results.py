"""Results of flexible (modal) bodies: node deformations, positions and stresses through
``res.body(name)`` (``multibody.results.flexible``), from memory and from a saved file, against closed forms.

The cantilever is the one of ``test_flexible_dynamics`` (steel, 1 m, 20 x 10 mm, 10 Hermite elements,
whose nodal static deflections are exact), so what separates a result from the closed form is modal
truncation. The bar in tension is one hexahedron across, so the end loads split equally over its four end
nodes are the consistent loads of a uniform traction and the FE solution is the exact uniform stress state.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_flexible_dynamics import (
    EI_BENDING_Z,
    GRAVITY,
    LENGTH,
    MASS_PER_LENGTH,
    N_ELEMENTS,
    SECTION,
    STEEL,
    cantilever,
)

import multibody as mb
from multibody.cli import main
from multibody.fem.beams import beam_line, beam_matrices
from multibody.fem.solids import box_mesh
from multibody.system.flexible_scene import surface_triangles

SAG = MASS_PER_LENGTH * GRAVITY * LENGTH**4 / (8.0 * EI_BENDING_Z)
"""w L^4 / (8 E I): the tip sag of a uniformly loaded cantilever [m]"""


@pytest.fixture(scope="module")
def clamped_statics():
    """Statics of the cantilever under gravity: with its frame tied to the clamped node (8 clamped modes) and
    with Craig-Bampton modes in mean axes (the frame floats: 8 fixed-interface modes)."""
    return {tied: mb.statics(cantilever(n_modes=8, tied=tied)[0]) for tied in (True, False)}


def test_tip_deformation_of_a_tied_cantilever_is_the_closed_form_sag(clamped_statics) -> None:
    """With the frame tied to the clamp, the tip's deformation in body axes is its deflection: -w L^4 / (8 E I)
    along z to the modal truncation of 8 clamped modes (measured 1.5e-5; tolerance 1e-4), and nothing across."""
    beam = clamped_statics[True].body("beam")
    assert isinstance(beam, mb.results.flexible.FlexibleBodyHistory)
    tip = beam.deformation(N_ELEMENTS)
    assert tip.shape == (1, 3)
    assert tip[-1, 2] == pytest.approx(-SAG, rel=1e-4)
    assert abs(tip[-1, 1]) < 1e-9 * SAG
    np.testing.assert_allclose(beam.deformation(N_ELEMENTS, axes="world"), tip, atol=1e-12)  # the frame does not turn
    np.testing.assert_allclose(beam.deformation(0), 0.0, atol=1e-15)  # the clamped node is held in every mode
    np.testing.assert_allclose(beam.node_positions(N_ELEMENTS)[-1], [LENGTH, 0.0, -SAG], rtol=0, atol=1e-4 * SAG)


def test_tip_position_of_a_floating_frame_cantilever_is_the_closed_form_sag(clamped_statics) -> None:
    """In mean axes the frame floats and the deformation is measured from it, so the sag shows in the tip's
    world position (frame pose + deformed node): -w L^4 / (8 E I) to 1e-4 (measured 4.5e-6, as
    ``test_flexible_dynamics`` finds through the model), and equal to frame + R_WB (X + deformation)."""
    results = clamped_statics[False]
    beam = results.body("beam")
    tip = beam.node_positions(N_ELEMENTS)[-1]
    assert tip[2] == pytest.approx(-SAG, rel=1e-4)
    frame_and_deformation = beam.position + np.einsum(
        "tab,tb->ta", beam.rotation, [LENGTH, 0.0, 0.0] + beam.deformation(N_ELEMENTS)
    )
    np.testing.assert_allclose(beam.node_positions(N_ELEMENTS), frame_and_deformation, atol=1e-15)
    np.testing.assert_allclose(
        beam.deformation(N_ELEMENTS, axes="world"),
        np.einsum("tab,tb->ta", beam.rotation, beam.deformation(N_ELEMENTS)),
        atol=1e-15,
    )
    all_nodes = beam.node_positions()
    assert all_nodes.shape == (1, N_ELEMENTS + 1, 3)
    np.testing.assert_array_equal(all_nodes[:, N_ELEMENTS], beam.node_positions(N_ELEMENTS))


def test_flexible_results_survive_save_and_load(clamped_statics, tmp_path) -> None:
    """A results file holds what the model held: the same deformations and frequencies, bit for bit."""
    for tied, results in clamped_statics.items():
        path = tmp_path / f"cantilever_{tied}.h5"
        results.save(path)
        loaded = mb.Results.load(path).body("beam")
        original = results.body("beam")
        np.testing.assert_array_equal(loaded.deformation(), original.deformation())
        np.testing.assert_array_equal(loaded.node_positions(), original.node_positions())
        np.testing.assert_array_equal(loaded.frequencies, original.frequencies)


def test_bad_node_requests_name_the_body_and_the_node(clamped_statics) -> None:
    beam = clamped_statics[True].body("beam")
    with pytest.raises(KeyError, match="flexible body 'beam': node 11 is out of range"):
        beam.deformation(11)
    with pytest.raises(ValueError, match="axes must be 'body' or 'world'"):
        beam.deformation(3, axes="global")
    with pytest.raises(ValueError, match="stresses are given for solid meshes"):
        beam.von_mises(3)


@pytest.fixture(scope="module")
def bar_in_tension():
    """A bar 0.8 m x 50 mm x 50 mm, 8 x 1 x 1 linear hexahedra, held by a Fixed joint at its x = 0 face (a
    marker averaging its 4 nodes) and pulled by 1 kN along x at its x = L face. Craig-Bampton modes with both
    end faces as interface span the static response to loads on them exactly. E = 1e10 Pa: the stress does
    not depend on E, and statics does not yet take much stiffer solid bodies (its singular-tangent filter)."""
    material = mb.Material(E=1e10, nu=0.3, density=2000.0)
    mesh = box_mesh((0.8, 0.05, 0.05), (8, 1, 1), "hex8")
    x = mesh.points[:, 0]
    left, right = np.flatnonzero(np.isclose(x, 0.0)), np.flatnonzero(np.isclose(x, 0.8))
    body = mb.FlexibleBody.from_mesh("bar", mesh, material, n_modes=2, interface=np.concatenate([left, right]))
    model = mb.Model("bar", gravity=(0.0, 0.0, 0.0))
    model.add(body)
    model.add(mb.Fixed("hold", body.add_marker("held_end", node=left), model.ground.add_marker("wall")))
    model.add(mb.PointForce("pull", body.add_marker("pulled_end", node=right), (1000.0, 0.0, 0.0)))
    return mb.statics(model), mesh, material, left, right


def test_stress_of_a_bar_in_tension_is_force_over_area(bar_in_tension, tmp_path) -> None:
    """sigma_xx = F / A = 400 kPa and every other component zero, at every node (uniform stress is exact in
    this mesh and reduction: measured 1e-12 relative; tolerance 1e-9), so von Mises is F / A; the pulled end
    moves F L / (E A) along x and the section contracts by nu F / (E A) times its width (Poisson). The same
    from the saved file."""
    results, mesh, material, left, right = bar_in_tension
    area, force, length = 0.05**2, 1000.0, 0.8
    path = tmp_path / "bar.h5"
    results.save(path)
    for bar in (results.body("bar"), mb.Results.load(path).body("bar")):
        stress = bar.stress()[-1]
        assert stress.shape == (len(mesh.points), 6)
        np.testing.assert_allclose(stress[:, 0], force / area, rtol=1e-9)
        np.testing.assert_allclose(stress[:, 1:], 0.0, atol=1e-9 * force / area)
        np.testing.assert_allclose(bar.von_mises()[-1], force / area, rtol=1e-9)
        assert bar.von_mises(5).shape == (1,)
        stretch = bar.deformation(right)[-1].mean(axis=0) - bar.deformation(left)[-1].mean(axis=0)
        assert stretch[0] == pytest.approx(force * length / (material.E * area), rel=1e-9)
        width = np.ptp(bar.node_positions(right)[-1][:, 1])
        assert width - 0.05 == pytest.approx(-material.nu * force / (material.E * area) * 0.05, rel=1e-6)


def test_surface_of_a_box_is_closed_and_turned_outwards() -> None:
    """The surface triangles of a 3 x 2 x 2 hex box are the 2 (3*2 + 3*2 + 2*2) * 2 = 64 outer faces'
    halves, and their oriented areas enclose the box's volume (divergence theorem: V = sum (c . n) A / 3)."""
    mesh = box_mesh((0.3, 0.2, 0.1), (3, 2, 2))
    triangles = surface_triangles(mesh.points, mesh.cells)
    assert len(triangles) == 64
    corners = mesh.points[triangles]
    oriented = 0.5 * np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    assert np.einsum("fa,fa->", corners.mean(axis=1), oriented) / 3.0 == pytest.approx(0.3 * 0.2 * 0.1, rel=1e-12)


def test_info_lists_the_flexible_bodies_modes(tmp_path, capsys) -> None:
    """``multibody info`` prints each flexible body's kept modes and their frequencies: the clamped
    cantilever's first two bending modes (8.355 Hz and twice that in the stiffer plane, Euler-Bernoulli's to
    1e-5, see ``test_flexible_dynamics``) and the second in the softer plane."""
    path = tmp_path / "cantilever_model.py"
    path.write_text(
        "import multibody as mb\n"
        "from multibody.fem.beams import beam_line\n"
        "def build():\n"
        "    body = mb.FlexibleBody.from_mesh('beam', beam_line(1.0, 10, mb.Section.rectangle(0.02, 0.01)),\n"
        "        mb.Material(E=2.1e11, nu=0.3, density=7850.0), n_modes=3, reference_nodes=[0])\n"
        "    model = mb.Model('cantilever')\n"
        "    model.add(body)\n"
        "    model.add(mb.Fixed('clamp', body.add_marker('root', node=0), model.ground.add_marker('wall')))\n"
        "    return model\n"
    )
    assert main(["info", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "3 modes (free; frame tied to the reference nodes, held there): 8.355, 16.71, 52.36 Hz" in printed


def test_a_body_from_matrices_keeps_its_nodes_as_points(clamped_statics) -> None:
    """A body made from an FE program's matrices has no mesh to draw: the scene keeps its nodes as points
    (every node of a small model), and its deformations are those of the same beam made from the mesh."""
    mesh = beam_line(LENGTH, N_ELEMENTS, SECTION)
    mass, stiffness = beam_matrices(mesh, STEEL)
    body = mb.FlexibleBody.from_matrices("beam", mass, stiffness, mesh.points, 8, dofs_per_node=6, reference_nodes=[0])
    model = mb.Model("matrices", gravity=(0.0, 0.0, -GRAVITY))
    model.add(body)
    model.add(mb.Fixed("clamp", body.add_marker("root", node=0), model.ground.add_marker("wall")))
    beam = mb.statics(model).body("beam")
    assert beam.shapes.kind == "points"
    np.testing.assert_array_equal(beam.nodes, np.arange(N_ELEMENTS + 1))
    np.testing.assert_allclose(beam.deformation(), clamped_statics[True].body("beam").deformation(), atol=1e-12 * SAG)


def test_a_marker_on_a_flexible_body_moves_and_turns_with_its_node(clamped_statics) -> None:
    """Marker frames of the results (what ropes, cylinders and beams are rebuilt from) follow the deformation:
    the tip marker sits at the tip node and its x axis is turned by the tip slope, w L^3 / (6 E I) for the
    uniform load (closed form). A slope's modal series converges more slowly than the deflection's: measured
    1.8e-4 with 8 modes (9e-5 with 12, 2.9e-5 with 16); tolerance 5e-4."""
    import json

    from multibody.results.markers import marker_frames, marker_velocities

    results = clamped_statics[True]
    markers = {marker["name"]: marker for marker in json.loads(results.layout.scene)["markers"]}
    p_WM, R_WM = marker_frames(results, [markers["beam/tip"]])
    np.testing.assert_allclose(p_WM[:, 0], results.body("beam").node_positions(N_ELEMENTS), atol=1e-15)
    slope = MASS_PER_LENGTH * GRAVITY * LENGTH**3 / (6.0 * EI_BENDING_Z)
    assert -R_WM[-1, 0, 2, 0] == pytest.approx(np.sin(slope), rel=5e-4)
    np.testing.assert_allclose(marker_velocities(results, [markers["beam/tip"]]), 0.0, atol=1e-12)  # at rest
