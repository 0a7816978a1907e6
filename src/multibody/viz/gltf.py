"""Binary glTF 2.0 (.glb) export of a run: the bodies' shapes and their motion as an animation.

Node tree: a root node "world" turns multibody's z-up world into glTF's y-up convention
(-90 deg about x); under it one node per body, whose translation (CM position [m]) and rotation
(unit quaternion x y z w) are keyed at every output instant (LINEAR samplers), and under each body
one node per shape at its pose in body axes. The ground's shapes hang from a static "ground" node.

A flexible body's node (at its frame origin) carries its undeformed mesh (a solid's outer surface, or a
tube of ``TUBE_SIDES`` sides along a beam's elements) with one morph target per kept mode: the target
moves each vertex by its node's translation mode shape, and the animation keys the morph weights to the
modal coordinates at every output instant, so a glTF viewer superposes the modes as the run does.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.model.geometry import shape_from_description
from multibody.results import Results
from multibody.spatial.rotations import euler_parameters_from_rotation
from multibody.viz.scene import scene_description

if TYPE_CHECKING:
    from multibody.model.model import Model
    from multibody.system.system import System

Z_UP_TO_Y_UP = [-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)]
"""Rotation of the root node, quaternion x y z w: -90 deg about x takes world z to glTF y."""

TUBE_SIDES = 12
"""Sides of the tube that draws a flexible beam (its radius: ``multibody.system.flexible_scene``)."""
FLEXIBLE_COLOR = "#8fa9c8"
"""Colour of flexible meshes (a glTF file holds no per-frame colouring)."""

_FLOAT, _UNSIGNED_INT = 5126, 5125
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963
_GLB_MAGIC, _JSON_CHUNK, _BIN_CHUNK = 0x46546C67, 0x4E4F534A, 0x004E4942


class _Buffer:
    """The binary chunk being built, and the bufferViews and accessors that point into it."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.views: list[dict[str, Any]] = []
        self.accessors: list[dict[str, Any]] = []

    def accessor(self, values: np.ndarray, accessor_type: str, target: int | None = None, bounds: bool = False) -> int:
        """Append ``values`` (float32, or uint32 indices) as a new accessor; return its index."""
        component = _UNSIGNED_INT if values.dtype == np.uint32 else _FLOAT
        raw = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<")).tobytes()
        view: dict[str, Any] = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)}
        if target is not None:
            view["target"] = target
        self.data += raw + b"\0" * (-len(raw) % 4)
        self.views.append(view)
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor_type]
        accessor: dict[str, Any] = {
            "bufferView": len(self.views) - 1,
            "componentType": component,
            "count": values.size // width,
            "type": accessor_type,
        }
        if bounds:
            flat = values.reshape(-1, width)
            accessor["min"], accessor["max"] = flat.min(axis=0).tolist(), flat.max(axis=0).tolist()
        self.accessors.append(accessor)
        return len(self.accessors) - 1


