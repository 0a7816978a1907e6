"""GRAPHICS statements -> display shapes (``multibody.model.geometry``) on the marker's body.

ADAMS places a CYLINDER and a FRUSTUM with their base circle on the CM marker's xy-plane and their
axis along its z (a negative LENGTH points along -z); a BOX with one CORNER at the marker and its
edges X, Y, Z along the marker's axes; an ELLIPSOID centred on the marker with XSCALE, YSCALE,
ZSCALE its diameters along the marker's axes. Our shapes are centred (frustum: based) on their
frame, so each is placed at the marker with the offset that puts it where ADAMS draws it. OUTLINE,
CIRCLE, ARC and POINT are kept as records only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from multibody.model.geometry import (
    Box,
    Cylinder,
    Ellipsoid,
    Frustum,
    PlacedShape,
    Shape,
)
from multibody.model.marker import Marker


@dataclass(frozen=True)
class Graphics:
    """A GRAPHICS statement kept as read: its shape keyword, the markers it names and its numbers
    (lengths in m)."""

    name: str
    shape: str
    markers: dict[str, Marker]
    values: dict[str, object]
    line: int


def display_shape(graphics: Graphics) -> tuple[Shape, np.ndarray] | None:
    """The shape of ``graphics`` and its centre (frustum: base) in the marker's axes [m], or None
    when the statement is not a solid we draw."""
    v = graphics.values
    if graphics.shape == "CYLINDER" and {"LENGTH", "RADIUS"} <= v.keys():
        length = float(v["LENGTH"])
        return Cylinder(float(v["RADIUS"]), abs(length)), np.array([0.0, 0.0, 0.5 * length])
    if graphics.shape == "FRUSTUM" and {"LENGTH", "TOP", "BOTTOM"} <= v.keys() and float(v["LENGTH"]) > 0.0:
        return Frustum(float(v["BOTTOM"]), float(v["TOP"]), float(v["LENGTH"])), np.zeros(3)
    if graphics.shape == "BOX" and {"X", "Y", "Z"} <= v.keys():
        size = np.array([float(v["X"]), float(v["Y"]), float(v["Z"])])
        return Box(np.abs(size)), 0.5 * size
    if graphics.shape == "ELLIPSOID" and {"XSCALE", "YSCALE", "ZSCALE"} <= v.keys():
        return Ellipsoid(0.5 * np.array([float(v["XSCALE"]), float(v["YSCALE"]), float(v["ZSCALE"])])), np.zeros(3)
    return None


def add_display_shape(graphics: Graphics) -> bool:
    """Put the shape of ``graphics`` on its marker's body; False when there is none to draw."""
    found = display_shape(graphics)
    marker = graphics.markers.get("CM", graphics.markers.get("CORNER"))
    if found is None or marker is None:
        return False
    shape, offset = found
    R_BM = marker.orientation
    marker.body.shapes.append(PlacedShape(shape, marker.position + R_BM @ offset, R_BM))
    return True
