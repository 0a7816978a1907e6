"""The registry of body kinds besides the rigid one (``multibody.formulation.bodies.registry``): every
kind is one ``BodyKind`` naming its System field, and the kinds a model has cover exactly the
coordinates after the rigid frames', in the layout's order.

Reference: the coordinate layout (``System.layout``), which ``multibody.system.compile`` builds from
the model's bodies without the kinds; the checks are counts and names, exact (no tolerance).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import multibody as mb
from multibody.analysis.statics import _kind_coordinate_names
from multibody.cli import compile_quietly, load_model_file
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies.registry import KINDS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
OWNER_WORD = {"modal": "body", "ancf_cable": "cable"}
"""how a kind's coordinate names start, per layout block kind"""


def test_every_registered_kind_has_a_name_of_its_own_and_a_system_field() -> None:
    names = [kind.name for kind in KINDS]
    assert len(set(names)) == len(names)
    fields = {field.name for field in dataclasses.fields(mb.System)}
    assert all(kind.system_field in fields for kind in KINDS)


@pytest.mark.parametrize(
    ("example", "present"), [("flexible_crane", ("modal",)), ("rope_crane", ("cable", "rope_span"))]
)
def test_the_present_kinds_cover_the_coordinates_after_the_frames(example: str, present: tuple[str, ...]) -> None:
    system = compile_quietly(load_model_file(EXAMPLES / f"{example}.py").build())
    assert tuple(kind.name for kind, _ in system.body_kinds) == present
    assert not system.rigid_only
    # one size per velocity coordinate, and one group per body then per node (System.adjacency's)
    assert kinematics.coordinate_scale(system, 1.0).size == system.n_velocities
    columns = kinematics.body_velocity_columns(system)
    assert len(columns) == len(system.adjacency)
    assert sorted(int(c) for group in columns for c in group) == list(range(system.n_velocities))
    # every coordinate after the frames' named by its owner, in the layout's order
    names = _kind_coordinate_names(system, balance=False)
    blocks = [block for block in system.layout.blocks if block.kind in OWNER_WORD]
    expected = [f"{OWNER_WORD[block.kind]} '{block.owner}'" for block in blocks for _ in range(block.nv)]
    assert len(names) == system.n_velocities - system.n_frame_velocities == len(expected)
    assert all(name.startswith(owner) for name, owner in zip(names, expected))


def test_a_model_of_rigid_bodies_has_no_other_kind() -> None:
    system = compile_quietly(load_model_file(EXAMPLES / "double_pendulum.py").build())
    assert system.body_kinds == ()
    assert system.rigid_only
