"""What the viewers draw: the model's display description completed with an automatic picture.

The description comes from the System a model compiles to, or from the results file (which
stores it, see ``multibody.system.scene``); files written without one still animate: each body
is then drawn as a ball at its centre of mass. A body without shapes gets links (capsules) from
its centre of mass to each of its markers, a small ball at the centre of mass, and an inertia
hint: ``body["inertia_hint"] = {"semi_axes": [3], "rotation": R_BS}``, the principal semi-axes
and axes of the uniform ellipsoid of the same mass and central inertia, which the viewer draws
as three thin rings (an outline, not a solid that would hide the mechanism). A flexible body is drawn
by its deformed mesh (``body["flexible"]``), so it gets no automatic picture.
"""

from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.model.geometry import Capsule, PlacedShape, Sphere, equivalent_ellipsoid
from multibody.results import Results

if TYPE_CHECKING:
    from multibody.model.model import Model
    from multibody.system.system import System

PALETTE = ("#3d7dd8", "#f28c28", "#3fa34d", "#d64541", "#8e5cc4", "#c9a13b", "#2bb3b1", "#e06bb0")
"""Colours of automatically drawn bodies, in body order."""

LINK_RADIUS = 0.012
"""Radius of automatic links, as a fraction of the scene's characteristic length."""
BALL_RADIUS = 0.04
"""Radius of the ball drawn for a body known only by its motion, same fraction."""
CM_BALL_RADIUS = 0.025
"""Radius of the ball at the centre of mass of a body drawn from its markers, same fraction."""
MIN_LINK_LENGTH = 1e-9
"""Markers closer than this to the CM [m] get no link."""


def scene_description(results: Results, model: Model | System | None = None) -> dict[str, Any]:
    """The display description of ``results``: from ``model`` (a Model or its System) when given,
    else from the results file; completed with automatic pictures and the scene's ``size``
    (a characteristic length [m] that sizes markers, joints, springs and arrows)."""
    text = _scene_text(model) if model is not None else results.layout.scene
    scene = json.loads(text) if text else _motion_only_scene(results)
    names = [body["name"] for body in scene["bodies"]]
    if names != list(results.layout.body_names):
        raise ValueError(
            f"the model's bodies ({', '.join(names)}) are not those of the results "
            f"({', '.join(results.layout.body_names)}); give the model the results were computed from"
        )
    scene["size"] = characteristic_length(scene, results)
    for index, body in enumerate(scene["bodies"]):
        body["automatic"] = not body["shapes"] and not body.get("flexible")
        if body["automatic"]:
            body["shapes"] = automatic_shapes(scene, index, PALETTE[index % len(PALETTE)])
            if body["inertia"] is not None:
                semi_axes, R_BS = equivalent_ellipsoid(body["mass"], np.asarray(body["inertia"]))
                body["inertia_hint"] = {"semi_axes": semi_axes.tolist(), "rotation": R_BS.tolist()}
    return scene


def _scene_text(model: Model | System) -> str:
    from multibody.system.compile import RedundantConstraintWarning
    from multibody.system.system import System

    if isinstance(model, System):
        return model.scene
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return model.compile().scene


def _motion_only_scene(results: Results) -> dict[str, Any]:
    """A description with the bodies' names only (a results file written without a scene)."""
    return {
        "format": 1,
        "summary": f"model '{results.layout.model_name}' (no model description stored in the results)",
        "bodies": [{"name": name, "mass": None, "inertia": None, "shapes": []} for name in results.layout.body_names],
        "ground": {"shapes": []},
        "markers": [],
        "joints": [],
        "forces": [],
    }


def characteristic_length(scene: dict[str, Any], results: Results) -> float:
    """Size of the scene [m]: the larger of the extent swept by the centres of mass and the
    largest marker or flexible-mesh node distance from its body's origin (1 m for a single point at rest)."""
    extent = 0.0
    positions = results.arrays["body/position"]
    if positions.size:
        extent = float(np.max(np.ptp(positions.reshape(-1, 3), axis=0)))
    offsets = [np.linalg.norm(marker["position"]) for marker in scene["markers"] if marker["body"] >= 0]
    offsets += [_mesh_extent(body["flexible"]) for body in scene["bodies"] if body.get("flexible")]
    length = max([extent, *offsets])
    return length if length > 0.0 else 1.0


def _mesh_extent(flexible: dict[str, Any]) -> float:
    """The largest distance of a flexible body's kept nodes from its frame origin [m]."""
    from multibody.results.flexible import decode_array

    positions = decode_array(flexible["positions"], (len(flexible["nodes"]), 3))
    return float(np.max(np.linalg.norm(positions, axis=1), initial=0.0))


def automatic_shapes(scene: dict[str, Any], body_index: int, color: str) -> list[dict[str, Any]]:
    """Links from the CM to each marker of the body and a ball at the CM (larger when the body's
    inertia is unknown and it has no link), as shape descriptions in body axes."""
    size = scene["size"]
    body = scene["bodies"][body_index]
    shapes: list[dict[str, Any]] = []
    ends: list[np.ndarray] = []
    for marker in scene["markers"]:
        p_BM = np.asarray(marker["position"])
        if marker["body"] != body_index or np.linalg.norm(p_BM) < MIN_LINK_LENGTH:
            continue
        if any(np.linalg.norm(p_BM - end) < MIN_LINK_LENGTH for end in ends):
            continue
        ends.append(p_BM)
        link = _link(np.zeros(3), p_BM, LINK_RADIUS * size, color)
        shapes.append(link)
    radius = (CM_BALL_RADIUS if body["inertia"] is not None or ends else BALL_RADIUS) * size
    shapes.append(PlacedShape(Sphere(radius, color=color), np.zeros(3), np.eye(3)).description())
    return shapes


def _link(p_start: np.ndarray, p_end: np.ndarray, radius: float, color: str) -> dict[str, Any]:
    from multibody.spatial.rotations import rotation_from_axes

    axis = p_end - p_start
    capsule = Capsule(radius, float(np.linalg.norm(axis)), color=color)
    return PlacedShape(capsule, 0.5 * (p_start + p_end), rotation_from_axes(axis)).description()
