"""URDF import: a double pendulum against the same model built by hand, mimic joints, the report.

References.
- ``double_pendulum.urdf`` and ``hand_built_double_pendulum`` describe the same two bars (the
  hand-built one written from the URDF spec's definitions: joint frame = child link frame at zero,
  inertia about the inertial origin in the inertial frame). Same equations, so the same motion to
  the integrator's error control: rtol 1e-8 over ~200 steps of a 1 m mechanism, 1e-6 m.
- Inertia in a rotated inertial frame: a quarter turn about z swaps the x and y moments (exact).
- Mimic: the wheel's weight acts on its axis, so only the coupler turns it; it must follow
  ``-0.5`` times the arm's angle. The coupler is a spring at 50 Hz on the wheel: its error is
  about (arm frequency / 50 Hz)^2 ~ (1 Hz / 50 Hz)^2 = 4e-4 of the motion, 1e-3 rad on the arm's
  swing of 2.6 rad; 2e-3 rad asserted (1.5e-4 found).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.io.urdf import UrdfError, UrdfImportWarning, import_urdf

DATA = Path(__file__).resolve().parents[1] / "data" / "urdf"
BAR = {"mass": 1.0, "inertia": (0.0001, 0.02088, 0.02088)}


def hand_built_double_pendulum() -> mb.Model:
    model = mb.Model("by_hand")
    rest = {"orientation": np.eye(3), "velocity": (0, 0, 0), "angular_velocity": (0, 0, 0)}
    upper = model.add(mb.RigidBody("upper", position=(0.25, 0, 0), **BAR, **rest))
    lower = model.add(mb.RigidBody("lower", position=(0.75, 0, 0), **BAR, **rest))
    y = (0.0, 1.0, 0.0)
    model.add(
        mb.Revolute("shoulder", upper.add_marker("s", (-0.25, 0, 0), z_axis=y), model.ground.add_marker("s", z_axis=y))
    )
    model.add(
        mb.Revolute(
            "elbow", lower.add_marker("e", (-0.25, 0, 0), z_axis=y), upper.add_marker("e", (0.25, 0, 0), z_axis=y)
        )
    )
    return model


def angle_about_y(results: mb.Results, body: str) -> np.ndarray:
    """Rotation of ``body`` about world +y from its zero pose [rad] (x turning towards -z)."""
    R = results.body(body).rotation
    return np.arctan2(R[:, 0, 2], R[:, 0, 0])


def test_the_urdf_double_pendulum_moves_as_the_one_built_by_hand() -> None:
    with pytest.warns(UrdfImportWarning, match="no joint stops yet"):
        model = mb.read_urdf(DATA / "double_pendulum.urdf")
    from_urdf = mb.dynamics(model, 0.5, 0.01, rtol=1e-8)
    by_hand = mb.dynamics(hand_built_double_pendulum(), 0.5, 0.01, rtol=1e-8)
    for body in ("upper", "lower"):
        np.testing.assert_allclose(from_urdf.body(body).position, by_hand.body(body).position, rtol=0, atol=1e-6)
    # It did swing: the lower bar's centre fell by more than 0.5 m.
    assert from_urdf.body("lower").position[-1, 2] < -0.5
    # The fixed "tip" link is part of "lower" and answers to its name.
    assert model.aliases == {"tip": "lower"}
    assert len(model.bodies["lower"].shapes) == 2 and len(model.ground.shapes) == 0


def test_inertia_is_taken_about_the_inertial_origin_in_the_inertial_frame(tmp_path) -> None:
    path = tmp_path / "turned.urdf"
    path.write_text(
        """<robot name="turned"><link name="base"/>
        <link name="bar"><inertial><origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/><mass value="2"/>
        <inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <joint name="pin" type="prismatic"><parent link="base"/><child link="bar"/><origin xyz="1 0 0"/>
        <axis xyz="0 0 1"/></joint></robot>"""
    )
    body = import_urdf(path).model.bodies["bar"]
    np.testing.assert_allclose(body.position, (1.1, 0.2, 0.3), atol=1e-15)
    np.testing.assert_allclose(body.inertia, np.diag([0.2, 0.1, 0.25]), atol=1e-15)


def test_a_mimic_joint_follows_its_leader() -> None:
    imported = import_urdf(DATA / "mimic_gripper.urdf")
    assert imported.mimics == ("wheel_joint",)
    results = mb.dynamics(imported.model, 0.5, 0.01, rtol=1e-8)
    arm, wheel = angle_about_y(results, "arm"), angle_about_y(results, "wheel")
    assert np.ptp(arm) > 2.0  # the arm fell
    np.testing.assert_allclose(wheel, -0.5 * arm, rtol=0, atol=2e-3)


def test_what_is_not_imported_is_reported_with_its_line() -> None:
    report = import_urdf(DATA / "mimic_gripper.urdf").report
    found = {(item.line, item.what, item.severity) for item in report.items}
    assert (15, "<sparkle> in link 'arm'", "ignored") in found
    assert (14, "<collision> in link 'arm'", "ignored") in found
    assert (28, "<limit> in joint 'shoulder'", "not simulated") in found
    assert (29, "friction of <dynamics> in joint 'shoulder'", "not simulated") in found
    assert (38, "<transmission> in robot", "ignored") in found
    assert (39, "<gazebo> in robot", "ignored") in found
    assert any("wheel.stl' not found" in item.reason for item in report.items)
    assert len(report.items) == 7


def test_a_moving_link_without_mass_is_refused_by_name(tmp_path) -> None:
    path = tmp_path / "massless.urdf"
    path.write_text(
        """<robot name="m"><link name="base"/><link name="ghost"/>
        <joint name="hinge" type="revolute"><parent link="base"/><child link="ghost"/>
        <axis xyz="0 0 1"/></joint></robot>"""
    )
    with pytest.raises(UrdfError, match="link 'ghost' moves on joint 'hinge' but has no mass"):
        import_urdf(path)


def test_multibody_run_simulates_a_urdf_file(tmp_path) -> None:
    output = tmp_path / "robot.h5"
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "multibody.cli",
            "run",
            str(DATA / "double_pendulum.urdf"),
            "--t-end",
            "0.05",
            "-o",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stderr
    assert "no joint stops yet" in finished.stdout
    assert mb.Results.load(output).status == "complete"


def test_floating_prismatic_and_planar_joints_leave_a_free_fall(tmp_path) -> None:
    # Reference: free fall z(t) = z0 - g t^2 / 2. A floating joint leaves the body free, a
    # prismatic joint along z and a planar joint whose plane (normal x) holds z do not resist
    # gravity; each body falls so to the integrator's accuracy at rtol 1e-10: a free body built by
    # hand is off by the same 3e-9 m (from the start-up steps of BDF), so 1e-8 m.
    links = "".join(
        f"""<link name="{name}"><inertial><mass value="2"/>
        <inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0" ixz="0" iyz="0"/></inertial></link>
        <joint name="{name}_joint" type="{kind}"><parent link="base"/><child link="{name}"/>
        <origin xyz="{k} 0 1"/><axis xyz="{axis}"/></joint>"""
        for k, (name, kind, axis) in enumerate(
            [("free", "floating", "1 0 0"), ("slider", "prismatic", "0 0 1"), ("sheet", "planar", "1 0 0")]
        )
    )
    path = tmp_path / "falling.urdf"
    path.write_text(f'<robot name="falling"><link name="base"/>{links}</robot>')
    model = mb.read_urdf(path)
    assert sorted(type(joint).__name__ for joint in model.joints.values()) == ["Planar", "Translational"]
    results = mb.dynamics(model, 0.3, 0.05, rtol=1e-10)
    for name in ("free", "slider", "sheet"):
        np.testing.assert_allclose(
            results.body(name).position[:, 2], 1.0 - 0.5 * 9.81 * results.time**2, rtol=0, atol=1e-8
        )
