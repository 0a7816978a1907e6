"""glTF export: the file is a valid GLB container that trimesh reads, and its animation keys are
the results' positions and orientations (read back with an independent little GLB reader)."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
import trimesh

from multibody.viz.gltf import export_gltf

from .conftest import example_run

COMPONENT_DTYPES = {5126: np.float32, 5125: np.uint32}
WIDTHS = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}


def read_glb(path) -> tuple[dict, bytes]:
    """The JSON document and binary chunk of a GLB file (glTF 2.0 spec, section 4.4)."""
    data = path.read_bytes()
    magic, version, length = struct.unpack_from("<III", data, 0)
    assert (magic, version, length) == (0x46546C67, 2, len(data))
    json_length, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A
    document = json.loads(data[20 : 20 + json_length])
    bin_length, bin_type = struct.unpack_from("<II", data, 20 + json_length)
    assert bin_type == 0x004E4942
    return document, data[28 + json_length : 28 + json_length + bin_length]


def accessor_values(document: dict, binary: bytes, index: int) -> np.ndarray:
    accessor = document["accessors"][index]
    view = document["bufferViews"][accessor["bufferView"]]
    dtype = COMPONENT_DTYPES[accessor["componentType"]]
    width = WIDTHS[accessor["type"]]
    values = np.frombuffer(binary, dtype=dtype, count=accessor["count"] * width, offset=view["byteOffset"])
    return values.reshape(accessor["count"], width)


@pytest.mark.parametrize("example", ["slider_crank", "heavy_top"])
def test_animation_keys_are_the_results(tmp_path, example) -> None:
    """At every key the body nodes' translation and rotation equal the results to float32
    rounding (6e-8 relative, so 1e-6 m on positions under 10 m; 1e-6 on unit quaternions)."""
    system, results = example_run(example)
    document, binary = read_glb(export_gltf(system, results, tmp_path / "run.glb"))
    animation = document["animations"][0]
    names = [node["name"] for node in document["nodes"]]
    world = document["nodes"][0]
    assert world["rotation"] == pytest.approx([-np.sqrt(0.5), 0, 0, np.sqrt(0.5)])  # z-up world in glTF's y-up
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        body = names[channel["target"]["node"]]
        keys = accessor_values(document, binary, sampler["input"])[:, 0]
        values = accessor_values(document, binary, sampler["output"])
        np.testing.assert_allclose(keys, results.time - results.time[0], atol=1e-6)
        if channel["target"]["path"] == "translation":
            np.testing.assert_allclose(values, results.body(body).position, atol=1e-6)
        else:
            e = results.body(body).euler_parameters
            np.testing.assert_allclose(values, np.column_stack([e[:, 1:], e[:, 0]]), atol=1e-6)
    assert len(animation["channels"]) == 2 * len(results.layout.body_names)


def test_trimesh_reads_the_scene(tmp_path) -> None:
    """An independent glTF reader (trimesh) loads every shape node with its mesh."""
    _, results = example_run("slider_crank")
    scene = trimesh.load(export_gltf(None, results, tmp_path / "run.glb"))
    document, _ = read_glb(tmp_path / "run.glb")
    assert len(scene.geometry) == len(document["meshes"]) > 0
    for body in results.layout.body_names:
        assert body in scene.graph.nodes
