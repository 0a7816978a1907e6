"""Flexible bodies in the viewers: the animation page (Debian's chromium, headless) draws each flexible
body's deformed mesh where the results put its nodes, coloured by displacement or von Mises stress against
the legend; the glTF export carries the modes as morph targets keyed to the modal coordinates.

Two models, read back from saved results files (the viewers need no model): a steel cantilever beam with its
frame tied to the clamp next to a clamped block of soft solid (statics under gravity: one frame; E = 1e8 Pa
keeps the block's sag visible), and the cantilever released under gravity (dynamics, 11 frames). The page
holds float32 data, so positions agree with the results to float32 rounding of metre-sized numbers (1e-6 m)
and stresses to 1e-6 relative.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib import image

import multibody as mb
from multibody.fem.beams import beam_line
from multibody.fem.solids import box_mesh
from multibody.viz.animation import animate
from multibody.viz.gltf import TUBE_SIDES, export_gltf

from .conftest import ARTIFACTS
from .test_browser import BACKGROUND, open_page
from .test_gltf import accessor_values, read_glb

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
VIEWER = "window.multibodyViewer"


def beam_and_block(with_block: bool = True) -> mb.Model:
    """The tied steel cantilever (1 m, 10 elements, 4 modes) and a soft block (0.6 x 0.05 x 0.05 m, 6 hex8,
    Craig-Bampton modes of its clamped face) beside it."""
    model = mb.Model("beam_and_block", gravity=(0.0, 0.0, -9.81))
    beam = mb.FlexibleBody.from_mesh(
        "beam", beam_line(1.0, 10, mb.Section.rectangle(0.02, 0.01)), STEEL, n_modes=4, reference_nodes=[0]
    )
    model.add(beam)
    model.add(mb.Fixed("clamp", beam.add_marker("root", node=0), model.ground.add_marker("wall")))
    beam.add_marker("tip", node=10)
    if with_block:
        mesh = box_mesh((0.6, 0.05, 0.05), (6, 1, 1))
        face = np.flatnonzero(np.isclose(mesh.points[:, 0], 0.0))
        soft = mb.Material(E=1e8, nu=0.3, density=2000.0)
        block = mb.FlexibleBody.from_mesh("block", mesh, soft, n_modes=4, interface=face, position=(0.0, 0.5, 0.0))
        model.add(block)
        model.add(mb.Fixed("hold", block.add_marker("root", node=face), model.ground.add_marker("wall2", (0, 0.5, 0))))
    return model


@pytest.fixture(scope="module")
def statics_page(browser, tmp_path_factory):
    path = tmp_path_factory.mktemp("flexible") / "beam_and_block.html"
    mb.statics(beam_and_block()).save(path.with_suffix(".h5"))
    results = mb.Results.load(path.with_suffix(".h5"))
    animate(None, results, path)
    page = open_page(browser, path)
    yield page, results, path.with_suffix(".h5")
    page.close()


def test_page_draws_the_deformed_meshes_where_the_results_put_the_nodes(statics_page) -> None:
    """The drawn nodes are the results' node positions, and the deformation scale s magnifies the elastic
    displacement from the undeformed mesh: drawn = p_WQ + (s - 1) R_WB u."""
    page, results, _ = statics_page
    assert page.evaluate(f"{VIEWER}.flexibleBodies") == ["beam", "block"]
    for index, name in enumerate(("beam", "block")):
        body = results.body(name)
        drawn = np.array(page.evaluate(f"{VIEWER}.flexibleNodePositions({index})")).reshape(-1, 3)
        np.testing.assert_allclose(drawn, body.node_positions()[0], atol=1e-6)
        page.evaluate(f"{VIEWER}.setDeformationScale(40)")
        drawn = np.array(page.evaluate(f"{VIEWER}.flexibleNodePositions({index})")).reshape(-1, 3)
        magnified = body.node_positions()[0] + 39.0 * body.deformation(axes="world")[0]
        np.testing.assert_allclose(drawn, magnified, atol=1e-6)
        page.evaluate(f"{VIEWER}.setDeformationScale(1)")
    # a marker on a flexible body is drawn at its deformed node, magnified with the mesh
    tip = page.evaluate(f"{VIEWER}.markerNames").index("beam/tip")
    beam = results.body("beam")
    np.testing.assert_allclose(
        page.evaluate(f"{VIEWER}.markerWorldPosition({tip})"), beam.node_positions(10)[0], atol=1e-6
    )
    page.evaluate(f"{VIEWER}.setDeformationScale(40)")
    magnified = beam.node_positions(10)[0] + 39.0 * beam.deformation(10, axes="world")[0]
    np.testing.assert_allclose(page.evaluate(f"{VIEWER}.markerWorldPosition({tip})"), magnified, atol=1e-6)
    page.evaluate(f"{VIEWER}.setDeformationScale(1)")
    # the beam's tube: a ring per node; the block's surface: 2 triangles per outer face (4 + 4 * 6 faces)
    assert page.evaluate(f"{VIEWER}.flexibleVertexCount(0)") == 11 * TUBE_SIDES
    assert page.evaluate(f"{VIEWER}.flexibleTriangleCount(1)") == 2 * (2 + 4 * 6)
    assert page.errors == []


def test_colours_follow_displacement_and_stress_with_the_legend(statics_page) -> None:
    """Coloured by displacement, each node's value is |u| and the legend's top is the largest over the run
    (the beam's tip sag): the clamped root is the cold end of the map, the tip the warm one. Coloured by von
    Mises stress, the block's nodes carry the results' stress and the beam (no stress field) is grey."""
    page, results, _ = statics_page
    beam, block = results.body("beam"), results.body("block")
    sag = np.linalg.norm(beam.deformation(), axis=-1)[0]
    np.testing.assert_allclose(page.evaluate(f"{VIEWER}.flexibleNodeValues(0)"), sag, rtol=1e-6, atol=1e-12)
    (legend,) = page.evaluate(f"{VIEWER}.legend()")
    assert legend["title"] == "displacement [m]"
    assert legend["largest"] == pytest.approx(max(sag.max(), np.linalg.norm(block.deformation(), axis=-1).max()))
    colors = np.array(page.evaluate(f"{VIEWER}.flexibleVertexColors(0)")).reshape(-1, TUBE_SIDES, 3)
    assert colors[0, 0, 2] > colors[0, 0, 0]  # the root: blue
    assert colors[-1, 0, 0] > colors[-1, 0, 2]  # the tip: red (the largest displacement of the run)
    page.evaluate(f"{VIEWER}.setColorBy('von_mises')")
    np.testing.assert_allclose(page.evaluate(f"{VIEWER}.flexibleNodeValues(1)"), block.von_mises()[0], rtol=1e-5)
    assert page.evaluate(f"{VIEWER}.legend()")[0]["largest"] == pytest.approx(block.von_mises().max())
    assert set(page.evaluate(f"{VIEWER}.flexibleNodeValues(0)")) == {None}
    np.testing.assert_allclose(page.evaluate(f"{VIEWER}.flexibleVertexColors(0)"), 0.6)
    assert page.locator("#legend .legend-title").inner_text() == "von Mises stress [Pa]"
    page.evaluate(f"{VIEWER}.setDeformationScale(30); {VIEWER}.setVisible('grid', false); {VIEWER}.setView('front')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = page.screenshot(path=str(ARTIFACTS / "flexible_beam_and_block.png"))
    pixels = image.imread(io.BytesIO(shot), format="png")[..., :3]
    warm = (pixels[..., 0] > 0.55) & (pixels[..., 2] < 0.35)  # the block's stressed root, drawn in the map's red
    assert warm.any()
    assert np.any(np.abs(pixels - BACKGROUND) > 0.08, axis=-1).mean() > 0.005
    page.evaluate(f"{VIEWER}.setColorBy('displacement'); {VIEWER}.setDeformationScale(1)")
    assert page.errors == []


def test_page_follows_the_modal_coordinates_frame_by_frame(browser, tmp_path) -> None:
    """The released cantilever swings: at each frame the drawn tip is where the results put it."""
    results = mb.dynamics(beam_and_block(with_block=False), 0.05, 0.005)
    path = tmp_path / "swing.html"
    results.save(path.with_suffix(".h5"))
    animate(None, path.with_suffix(".h5"), path)
    page = open_page(browser, path)
    tip = results.body("beam").node_positions(10)
    for frame in (0, 4, len(results) - 1):
        page.locator("#time-slider").fill(str(frame))
        drawn = np.array(page.evaluate(f"{VIEWER}.flexibleNodePositions(0)")).reshape(-1, 3)
        np.testing.assert_allclose(drawn[10], tip[frame], atol=1e-6)
    assert np.ptp(tip[:, 2]) > 1e-3  # it did swing
    assert page.errors == []
    page.close()


def test_gltf_morph_targets_are_the_mode_shapes_keyed_to_the_modal_coordinates(statics_page, tmp_path) -> None:
    """Each flexible body's mesh has one morph target per mode, and the weights animation holds the modal
    coordinates: base + sum_j weight_j target_j is the deformed mesh of the results (float32: 1e-6 m)."""
    _, results, saved = statics_page
    document, binary = read_glb(export_gltf(None, saved, tmp_path / "flexible.glb"))
    nodes = {node["name"]: node for node in document["nodes"]}
    animation = document["animations"][0]
    for name, vertex_node in (("beam", np.repeat(np.arange(11), TUBE_SIDES)), ("block", np.arange(28))):
        node_index = document["nodes"].index(nodes[f"{name}/deformed mesh"])
        primitive = document["meshes"][nodes[f"{name}/deformed mesh"]["mesh"]]["primitives"][0]
        targets = [accessor_values(document, binary, t["POSITION"]) for t in primitive["targets"]]
        assert len(targets) == results.modal_coordinates(name).shape[1]
        channel = next(c for c in animation["channels"] if c["target"] == {"node": node_index, "path": "weights"})
        weights = accessor_values(document, binary, animation["samplers"][channel["sampler"]]["output"]).reshape(
            len(results), -1
        )
        np.testing.assert_allclose(weights, results.modal_coordinates(name), rtol=1e-6)
        deformed = np.einsum("j,jva->va", weights[0], np.array(targets))
        body = results.body(name)
        np.testing.assert_allclose(deformed, body.deformation()[0][vertex_node], atol=1e-6)


def test_finite_segment_beam_is_a_tube_coloured_by_its_bending_moment(browser, tmp_path) -> None:
    """A finite-segment cantilever (issue 12's picture) under a tip load P: the tube runs through the segment
    ends of the results, and the moment it is coloured by is the statics of a cantilever, P (L - x) at each
    inner end and at the clamp (the springs carry it exactly; the geometric change with a tip slope of 1e-4
    is 1e-8; float32: 1e-6 relative), 0 at the free end; the clamp is the warm end of the map."""
    model = mb.Model("segments", gravity=(0.0, 0.0, 0.0))
    section = mb.Section.circle(0.02)
    beam = model.add(mb.FiniteSegmentBeam("arm", model.ground.add_marker("base"), 1.0, 5, section, STEEL, clamped=True))
    load = 0.5
    model.add(mb.PointForce("tip", beam.end, (0.0, 0.0, -load)))
    results = mb.statics(model)
    path = tmp_path / "segments.html"
    results.save(path.with_suffix(".h5"))
    animate(None, path.with_suffix(".h5"), path)
    page = open_page(browser, path)
    assert page.evaluate(f"{VIEWER}.beamNames") == ["arm"]
    x = np.linspace(0.0, 1.0, 6)
    np.testing.assert_allclose(page.evaluate(f"{VIEWER}.beamBendingMoments(0)"), load * (1.0 - x), rtol=1e-5, atol=1e-9)
    rings = np.array(page.evaluate(f"{VIEWER}.beamTubeVertices(0)")).reshape(6, TUBE_SIDES, 3)
    np.testing.assert_allclose(rings.mean(axis=1), results.beam("arm").node_positions[0], atol=1e-6)
    colors = np.array(page.evaluate(f"{VIEWER}.beamTubeColors(0)")).reshape(6, TUBE_SIDES, 3)
    assert colors[0, 0, 0] > colors[0, 0, 2] and colors[-1, 0, 2] > colors[-1, 0, 0]  # clamp red, free end blue
    assert page.evaluate(f"{VIEWER}.legend()") == [{"title": "bending moment [N m]", "largest": pytest.approx(load)}]
    page.evaluate(f"{VIEWER}.setView('front')")
    page.screenshot(path=str(ARTIFACTS / "segment_beam_moment.png"))
    assert page.errors == []
    page.close()
