"""The animation page in a real browser (Debian's chromium, headless, WebGL by SwiftShader).

Checks: no console errors; the canvas shows the bodies (pixels around each body's projected CM
differ from the background); moving the DOM time slider puts the bodies at the results' positions
(float32 storage: 1e-6 m); the displacement scale multiplies displacements; play advances time;
a results file of 20 bodies x 10,000 frames stays near 37 bytes of page per body-frame and loads
in a few seconds. Screenshots are written to tests/artifacts/.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from matplotlib import image

import multibody as mb
from multibody.results import Results, ResultsLayout
from multibody.viz.animation import BYTES_PER_BODY_FRAME, animate
from multibody.viz.channels import STANDARD_SETS

from .conftest import ARTIFACTS, EXAMPLES, example_run

BACKGROUND = np.array([0xEE, 0xF1, 0xF5]) / 255.0
"""The page's background colour #eef1f5."""


def open_page(browser, path, width=1000, height=700):
    """The page at ``path``, ready, with its console errors collected in ``page.errors``."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.network = []  # anything fetched from outside the file: it must work offline
    page.on("request", lambda request: page.network.append(request.url) if request.url.startswith("http") else None)
    page.goto(path.resolve().as_uri())
    page.wait_for_function("window.multibodyViewer && window.multibodyViewer.ready", timeout=30_000)
    return page


@pytest.fixture(scope="module")
def slider_crank_page(browser, tmp_path_factory):
    _, results = example_run("slider_crank")
    path = tmp_path_factory.mktemp("animation") / "slider_crank.html"
    results.save(path.with_suffix(".h5"))
    animate(None, Results.load(path.with_suffix(".h5")), path, channels=["slider.position.x"])
    page = open_page(browser, path)
    yield page, results
    page.close()


def test_page_loads_without_errors_and_draws_the_bodies(slider_crank_page) -> None:
    page, results = slider_crank_page
    viewer = "window.multibodyViewer"
    assert page.evaluate(f"{viewer}.bodyNames") == list(results.layout.body_names)
    hide_controls = page.add_style_tag(content="#panel, #transport { display: none; }")
    page.evaluate(f"{viewer}.setVisible('grid', false); {viewer}.setView('front'); {viewer}.render()")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = page.screenshot(path=str(ARTIFACTS / "slider_crank_front.png"))
    pixels = image.imread(io.BytesIO(shot), format="png")[..., :3]
    differs = np.any(np.abs(pixels - BACKGROUND) > 0.08, axis=-1)
    for b, name in enumerate(results.layout.body_names):
        x, y = (round(c) for c in page.evaluate(f"{viewer}.screenPoint({b})"))
        assert differs[y - 3 : y + 4, x - 3 : x + 4].any(), f"body {name} not drawn at its CM pixel ({x}, {y})"
    assert 0.005 < differs.mean() < 0.9  # something is drawn, and it is not a blank or garbage canvas
    hide_controls.evaluate("style => style.remove()")
    page.evaluate(f"{viewer}.setVisible('grid', true); {viewer}.setView('iso')")
    assert page.errors == []
    assert page.network == []


def test_time_slider_moves_bodies_to_the_results(slider_crank_page) -> None:
    page, results = slider_crank_page
    positions = results.arrays["body/position"]
    for frame in (0, 7, len(results) - 1):
        page.locator("#time-slider").fill(str(frame))
        assert page.evaluate("window.multibodyViewer.frameIndex()") == frame
        assert page.evaluate("window.multibodyViewer.time()") == pytest.approx(results.time[frame], abs=1e-12)
        np.testing.assert_allclose(page.evaluate("window.multibodyViewer.bodyPositions()"), positions[frame], atol=1e-6)
        e = results.arrays["body/euler_parameters"][frame]
        quaternions = np.array(page.evaluate("window.multibodyViewer.bodyQuaternions()"))
        np.testing.assert_allclose(quaternions, np.column_stack([e[:, 1:], e[:, :1]]), atol=1e-6)
        slider_x = float(page.evaluate("window.multibodyViewer.readout()").split("slider.position.x = ")[1].split()[0])
        assert slider_x == pytest.approx(results.channel("slider.position.x")[frame], rel=1e-5)  # 6 digits shown
    assert page.errors == []


def test_displacement_scale_multiplies_displacements(slider_crank_page) -> None:
    page, results = slider_crank_page
    positions = results.arrays["body/position"]
    page.evaluate("window.multibodyViewer.setFrame(5); window.multibodyViewer.setScale(3)")
    expected = positions[0] + 3.0 * (positions[5] - positions[0])
    np.testing.assert_allclose(page.evaluate("window.multibodyViewer.bodyPositions()"), expected, atol=3e-6)
    page.evaluate("window.multibodyViewer.setScale(1)")
    page.evaluate("window.multibodyViewer.addTrace('rod CM')")
    for view in ("front", "top", "side", "iso"):
        page.evaluate(f"window.multibodyViewer.setView('{view}')")
    for layer in ("markers", "joints", "forces", "traces"):
        page.evaluate(f"window.multibodyViewer.setVisible('{layer}', true)")
    assert page.errors == []


def test_play_advances_time(slider_crank_page) -> None:
    page, results = slider_crank_page
    # At 0.02x the 0.1 s run takes 5 s of wall time per loop, so the check below cannot catch it
    # wrapping around to t = 0; the timeout is generous because software WebGL on a loaded CI
    # machine can take seconds per frame.
    page.evaluate("window.multibodyViewer.setFrame(0); window.multibodyViewer.setSpeed(0.02)")
    page.locator("#play").click()
    page.wait_for_function("window.multibodyViewer.frameIndex() >= 2", timeout=30_000)
    # Read the state and press pause in one step of the page, so no animation frame runs between.
    seen = page.evaluate(
        """(() => {
            const viewer = window.multibodyViewer;
            const playing = viewer.isPlaying();
            document.getElementById("play").click();
            return {playing, paused: !viewer.isPlaying(), time: viewer.time()};
        })()"""
    )
    assert seen["playing"] and seen["paused"]
    assert seen["time"] >= results.time[2]
    page.screenshot(path=str(ARTIFACTS / "slider_crank_playing.png"))
    assert page.errors == []


def chain_results(n_bodies: int, n_frames: int) -> Results:
    """A synthetic run: bodies on circles of growing radius, each turning about z."""
    layout = ResultsLayout("chain", "dynamics", body_names=tuple(f"link{k}" for k in range(n_bodies)))
    arrays = {key: np.zeros((n_frames, *shape)) for key, shape in layout.frame_shapes().items()}
    t = np.linspace(0.0, 10.0, n_frames)
    angle = t[:, None] * (1.0 + 0.1 * np.arange(n_bodies))
    radius = 0.2 * (1 + np.arange(n_bodies))
    arrays["time"] = t
    arrays["body/position"] = np.stack([radius * np.cos(angle), radius * np.sin(angle), np.zeros_like(angle)], axis=-1)
    arrays["body/euler_parameters"] = np.stack(
        [np.cos(angle / 2), np.zeros_like(angle), np.zeros_like(angle), np.sin(angle / 2)], axis=-1
    )
    return Results(layout, arrays)


def test_large_run_is_compact_and_loads_quickly(browser, tmp_path) -> None:
    """20 bodies x 10,000 frames: the motion costs 28 bytes per body-frame (37.3 in base64 text);
    with the 0.75 MB of three.js the page must stay under 40 bytes per body-frame + 1 MB, load
    (within ``open_page``'s wait; its time is printed, not asserted: the machines are shared) and
    show the last frame."""
    n_bodies, n_frames = 20, 10_000
    results = chain_results(n_bodies, n_frames)
    path = animate(None, results, tmp_path / "chain.html", channels=[])
    size = path.stat().st_size
    per_body_frame = (size - 1_000_000) / (n_bodies * n_frames)
    assert BYTES_PER_BODY_FRAME == 28
    assert size < 40 * n_bodies * n_frames + 1_000_000, f"{size} bytes, {per_body_frame:.1f} per body-frame"
    start = time.perf_counter()
    page = open_page(browser, path)
    load_seconds = time.perf_counter() - start
    print(f"\n20 bodies x 10000 frames: {size / 1e6:.2f} MB page, loaded in {load_seconds:.2f} s")
    page.evaluate("window.multibodyViewer.setFrame(9999)")
    np.testing.assert_allclose(
        page.evaluate("window.multibodyViewer.bodyPositions()"), results.arrays["body/position"][-1], atol=1e-5
    )
    assert page.errors == []
    page.close()


QUICK_EXAMPLES = ("two_mass_chain", "newtons_cradle", "heavy_top")
"""Springs, contacts and a spinning top in the default run (about 3 s a page); all examples with -m slow."""


@pytest.mark.parametrize(
    "example", [e if e in QUICK_EXAMPLES else pytest.param(e, marks=pytest.mark.slow) for e in EXAMPLES]
)
def test_every_example_animates_without_errors(browser, tmp_path, example) -> None:
    """Every shipped example (springs, contacts, motions, several joint types) loads and plays its
    last frame with no console error, its bodies at the results' positions."""
    system, results = example_run(example)
    page = open_page(browser, animate(system, results, tmp_path / f"{example}.html"))
    page.evaluate("window.multibodyViewer.setVisible('markers', true); window.multibodyViewer.setFrame(1e9)")
    np.testing.assert_allclose(
        page.evaluate("window.multibodyViewer.bodyPositions()"), results.arrays["body/position"][-1], atol=1e-5
    )
    assert page.errors == []
    page.close()


def test_shapes_of_every_kind_are_drawn(browser, tmp_path) -> None:
    """A pendulum dressed in every shape kind (and a mesh), pushed by a force and a torque (arrows),
    renders without errors; the pixel at the bob's centre is the bob's red."""
    model = mb.Model("gallery")
    bob = model.add(mb.RigidBody.from_shape("bob", mb.Sphere(0.05, color="red"), 7800.0, position=(0.5, 0.0, 0.0)))
    pivot = bob.add_marker("pivot", (-0.5, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0))
    bob.add_shape(mb.Link(pivot, bob.add_marker("centre"), radius=0.01, color="steel"))
    bob.add_shape(mb.Box((0.04, 0.04, 0.04), color="blue"), pivot)
    bob.add_shape(mb.Cylinder(0.02, 0.1, color="#22aa88", opacity=0.5), pivot)
    bob.add_shape(
        mb.Frustum(0.03, 0.0, 0.08, color="orange"), bob.add_marker("tip", (0.05, 0.0, 0.0), z_axis=(1, 0, 0))
    )
    bob.add_shape(mb.Ellipsoid((0.02, 0.03, 0.04), color="purple"), bob.add_marker("side", (0.0, 0.0, 0.06)))
    bob.add_shape(mb.Capsule(0.01, 0.05, color="yellow"), bob.add_marker("top", (0.0, 0.0, -0.06)))
    tetrahedron = mb.Mesh(
        vertices=[[0, 0, 0], [0.05, 0, 0], [0, 0.05, 0], [0, 0, 0.05]],
        faces=[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    model.ground.add_shape(tetrahedron)
    model.add(mb.Revolute("hinge", pivot, model.ground.add_marker("o", z_axis=(0.0, 1.0, 0.0))))
    model.add(mb.PointForce("push", bob.marker("centre"), (0.0, 0.0, 20.0)))  # drawn as an arrow
    model.add(mb.PointTorque("twist", bob.marker("centre"), (0.0, 1.0, 0.0)))
    results = mb.dynamics(model, t_end=0.05, output_step=0.01)
    page = open_page(browser, animate(model, results, tmp_path / "gallery.html"))
    page.add_style_tag(content="#panel, #transport { display: none; }")
    page.evaluate("window.multibodyViewer.setVisible('grid', false); window.multibodyViewer.setView('front')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pixels = image.imread(io.BytesIO(page.screenshot(path=str(ARTIFACTS / "shapes_gallery.png"))), format="png")[
        ..., :3
    ]
    x, y = (round(c) for c in page.evaluate("window.multibodyViewer.screenPoint(0)"))
    assert np.abs(pixels[y, x] - np.array([0xD6, 0x45, 0x41]) / 255.0).max() < 0.35  # the red bob, lit
    assert page.errors == []
    page.close()


def open_report(browser, path, width=1300, height=1000):
    """The report at ``path`` and its animation frame, both ready; console errors in ``page.errors``."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.network = []
    page.on("request", lambda request: page.network.append(request.url) if request.url.startswith("http") else None)
    page.goto(path.resolve().as_uri())
    page.wait_for_function("window.multibodyReport && window.multibodyReport.ready", timeout=30_000)
    animation = page.query_selector("#animation").content_frame()
    animation.wait_for_function("window.multibodyViewer && window.multibodyViewer.ready", timeout=30_000)
    return page, animation


def test_report_tree_click_shows_the_plot_linked_to_the_animation(browser, tmp_path) -> None:
    """The report opened from its file: clicking a channel in the tree shows its plot (a canvas with
    the curve's colour drawn on it, titled with the channel and unit); a zero channel shows its note
    instead of noise; the plots' time line follows the animation and a click on a plot moves the
    animation to that time (to the nearest output instant)."""
    _, results = example_run("slider_crank")
    results.save(tmp_path / "run.h5")
    page, animation = open_report(browser, mb.report(tmp_path / "run.h5", tmp_path / "report.html"))
    page.click('#tree button.element[data-element="rod"]')  # the rod's standard set
    assert page.evaluate("window.multibodyReport.shown()") == [f"rod.{q}" for q in STANDARD_SETS["body"]]
    page.click('#tree button[data-panel="rod.velocity"]')
    assert page.evaluate("window.multibodyReport.shown()") == ["rod.velocity"]
    panel = page.locator('#plots .panel[data-panel="rod.velocity"]')
    assert panel.locator("h2").inner_text() == "rod.velocity [m/s]"
    assert page.locator('#tree button[data-panel="rod.velocity"]').get_attribute("class") == "channel selected"
    canvas = panel.locator("canvas")
    pixels = image.imread(io.BytesIO(canvas.screenshot()), format="png")[..., :3]
    x_colour = np.array([0x1F, 0x6F, 0xD1]) / 255.0  # the first curve (x) of report.js
    assert np.sum(np.abs(pixels - x_colour).max(axis=-1) < 0.15) > 100, "the x curve is not drawn"
    room = page.evaluate("document.querySelector('#plots .chart').clientWidth")
    assert room > 1300 - 400  # the plots column takes the page beside the tree (250 px) ...
    assert page.evaluate("window.multibodyReport.plotWidth(0)") == pytest.approx(
        room, abs=2
    )  # ... and the plot all of it
    page.screenshot(path=str(ARTIFACTS / "report_browser.png"), full_page=True)

    page.click('#tree button.element[data-element="crank"]')
    page.click('#tree button[data-panel="crank.position"]')  # the balanced crank's CM stays on the axis
    zero_panel = page.locator('#plots .panel[data-panel="crank.position"]')
    assert "zero" in zero_panel.locator(".note").inner_text()
    assert zero_panel.locator("canvas").count() == 0
    page.click('#tree button[data-panel="crank.angular_velocity"]')

    animation.evaluate("window.multibodyViewer.setFrame(5)")
    page.wait_for_function(f"window.multibodyReport.cursorTime() === {float(results.time[5])!r}", timeout=10_000)
    x, y = page.evaluate(f"window.multibodyReport.timeToPixel(0, {float(results.time[7])!r})")
    page.mouse.click(x, y)
    animation.wait_for_function("window.multibodyViewer.frameIndex() === 7", timeout=10_000)
    assert page.errors == []
    assert page.network == []
    page.close()


def test_shapeless_body_and_joints_are_drawn(browser, tmp_path) -> None:
    """A body given without shapes is drawn (links to its markers, a ball at its CM) and so are the
    joints of its revolute to ground and of a carriage's translational joint (the rail); each checked
    alone, with the other layers hidden, at its projected pixel against the background."""
    model = mb.Model("bare")
    arm = model.add(mb.RigidBody("arm", 2.0, (0.002, 0.17, 0.17), position=(0.5, 0.0, 0.0)))
    pivot = arm.add_marker("pivot", (-0.5, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0))
    arm.add_marker("tip", (0.5, 0.0, 0.0))
    model.add(mb.Revolute("hinge", pivot, model.ground.add_marker("o", z_axis=(0.0, 1.0, 0.0))))
    carriage = model.add(
        mb.RigidBody("carriage", 1.0, (0.01, 0.01, 0.01), position=(0.0, 0.0, -0.6), velocity=(1.0, 0.0, 0.0))
    )
    model.add(
        mb.Translational(
            "rail",
            carriage.add_marker("shoe", z_axis=(1.0, 0.0, 0.0)),
            model.ground.add_marker("guide", (-0.3, 0.0, -0.6), z_axis=(1.0, 0.0, 0.0)),
        )
    )
    model.ground.add_marker("mid_travel", (0.2, 0.0, -0.6))  # on the rail, away from the carriage at x = 0
    results = mb.dynamics(model, t_end=0.4, output_step=0.1)  # the carriage coasts 0.4 m: the rail spans it
    page = open_page(browser, animate(model, results, tmp_path / "bare.html"))
    viewer = "window.multibodyViewer"
    page.add_style_tag(content="#panel, #transport { display: none; }")
    page.evaluate(f"{viewer}.setView('front')")
    markers = page.evaluate(f"{viewer}.markerNames")
    points = {
        "arm CM": page.evaluate(f"{viewer}.screenPoint(0)"),
        "hinge": page.evaluate(f"{viewer}.markerScreenPoint({markers.index('arm/pivot')})"),
        "rail": page.evaluate(f"{viewer}.markerScreenPoint({markers.index('ground/mid_travel')})"),
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for shown, hidden, name in (
        ("shapes", "joints", "arm CM"),
        ("joints", "shapes", "hinge"),
        ("joints", "shapes", "rail"),
    ):
        page.evaluate(
            f"{viewer}.setVisible('grid', false); {viewer}.setVisible('{hidden}', false); "
            f"{viewer}.setVisible('{shown}', true); {viewer}.setView('front'); {viewer}.render()"
        )
        shot = page.screenshot(path=str(ARTIFACTS / f"bare_{shown}.png"))
        differs = np.any(np.abs(image.imread(io.BytesIO(shot), format="png")[..., :3] - BACKGROUND) > 0.08, axis=-1)
        x, y = (round(c) for c in points[name])
        assert differs[y - 2 : y + 3, x - 2 : x + 3].all(), (
            f"{name} not drawn at its pixel ({x}, {y}) with only {shown}"
        )
    page.evaluate(f"{viewer}.setVisible('grid', true); {viewer}.setVisible('shapes', true); {viewer}.setView('iso')")
    page.screenshot(path=str(ARTIFACTS / "bare_iso.png"))
    assert page.errors == []
    page.close()


def test_ropes_are_drawn_through_their_tangent_points_and_coloured_by_tension(browser, tmp_path) -> None:
    # Reference: RopeHistory.polyline, the tangent points and arcs the results give (float32 on
    # the page); a taut rope is drawn in the tension colour (red at its largest tension).
    _, results = example_run("block_and_tackle")
    path = tmp_path / "block_and_tackle.html"
    animate(None, results, path)
    page = open_page(browser, path)
    polyline = results.rope("hoist").polyline()
    for frame in (0, len(results) - 1):
        page.evaluate(f"window.multibodyViewer.setFrame({frame})")
        drawn = np.array(page.evaluate("window.multibodyViewer.ropePoints(0)")).reshape(-1, 3)
        np.testing.assert_allclose(drawn, polyline[frame], atol=1e-5 * np.abs(polyline).max())
    assert page.evaluate("window.multibodyViewer.ropeColor(0)") != "2b6cb0"  # not the slack colour
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("kind", ["massless", "moving_node"])
def test_pulleys_turn_and_a_rope_is_coloured_by_its_tension_along_it(browser, tmp_path, kind: str) -> None:
    # Reference: RopeHistory.rims, polyline and polyline_tension (float32 on the page). An Atwood
    # machine over a no-slip sheave with inertia: the sheave turns (its spoke, along its marker's
    # x-axis, sweeps), and the heavy side, pulling harder to spin it up, is drawn redder than the
    # light one. A moving-node rope is drawn through its spans' nodes and cubic shape.
    model = mb.Model("atwood")
    y_axis = (0.0, 1.0, 0.0)
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.02, 0.02, 0.02)))
    axle = sheave.add_marker("axle", z_axis=y_axis)
    model.add(mb.Revolute("axle", axle, model.ground.add_marker("axle", z_axis=y_axis)))
    hooks = []
    for name, mass, x in (("light", 2.0, -0.1), ("heavy", 9.0, 0.1)):
        body = model.add(mb.RigidBody(name, mass=mass, inertia=(0.1, 0.1, 0.1), position=(x, 0.0, -1.0)))
        model.add(
            mb.Translational(
                f"{name}_slide",
                body.add_marker("slide", z_axis=(0, 0, 1)),
                model.ground.add_marker(name, position=(x, 0, -1.0), z_axis=(0, 0, 1)),
            )
        )
        hooks.append(body.add_marker("hook"))
    route = [hooks[0], mb.Pulley("sheave", axle, 0.1, friction="no_slip"), hooks[1]]
    options = {"kind": kind, "elements_per_span": 2, "damping": 400.0} if kind == "moving_node" else {"damping": 200.0}
    model.add(mb.Rope("rope", route, 0.01, 1e4, 0.1, pretension=2.0 * 9.81, **options))
    results = mb.dynamics(model, 0.4, 0.1)
    path = tmp_path / "atwood.html"
    animate(model, results, path)
    page = open_page(browser, path)
    rope = results.rope("rope")
    rims = rope.rims().reshape(len(results), -1, 3)
    for frame in (0, len(results) - 1):
        page.evaluate(f"window.multibodyViewer.setFrame({frame})")
        drawn = np.array(page.evaluate("window.multibodyViewer.ropeRims(0)")).reshape(-1, 3)
        np.testing.assert_allclose(drawn, rims[frame], atol=1e-6)
        drawn = np.array(page.evaluate("window.multibodyViewer.ropePoints(0)")).reshape(-1, 3)
        np.testing.assert_allclose(drawn, rope.polyline()[frame], atol=1e-6)
    if kind == "moving_node":  # drawn through the spans' nodes
        nodes = rope.nodes[-1, :, :, :3].reshape(-1, 3)
        assert np.min(np.linalg.norm(drawn[:, None] - nodes[None], axis=2), axis=0).max() < 1e-6
    spokes = rims[:, -1] - rims[:, -2]
    assert np.degrees(np.arccos(spokes[0] @ spokes[-1] / 0.1**2)) > 30  # the sheave has turned
    light, heavy = (
        page.evaluate(f"window.multibodyViewer.ropeColor(0, {k})") for k in (0, rope.polyline().shape[1] - 1)
    )
    assert light != heavy
    assert int(heavy[:2], 16) > int(light[:2], 16)  # more red where the tension is higher
    assert page.errors == []
    page.close()
