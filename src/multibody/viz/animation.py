"""One self-contained HTML file that plays a run in 3D (three.js, inlined; works offline).

The page holds the display description (``multibody.viz.scene``) as JSON and the motion as
base64 typed arrays: per output frame and body the CM position (3 float32) and the orientation
quaternion (4 float32), 28 bytes (37.3 characters of base64) per body and frame. Forces and the
chosen channels add 4 bytes per value. A flexible body adds its kept nodes, mode shapes (and stress modes)
once and its modal coordinates per frame (4 bytes each): the page deforms and colours its mesh. A
beam (finite-segment or nodal) is drawn as a tube through its nodes (12 bytes per node and frame), coloured by
the bending moment (4 more), instead of its bodies' shapes. The page exposes its state as ``window.multibodyViewer``
(time, frameIndex, setTime, play, bodyPositions, ...; see ``animation.js``). Inside a report's
frame it posts ``{multibody: "time", time}`` to the report at every frame shown and obeys
``{multibody: "setTime", time}``, so that the report's plots and the animation share one time.
"""

from __future__ import annotations

import base64
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.results import Results
from multibody.viz.channels import channel_unit
from multibody.viz.scene import scene_description

if TYPE_CHECKING:
    from multibody.model.model import Model
    from multibody.system.system import System

BYTES_PER_BODY_FRAME = 28
"""Position (3 float32) and quaternion (4 float32) of one body at one output frame."""

STRESS_CHUNK = 256
"""Output frames whose node stresses are evaluated at once when looking for the largest."""

DEFAULT_CHANNELS = ("energy.kinetic", "energy.potential", "energy.total")
"""Channels shown as text when none are chosen."""


def animate(
    model: Model | System | None,
    results: Results | str | os.PathLike[str],
    path: str | os.PathLike[str],
    channels: tuple[str, ...] | list[str] | None = None,
    title: str | None = None,
) -> Path:
    """Write the animation of ``results`` to the HTML file ``path`` and return its path.

    ``model`` (the Model or System the results come from) supplies the display geometry; None
    takes it from the results (a results file stores it). ``results`` may be a results file.
    ``channels`` (e.g. "crank.angular_velocity.z") are shown as text at the current time.
    """
    path = Path(path)
    path.write_text(animation_html(model, results, channels, title), encoding="utf-8")
    return path


def animation_html(
    model: Model | System | None,
    results: Results | str | os.PathLike[str],
    channels: tuple[str, ...] | list[str] | None = None,
    title: str | None = None,
) -> str:
    """The text of the animation page (see ``animate``)."""
    results = results if isinstance(results, Results) else Results.load(results)
    if len(results) == 0:
        raise ValueError(f"{results!r} holds no output frames; there is nothing to animate")
    scene = scene_description(results, model)
    title = title or f"{results.layout.model_name} ({results.layout.analysis})"
    data = animation_data(results, scene, list(DEFAULT_CHANNELS if channels is None else channels), title)
    vendor = resources.files("multibody.viz") / "vendor"
    three = (
        (vendor / "three.module.min.js").read_text(encoding="utf-8").replace('"./three.core.min.js"', '"three/core"')
    )
    sources = {
        "THREE_CORE": (vendor / "three.core.min.js").read_text(encoding="utf-8"),
        "THREE": three,
        "ORBIT_CONTROLS": (vendor / "OrbitControls.js").read_text(encoding="utf-8"),
        "VIEWER": (resources.files("multibody.viz") / "animation.js").read_text(encoding="utf-8"),
        "DATA": json.dumps(data, separators=(",", ":")).replace("</", "<\\/"),
        "TITLE": _escape(title),
    }
    for name, text in sources.items():
        if "</script" in text.lower():
            raise ValueError(f"{name} contains '</script' and cannot be inlined in the page")
    template = (resources.files("multibody.viz") / "animation.html").read_text(encoding="utf-8")
    # one pass over the template, so that inserted text is never searched for placeholders
    page = re.sub(r"@@MULTIBODY_([A-Z_]+)@@", lambda match: sources[match.group(1)], template)
    return page