def export_gltf(
    model: Model | System | None, results: Results | str | os.PathLike[str], path: str | os.PathLike[str]
) -> Path:
    """Write ``results`` as an animated binary glTF file ``path`` (.glb) and return its path.

    ``model`` (the Model or System of the results) supplies the shapes; None reads them from the
    results (see ``multibody.viz.scene``).
    """
    results = results if isinstance(results, Results) else Results.load(results)
    if len(results) == 0:
        raise ValueError(f"{results!r} holds no output frames; there is nothing to export")
    scene = scene_description(results, model)
    buffer = _Buffer()
    meshes: list[dict[str, Any]] = []
    materials: list[dict[str, Any]] = []
    nodes: list[dict[str, Any]] = [{"name": "world", "rotation": Z_UP_TO_Y_UP, "children": []}]

    def add_node(node: dict[str, Any], parent: int) -> int:
        nodes.append(node)
        nodes[parent].setdefault("children", []).append(len(nodes) - 1)
        return len(nodes) - 1

    def add_shapes(shapes: list[dict[str, Any]], parent: int) -> None:
        for k, description in enumerate(shapes):
            mesh = _mesh(buffer, description, len(materials))
            materials.append(_material(description))
            meshes.append(mesh)
            e = euler_parameters_from_rotation(np.asarray(description["rotation"]))
            pose = {"translation": description["position"], "rotation": [*e[1:], e[0]]}
            add_node(
                {"name": f"{nodes[parent]['name']}/{description['type']}{k}", "mesh": len(meshes) - 1, **pose}, parent
            )

    if scene["ground"]["shapes"]:
        add_shapes(scene["ground"]["shapes"], add_node({"name": "ground"}, 0))
    body_nodes = []
    morphed: list[tuple[int, str]] = []
    for body in scene["bodies"]:
        body_nodes.append(add_node({"name": body["name"]}, 0))
        add_shapes(body["shapes"], body_nodes[-1])
        if body.get("flexible") and body["flexible"]["kind"] in ("solid", "beam"):
            meshes.append(_flexible_mesh(buffer, body["flexible"], len(materials)))
            materials.append(_material({"color": FLEXIBLE_COLOR, "opacity": 1.0}))
            node = add_node({"name": f"{body['name']}/deformed mesh", "mesh": len(meshes) - 1}, body_nodes[-1])
            morphed.append((node, body["name"]))

    time = buffer.accessor(np.asarray(results.time - results.time[0], dtype=np.float32), "SCALAR", bounds=True)
    positions = np.asarray(results.arrays["body/position"], dtype=np.float32)
    e_WB = results.arrays["body/euler_parameters"]
    quaternions = np.asarray(np.concatenate([e_WB[..., 1:], e_WB[..., :1]], axis=-1), dtype=np.float32)
    samplers, channels = [], []
    for b, node in enumerate(body_nodes):
        nodes[node]["translation"] = positions[0, b].tolist()
        nodes[node]["rotation"] = quaternions[0, b].tolist()
        for path_name, values, accessor_type in (("translation", positions, "VEC3"), ("rotation", quaternions, "VEC4")):
            output = buffer.accessor(np.ascontiguousarray(values[:, b]), accessor_type)
            samplers.append({"input": time, "output": output, "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path_name}})
    for node, name in morphed:
        weights = np.asarray(results.modal_coordinates(name), dtype=np.float32)
        samplers.append(
            {"input": time, "output": buffer.accessor(weights.ravel(), "SCALAR"), "interpolation": "LINEAR"}
        )
        channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": "weights"}})

    document: dict[str, Any] = {
        "asset": {"version": "2.0", "generator": "multibody"},
        "scene": 0,
        "scenes": [{"name": results.layout.model_name, "nodes": [0]}],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "animations": [
            {
                "name": f"{results.layout.model_name} {results.layout.analysis}",
                "samplers": samplers,
                "channels": channels,
            }
        ],
        "accessors": buffer.accessors,
        "bufferViews": buffer.views,
        "buffers": [{"byteLength": len(buffer.data)}],
    }
    path = Path(path)
    path.write_bytes(_glb(document, bytes(buffer.data)))
    return path


def _mesh(buffer: _Buffer, description: dict[str, Any], material: int) -> dict[str, Any]:
    """A glTF mesh of one shape description (triangulated in shape axes)."""
    triangles = shape_from_description(description).triangle_mesh()
    vertices = np.asarray(triangles.vertices, dtype=np.float32)
    attributes = {
        "POSITION": buffer.accessor(vertices, "VEC3", _ARRAY_BUFFER, bounds=True),
        "NORMAL": buffer.accessor(np.asarray(triangles.vertex_normals, dtype=np.float32), "VEC3", _ARRAY_BUFFER),
    }
    indices = buffer.accessor(np.asarray(triangles.faces, dtype=np.uint32).ravel(), "SCALAR", _ELEMENT_ARRAY_BUFFER)
    return {
        "name": description["type"],
        "primitives": [{"attributes": attributes, "indices": indices, "material": material}],
    }


def _flexible_mesh(buffer: _Buffer, flexible: dict[str, Any], material: int) -> dict[str, Any]:
    """A glTF mesh of a flexible body's undeformed surface or beam tube (body axes), with one morph target
    (vertex displacement per unit modal coordinate) per kept mode."""
    from multibody.results.flexible import ModalShapes

    shapes = ModalShapes.from_scene(flexible)
    if shapes.kind == "beam":
        vertices, faces, vertex_node = tube_mesh(shapes.positions, shapes.lines, shapes.radius, TUBE_SIDES)
    else:
        vertices, faces, vertex_node = shapes.positions, shapes.triangles, np.arange(len(shapes.nodes))
    attributes = {
        "POSITION": buffer.accessor(np.asarray(vertices, np.float32), "VEC3", _ARRAY_BUFFER, bounds=True),
        "NORMAL": buffer.accessor(_vertex_normals(vertices, faces), "VEC3", _ARRAY_BUFFER),
    }
    targets = [
        {
            "POSITION": buffer.accessor(
                np.asarray(shapes.modes[vertex_node, :, j], np.float32), "VEC3", _ARRAY_BUFFER, bounds=True
            )
        }
        for j in range(shapes.modes.shape[2])
    ]
    indices = buffer.accessor(np.asarray(faces, dtype=np.uint32).ravel(), "SCALAR", _ELEMENT_ARRAY_BUFFER)
    return {
        "name": "deformed mesh",
        "primitives": [{"attributes": attributes, "indices": indices, "material": material, "targets": targets}],
        "weights": [0.0] * len(targets),
    }


def tube_mesh(
    points: np.ndarray, lines: np.ndarray, radius: float, sides: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A tube of ``radius`` [m] along the polyline elements ``lines`` (e, 2) between ``points`` (n, 3): a ring
    of ``sides`` vertices about each point, across the sum of its elements' directions, joined by quads.
    Returns vertices (n sides, 3), triangles (2 e sides, 3) and the point each vertex belongs to."""
    tangent = np.zeros_like(points)
    along = points[lines[:, 1]] - points[lines[:, 0]]
    np.add.at(tangent, lines[:, 0], along)
    np.add.at(tangent, lines[:, 1], along)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    reference = np.eye(3)[np.argmin(np.abs(tangent), axis=1)]  # the axis most across each tangent
    across = np.cross(tangent, reference)
    across /= np.linalg.norm(across, axis=1, keepdims=True)
    third = np.cross(tangent, across)
    angle = 2.0 * np.pi * np.arange(sides) / sides
    vertices = points[:, None] + radius * (
        np.cos(angle)[None, :, None] * across[:, None] + np.sin(angle)[None, :, None] * third[:, None]
    )
    side, following = np.arange(sides), (np.arange(sides) + 1) % sides
    a, b = lines[:, :1] * sides, lines[:, 1:] * sides
    faces = np.stack(
        [np.stack([a + side, b + side, b + following], -1), np.stack([a + side, b + following, a + following], -1)], 2
    ).reshape(-1, 3)
    return vertices.reshape(-1, 3), faces, np.repeat(np.arange(len(points)), sides)


def _vertex_normals(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Unit vertex normals (float32): the area-weighted sum of the normals of the triangles at each vertex."""
    corners = vertices[faces]
    face_normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(normals, faces[:, k], face_normals)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    return np.asarray(normals / np.where(length > 0.0, length, 1.0), np.float32)


def _material(description: dict[str, Any]) -> dict[str, Any]:
    """A PBR material of the shape's colour (sRGB hex -> linear factors) and opacity."""
    srgb = np.array([int(description["color"][k : k + 2], 16) / 255.0 for k in (1, 3, 5)])
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    material: dict[str, Any] = {
        "pbrMetallicRoughness": {
            "baseColorFactor": [*linear.tolist(), description["opacity"]],
            "metallicFactor": 0.1,
            "roughnessFactor": 0.6,
        },
    }
    if description["opacity"] < 1.0:
        material["alphaMode"] = "BLEND"
    return material


def _glb(document: dict[str, Any], binary: bytes) -> bytes:
    """The GLB container: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded)."""
    text = json.dumps(document, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    length = 12 + 8 + len(text) + 8 + len(binary)
    return (
        struct.pack("<III", _GLB_MAGIC, 2, length)
        + struct.pack("<II", len(text), _JSON_CHUNK)
        + text
        + struct.pack("<II", len(binary), _BIN_CHUNK)
        + binary
    )
