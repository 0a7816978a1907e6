"""The display description of a compiled model: what the animation and the glTF export draw.

It travels as JSON text from the System into the results file (``ResultsLayout.scene``), so a
results file alone can be animated. Everything is in body axes (ground: world axes); bodies are
referred to by index (``-1`` is the ground), markers by index into ``System.marker_names``::

    {"format": 1, "summary": "...", "gravity": [gx, gy, gz],
     "bodies": [{"name", "mass", "inertia": 3x3, "shapes": [shape, ...], "flexible": None or {...}}, ...],
     "ground": {"shapes": [...]},
     "markers": [{"name": "body/marker", "body": k, "position": [3], "rotation": 3x3 R_BM}, ...],
     "joints": [{"name", "type": "Revolute", "i": marker, "j": marker}, ...],
     "forces": [{"name", "type": "SpringDamper", "i": marker, "j": marker or -1}, ...],
     "beams": [...], "cables": [{"name", "lengths", "axial_stiffness", "bending_stiffness", "radius"}, ...]}

A marker on an ANCF cable has body -1, its undeformed world frame, and ``"cable": {"name",
"arc_length"}``: it moves with the cable's nodes.

A shape is ``{"type": "box" | "sphere" | "ellipsoid" | "cylinder" | "frustum" | "capsule" |
"mesh", its dimensions [m], "color": "#rrggbb", "opacity", "position": p_BS, "rotation": R_BS}``
(see ``multibody.model.geometry``). A flexible body's ``"flexible"`` entry carries its kept nodes, mode
shapes, stress modes and surface (``multibody.system.flexible_scene``); its position is the frame origin's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multibody.model.model import Model
    from multibody.system.system import System

SCENE_FORMAT = 1


def scene_json(model: Model, system: System) -> str:
    """The display description of ``model`` compiled into ``system``, as compact JSON text."""
    from multibody.model.flexible import FlexibleBody
    from multibody.model.rope_span import MovingNodeSpan
    from multibody.system.flexible_scene import flexible_entry

    constraints = model.constraints()
    forces = list(model.forces.values())
    on_cable = {  # markers on cables move with its nodes: their cable and arc length [m]
        marker.full_name: {"name": cable.name, "arc_length": marker.arc_length}
        for cable in model.cables.values()
        for marker in cable.markers.values()
    }
    scene: dict[str, Any] = {
        "format": SCENE_FORMAT,
        "summary": system.summary(),
        "gravity": system.gravity.tolist(),
        "bodies": [
            {
                "name": body.name,
                "mass": body.mass,
                "inertia": body.inertia.tolist(),
                "shapes": [placed.description() for placed in body.shapes],
                "flexible": flexible_entry(body) if isinstance(body, FlexibleBody) else None,
            }
            for body in model.bodies.values()
        ],
        "ground": {"shapes": [placed.description() for placed in model.ground.shapes]},
        "markers": [
            {"name": name, "body": int(body), "position": position.tolist(), "rotation": rotation.tolist()}
            | ({"cable": on_cable[name]} if name in on_cable else {})
            for name, body, position, rotation in zip(
                system.marker_names, system.marker_body, system.marker_position, system.marker_orientation
            )
        ],
        "joints": [
            {"name": c.name, "type": type(c).__name__, "i": int(i), "j": int(j)}
            for c, (i, j) in zip(constraints, system.constraint_markers)
        ],
        "forces": [
            {"name": f.name, "type": type(f).__name__, "i": int(i), "j": int(j), **getattr(f, "drawing", {})}
            for f, (i, j) in zip(forces, system.force_markers)
        ]
        + [{"name": rope.name, "type": "Rope", "i": -1, "j": -1, **rope.drawing} for rope in model.ropes.values()],
        "beams": [beam.drawing for beam in model.beams.values()],
        # a moving-node rope's spans are drawn with their rope
        "cables": [cable.drawing for cable in model.cables.values() if not isinstance(cable, MovingNodeSpan)],
    }
    return json.dumps(scene, separators=(",", ":"))