def animation_data(results: Results, scene: dict[str, Any], channels: list[str], title: str) -> dict[str, Any]:
    """The page's JSON: the scene, and the motion, forces and channels as base64 typed arrays."""
    arrays = results.arrays
    e_WB = arrays["body/euler_parameters"]  # (T, nb, 4) scalar first
    quaternion_xyzw = np.concatenate([e_WB[..., 1:], e_WB[..., :1]], axis=-1)
    force_types = {force["name"]: force["type"] for force in scene["forces"]}
    flexible = [
        _flexible_drawing(results, scene, index) for index, body in enumerate(scene["bodies"]) if body.get("flexible")
    ]
    # an ANCF cable beam is drawn as its cable
    beams = [_beam_drawing(results, scene, beam) for beam in scene.get("beams", ()) if "cable" not in beam]
    beams += [_cable_drawing(results, cable) for cable in scene.get("cables", ())]
    segments = {name for beam in scene.get("beams", ()) for name in beam["bodies"]}  # drawn as the beams' tubes
    scene = {
        **scene,
        "bodies": [
            {**body, "flexible": bool(body.get("flexible")), **({"shapes": []} if body["name"] in segments else {})}
            for body in scene["bodies"]
        ],
    }
    values = np.column_stack([results.channel(spec) for spec in channels]) if channels else np.zeros((len(results), 0))
    return {
        "title": title,
        "scene": scene,
        "frame_count": len(results),
        "time": _base64(results.time, np.float64),
        "position": _base64(arrays["body/position"], np.float32),
        "quaternion": _base64(quaternion_xyzw, np.float32),
        "force": _base64(arrays["force/force"], np.float32),
        "torque": _base64(arrays["force/torque"], np.float32),
        "contact_point": _base64(_contact_points(results), np.float32),
        "channels": [{"name": spec, "unit": channel_unit(spec, force_types)} for spec in channels],
        "channel_values": _base64(values, np.float32),
        "ropes": [_rope_drawing(results, scene, force) for force in scene["forces"] if force["type"] == "Rope"],
        "flexible": flexible,
        "beams": beams,
    }


def _beam_drawing(results: Results, scene: dict[str, Any], beam: dict[str, Any]) -> dict[str, Any]:
    """One beam (finite segments or nodal) for the page, drawn as a tube of the beam's radius through its
    nodes: the points per frame (T, n + 1, 3) and the bending moment magnitude sqrt(M_y^2 + M_z^2) [N m]
    at each (T, n + 1; ``BeamHistory.bending_moment``), float32 base64."""
    from multibody.results.beam import beam_history

    history = beam_history(results, beam, scene["markers"])
    return {
        "name": beam["name"],
        "node_count": history.node_positions.shape[1],
        "points": _base64(history.node_positions, np.float32),
        "bending_moment": _base64(history.bending_moment, np.float32),
        "largest": float(np.max(history.bending_moment, initial=0.0)),
        "radius": beam.get("radius", 0.01 * scene["size"]),
    }


CABLE_POINTS_PER_ELEMENT = 4
"""Points per element of an ANCF cable's drawn tube (its cubic shape between the nodes)."""


def _cable_drawing(results: Results, cable: dict[str, Any]) -> dict[str, Any]:
    """One ANCF cable for the page, drawn as a tube through points along it (``CABLE_POINTS_PER_ELEMENT``
    per element, on its cubic shape), coloured by the bending moment there [N m], as the beams are."""
    history = results.cable(cable["name"])
    arc = history.arc_lengths
    stations = np.unique(
        np.concatenate([np.linspace(a, b, CABLE_POINTS_PER_ELEMENT + 1) for a, b in zip(arc[:-1], arc[1:])])
    )
    points = np.stack([history.position_at(s) for s in stations], axis=1)
    moments = np.stack([history.bending_moment(s) for s in stations], axis=1)
    return {
        "name": cable["name"],
        "node_count": stations.size,
        "points": _base64(points, np.float32),
        "bending_moment": _base64(moments, np.float32),
        "largest": float(np.max(moments, initial=0.0)),
        "radius": cable["radius"],
    }


