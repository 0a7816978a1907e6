"""Results: immutable arrays with named access, and their streaming HDF5 storage.

References: the rotation about z by a known angle (closed form), orthonormality of rotation
matrices, and exact equality of what is written with what is read back (HDF5 and CSV store
float64 exactly, so the comparisons are exact).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from multibody.results import Results, ResultsLayout, ResultsWriter
from multibody.results.storage import PackedFrame

LAYOUT = ResultsLayout(
    model_name="slider_crank",
    analysis="dynamics",
    body_names=("crank", "rod", "slider"),
    joint_names=("pin", "slide"),
    force_names=("spring",),
)


def make_frame(layout: ResultsLayout, time: float) -> dict[str, np.ndarray]:
    """A frame whose every entry differs, with bodies turning about z by the angle `time` [rad]."""
    frame: dict[str, np.ndarray] = {}
    for offset, (key, shape) in enumerate(layout.frame_shapes().items()):
        frame[key] = time + offset + np.arange(np.prod(shape, dtype=int)).reshape(shape) / 7.0
    half_angle = 0.5 * time
    frame["time"] = np.array(time)
    rotation_about_z = [np.cos(half_angle), 0.0, 0.0, np.sin(half_angle)]
    frame["body/euler_parameters"] = np.tile(rotation_about_z, (len(layout.body_names), 1))
    return frame


def write_frames(path: Path | None, layout: ResultsLayout, times: list[float]) -> ResultsWriter:
    writer = ResultsWriter(path, layout)
    for t in times:
        writer.append(make_frame(layout, t))
    return writer


def assert_same_results(actual: Results, expected: Results) -> None:
    assert actual.layout == expected.layout
    assert actual.status == expected.status
    assert actual.message == expected.message
    assert actual.stats == expected.stats
    assert actual.arrays.keys() == expected.arrays.keys()
    for key in expected.arrays:
        np.testing.assert_array_equal(actual.arrays[key], expected.arrays[key], err_msg=key)


@pytest.fixture
def results() -> Results:
    writer = write_frames(None, LAYOUT, [0.0, 0.5, 1.0, 1.5])
    writer.close("complete", stats={"steps": 40, "wall_time": 0.25})
    return writer.results()


def test_save_load_round_trip(results: Results, tmp_path: Path) -> None:
    path = tmp_path / "run.h5"
    results.save(path)
    loaded = Results.load(path)
    assert_same_results(loaded, results)
    assert loaded.stats == {"steps": 40, "wall_time": 0.25}
    assert isinstance(loaded.stats["steps"], int)


def test_packed_frames_are_stored_like_frame_dicts(tmp_path: Path) -> None:
    """A ``PackedFrame`` (one row, the analyses' frames) filled entry by entry from a frame dict is
    stored in one copy, and gives the same results in memory and in the file, to the bit, as the
    dict; frames of either kind mix in one run."""
    times = [0.0, 0.1, 0.2, 0.3]
    expected = write_frames(None, LAYOUT, times)
    expected.close("complete")
    path = tmp_path / "run.h5"
    with ResultsWriter(path, LAYOUT, flush_interval=0.0) as writer:
        for t in times:
            frame = make_frame(LAYOUT, t)
            packed = PackedFrame(writer.packing)
            for key, value in frame.items():
                packed[key] = value
            assert packed.keys() == frame.keys()
            writer.append(packed if t != 0.2 else frame)
    assert_same_results(writer.results(), expected.results())
    assert_same_results(Results.load(path), expected.results())


def test_blocks_of_packed_frames_are_stored_like_frames(tmp_path: Path) -> None:
    """``append_rows`` (the frames compiled stepping writes, packed in a block) gives the same results
    in memory and in the file, to the bit, as appending the frames one by one, mixed with single
    frames and across the buffer's growth (40 frames); a block of another width is refused."""
    times = [0.1 * k for k in range(40)]
    expected = write_frames(None, LAYOUT, times)
    expected.close("complete")
    path = tmp_path / "run.h5"
    with ResultsWriter(path, LAYOUT, flush_interval=0.0) as writer:
        rows = np.empty((len(times), writer.packing.width))
        for row, t in zip(rows, times, strict=True):
            packed = PackedFrame(writer.packing, row)
            for key, value in make_frame(LAYOUT, t).items():
                packed[key] = value
        writer.append_rows(rows[:3])
        writer.append(make_frame(LAYOUT, times[3]))
        writer.append_rows(rows[4:4])
        writer.append_rows(rows[4:])
        with pytest.raises(ValueError, match="packed frames have shape"):
            writer.append_rows(rows[:2, :-1])
    assert_same_results(writer.results(), expected.results())
    assert_same_results(Results.load(path), expected.results())


def test_writer_streams_the_same_results_it_keeps_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "run.h5"
    with ResultsWriter(path, LAYOUT, flush_interval=0.0) as writer:
        for t in [0.0, 0.1, 0.2]:
            writer.append(make_frame(LAYOUT, t))
        with h5py.File(path, "r") as file:  # readable while running, every frame flushed
            assert file.attrs["status"] == "running"
            assert file["body/position"].shape == (3, 3, 3)
            assert file["time"].chunks is not None and file["time"].maxshape == (None,)
    assert writer.path == path
    loaded = Results.load(path)
    assert loaded.status == "complete"
    assert_same_results(loaded, writer.results())


def test_writer_in_memory_only() -> None:
    writer = write_frames(None, LAYOUT, [0.0, 1.0])
    assert writer.path is None
    running = writer.results()
    assert (running.status, len(running)) == ("running", 2)
    writer.append(make_frame(LAYOUT, 2.0))
    writer.close("complete", stats={"steps": 3})
    done = writer.results()
    assert (done.status, done.stats, len(done)) == ("complete", {"steps": 3}, 3)
    assert len(running) == 2  # an earlier snapshot does not change
    np.testing.assert_array_equal(done.time, [0.0, 1.0, 2.0])
    with pytest.raises(RuntimeError, match="closed"):
        writer.append(make_frame(LAYOUT, 3.0))


def test_exception_in_with_block_leaves_failed_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "run.h5"
    with pytest.raises(FloatingPointError, match="step size underflow"):
        with ResultsWriter(path, LAYOUT, flush_interval=3600.0) as writer:
            for t in [0.0, 0.1, 0.2]:
                writer.append(make_frame(LAYOUT, t))
            raise FloatingPointError("step size underflow at t = 0.2 s")
    loaded = Results.load(path)
    assert (loaded.status, loaded.message) == ("failed", "step size underflow at t = 0.2 s")
    np.testing.assert_array_equal(loaded.time, [0.0, 0.1, 0.2])
    assert_same_results(loaded, writer.results())


def test_keyboard_interrupt_closes_as_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "run.h5"
    with pytest.raises(KeyboardInterrupt), ResultsWriter(path, LAYOUT) as writer:
        writer.append(make_frame(LAYOUT, 0.0))
        raise KeyboardInterrupt
    loaded = Results.load(path)
    assert (loaded.status, len(loaded)) == ("interrupted", 1)


def test_file_of_a_killed_process_is_loadable_as_running(tmp_path: Path) -> None:
    path = tmp_path / "run.h5"
    script = f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_results import LAYOUT, make_frame
from multibody.results import ResultsWriter
writer = ResultsWriter({str(path)!r}, LAYOUT, flush_interval=0.0)
for t in [0.0, 0.1]:
    writer.append(make_frame(LAYOUT, t))
os._exit(3)  # dies without closing the file
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    completed = subprocess.run([sys.executable, "-c", script], env=env, timeout=60)
    assert completed.returncode == 3
    loaded = Results.load(path)
    assert loaded.status == "running"
    np.testing.assert_array_equal(loaded.time, [0.0, 0.1])
    rod_position = make_frame(LAYOUT, 0.1)["body/position"][1]
    np.testing.assert_array_equal(loaded.body("rod").position[1], rod_position)


def test_rotation_from_euler_parameters() -> None:
    # The crank turns about z by the angle t; at t = pi/2 its x axis points along world y.
    quarter_turn = ResultsLayout("m", "kinematics", body_names=("crank",))
    writer = write_frames(None, quarter_turn, [np.pi / 2])
    R_WB = writer.results().body("crank").rotation[0]
    quarter_turn_about_z = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    np.testing.assert_allclose(R_WB, quarter_turn_about_z, atol=1e-15)

    rng = np.random.default_rng(7)
    euler_parameters = rng.normal(size=(50, 4))
    euler_parameters /= np.linalg.norm(euler_parameters, axis=1, keepdims=True)
    writer = ResultsWriter(None, quarter_turn)
    for t, e in enumerate(euler_parameters):
        writer.append({**make_frame(quarter_turn, t), "body/euler_parameters": e[np.newaxis]})
    R_WB = writer.results().body("crank").rotation
    # orthonormal with determinant +1, to rounding of unit-norm parameters
    identities = np.broadcast_to(np.eye(3), R_WB.shape)
    np.testing.assert_allclose(R_WB @ R_WB.transpose(0, 2, 1), identities, atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(R_WB), 1.0, atol=1e-14)


def test_named_views_and_channels(results: Results) -> None:
    arrays = results.arrays
    views_and_arrays = [
        (results.body("rod").position, arrays["body/position"][:, 1]),
        (results.joint("slide").reaction_torque_in_j, arrays["joint/reaction_torque_in_j"][:, 1]),
        (results.force("spring").value, arrays["force/value"][:, 0]),
        (results.channel("crank.angular_velocity.z"), arrays["body/angular_velocity"][:, 0, 2]),
        (results.channel("slider.euler_parameters.e3"), arrays["body/euler_parameters"][:, 2, 3]),
        (
            results.channel("pin.reaction_force_in_j.y"),
            arrays["joint/reaction_force_in_j"][:, 0, 1],
        ),
        (results.channel("spring.value"), arrays["force/value"][:, 0]),
        (results.channel("energy.kinetic"), results.energy["kinetic"]),
    ]
    for view, array in views_and_arrays:
        np.testing.assert_array_equal(view, array)
    assert set(results.energy) == {"kinetic", "potential", "total", "dissipated"}
    assert len(results) == 4 and results.time.shape == (4,)


@pytest.mark.parametrize(
    ("spec", "error", "words"),
    [
        ("crankk.position.x", KeyError, "no element 'crankk'.*bodies are: crank, rod, slider"),
        ("crank.speed.x", KeyError, "no quantity 'speed'.*angular_velocity"),
        ("crank.position", ValueError, "takes a component x, y, z"),
        ("spring.value.x", ValueError, "takes no component"),
        ("crank.position.e0", ValueError, "takes a component x, y, z"),
        ("position", ValueError, "<element>.<quantity>"),
    ],
)
def test_bad_channel_is_explained(results: Results, spec: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        results.channel(spec)


def test_unknown_name_lists_the_alternatives(results: Results) -> None:
    message = "no body 'crankk' in the results; bodies are: crank, rod, slider"
    with pytest.raises(KeyError, match=message):
        results.body("crankk")
    with pytest.raises(KeyError, match="joints are: pin, slide"):
        results.joint("crank")
    with pytest.raises(KeyError, match="forces are: spring"):
        results.force("damper")


def test_csv_export(results: Results, tmp_path: Path) -> None:
    path = tmp_path / "channels.csv"
    channels = ["crank.angular_velocity.z", "spring.value", "energy.total"]
    results.to_csv(path, channels)
    with open(path, newline="") as stream:
        header, *rows = list(csv.reader(stream))
    assert header == ["time", *channels]
    table = np.array(rows, dtype=float)
    expected = np.column_stack([results.time, *(results.channel(c) for c in channels)])
    np.testing.assert_array_equal(table, expected)


def test_csv_export_of_every_channel(results: Results, tmp_path: Path) -> None:
    """Without a channel list every channel is written, each one named as `channel` reads it."""
    path = tmp_path / "all.csv"
    results.to_csv(path)
    with open(path, newline="") as stream:
        header, *rows = list(csv.reader(stream))
    assert header == ["time", *results.channel_names()]
    assert "crank.angular_velocity.z" in header and "energy.total" in header and "spring.value" in header
    expected = np.column_stack([results.time, *(results.channel(c) for c in header[1:])])
    np.testing.assert_array_equal(np.array(rows, dtype=float), expected)


def test_arrays_are_read_only(results: Results) -> None:
    crank = results.body("crank")
    read_only = [
        results.time,
        crank.position,
        crank.rotation,
        results.joint("pin").reaction_force,
        results.force("spring").value,
        results.energy["total"],
        results.channel("crank.velocity.x"),
    ]
    for array in read_only:
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0.0


def test_results_do_not_share_memory_with_caller_arrays() -> None:
    frame = make_frame(LAYOUT, 0.0)
    results = Results(LAYOUT, {key: value[np.newaxis] for key, value in frame.items()})
    frame["time"][...] = 99.0
    assert results.time[0] == 0.0


def test_frame_that_does_not_match_the_layout_is_rejected() -> None:
    writer = ResultsWriter(None, LAYOUT)
    frame = make_frame(LAYOUT, 0.0)
    wrong_shape = r"frame\['body/position'\] has shape \(2, 3\); the layout needs \(3, 3\)"
    with pytest.raises(ValueError, match=wrong_shape):
        writer.append({**frame, "body/position": np.zeros((2, 3))})
    with pytest.raises(ValueError, match="missing \\['energy/total'\\]"):
        writer.append({key: value for key, value in frame.items() if key != "energy/total"})


def test_empty_element_groups_round_trip(tmp_path: Path) -> None:
    layout = ResultsLayout("empty", "assemble")
    path = tmp_path / "empty.h5"
    with ResultsWriter(path, layout) as writer:
        writer.append(make_frame(layout, 0.0))
    loaded = Results.load(path)
    assert_same_results(loaded, writer.results())
    assert loaded.arrays["body/position"].shape == (1, 0, 3)
    assert loaded.layout.body_names == ()


def test_final_state_table(results: Results) -> None:
    table = results.final_state_table()
    lines = table.splitlines()
    assert "t = 1.5 s" in lines[0]
    assert lines[1].split()[:2] == ["body", "x"]
    rod_row = lines[3].split()
    assert rod_row[0] == "rod"
    rod = results.body("rod")
    speed = np.linalg.norm(rod.angular_velocity[-1])
    expected = [*rod.position[-1], *rod.velocity[-1], speed]
    np.testing.assert_allclose([float(v) for v in rod_row[1:]], expected, rtol=1e-4)