def _flexible_drawing(results: Results, scene: dict[str, Any], body_index: int) -> dict[str, Any]:
    """One flexible body for the page: its kept nodes (undeformed, body axes), their translation (n, 3, m)
    and, for solids, stress (n, 6, m) mode shapes, the surface triangles or beam lines (indices into the
    kept nodes), the translation and rotation modes (3, m) of its markers (by index in the scene), and the
    modal coordinates per frame (T, m), float32 base64; with the largest displacement [m] and von Mises
    stress [Pa] over the run, the ends of the colour legend."""
    from multibody.results.flexible import ModalShapes

    body = scene["bodies"][body_index]
    marker_index = {marker["name"]: k for k, marker in enumerate(scene["markers"])}
    shapes = ModalShapes.from_scene(body["flexible"])
    q = results.modal_coordinates(body["name"])
    largest_displacement = largest_stress = 0.0
    for chunk in range(0, len(q), STRESS_CHUNK):  # bounded memory for long runs of large meshes
        u = np.einsum("kaj,tj->tka", shapes.modes, q[chunk : chunk + STRESS_CHUNK])
        largest_displacement = max(largest_displacement, float(np.max(np.linalg.norm(u, axis=-1), initial=0.0)))
        if shapes.stress_modes is not None:
            from multibody.fem.solids import von_mises

            stress = np.einsum("kaj,tj->tka", shapes.stress_modes, q[chunk : chunk + STRESS_CHUNK])
            largest_stress = max(largest_stress, float(np.max(von_mises(stress), initial=0.0)))
    return {
        "body": body_index,
        "name": body["name"],
        "kind": shapes.kind,
        "node_count": len(shapes.nodes),
        "mode_count": q.shape[1],
        "positions": _base64(shapes.positions, np.float32),
        "modes": _base64(shapes.modes, np.float32),
        "stress_modes": None if shapes.stress_modes is None else _base64(shapes.stress_modes, np.float32),
        "triangles": _base64(shapes.triangles, np.uint32),
        "lines": _base64(shapes.lines, np.uint32),
        "radius": shapes.radius,
        "modal_coordinates": _base64(q, np.float32),
        "markers": [
            {
                "index": marker_index[name],
                "translation_modes": _base64(translation, np.float32),
                "rotation_modes": _base64(rotation, np.float32),
            }
            for name, (translation, rotation) in shapes.marker_modes.items()
        ],
        "largest_displacement": largest_displacement,
        "largest_stress": largest_stress,
    }


def _rope_drawing(results: Results, scene: dict[str, Any], rope: dict[str, Any]) -> dict[str, Any]:
    """One rope for the page, float32 base64: its polyline per frame (T, k, 3), the tension at each
    of its points (T, k) [N] (``RopeHistory.polyline_tension``) and its pulleys' and winches' rims
    with a spoke turning with them, as line segments per frame (T, q, 3) (``RopeHistory.rims``)."""
    from multibody.results.rope import rope_history

    history = rope_history(results, rope["name"], rope, scene["markers"])
    polyline = history.polyline()
    rims = history.rims().reshape(len(results), -1, 3)
    return {
        "name": rope["name"],
        "point_count": polyline.shape[1],
        "diameter": rope["diameter"],
        "points": _base64(polyline, np.float32),
        "tension": _base64(history.polyline_tension(), np.float32),
        "largest": float(np.max(history.span_tension, initial=0.0)),
        "rim_count": rims.shape[1],
        "rims": _base64(rims, np.float32),
    }


def _contact_points(results: Results) -> np.ndarray:
    """(T, nf, 3) where each force element's arrow is drawn: the contact point of contacts (the
    centre of their normal forces), NaN for the others (drawn at their I marker)."""
    layout = results.layout
    points = np.full((len(results), len(layout.force_names), 3), np.nan)
    if layout.contact_names:
        touching = results.arrays["contact/normal_force"] > 0.0
        located = np.where(touching[..., None], results.arrays["contact/point"], np.nan)
        for k, name in enumerate(layout.contact_names):
            if name in layout.force_names and results.arrays["contact/penetration"][:, k].any():
                points[:, layout.force_names.index(name)] = located[:, k]
    return points


def _base64(values: np.ndarray, dtype: type) -> str:
    """Little-endian bytes of ``values`` as ``dtype``, base64 (what the page decodes into a typed array)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()).decode(
        "ascii"
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
