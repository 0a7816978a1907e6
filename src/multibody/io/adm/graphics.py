"""GRAPHICS statements -> display shapes (``multibody.model.geometry``) on the marker's body.

ADAMS places a CYLINDER and a FRUSTUM with their base circle on the CM marker's xy-plane and their
axis along its z (a negative LENGTH points along -z); a BOX with one CORNER at the marker and its
edges X, Y, Z along the marker's axes; an ELLIPSOID centred on the marker with XSCALE, YSCALE,
ZSCALE its diameters along the marker's axes (equal diameters: a sphere); a SPHERE centred on its
CM marker with RADIUS; a PLANE the rectangle XMIN..XMAX by YMIN..YMAX of its RM marker's xy-plane
(the solid below, as contact takes it). Our shapes are centred (frustum: based) on their frame,
so each is placed at the marker with the offset that puts it where ADAMS draws it. OUTLINE,
CIRCLE, ARC and POINT are kept as records only.

One placed shape serves display and contact (``multibody.io.adm.contact``): ``Graphics.placed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from multibody.model.geometry import (
    Box,
    Cylinder,
    Ellipsoid,
    Frustum,
    PlacedShape,
    Plane,
    Shape,
    Sphere,
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

    @cached_property
    def placed(self) -> PlacedShape | None:
        """The shape where ADAMS draws it on its marker's body (None when it is not a solid we
        draw). It keeps the marker when the shape's frame is the marker's own, so that a contact
        on it acts at that marker."""
        found = display_shape(self)
        marker = self.markers.get("CM", self.markers.get("CORNER", self.markers.get("RM")))
        if found is None or marker is None:
            return None
        shape, offset = found
        R_BM = marker.orientation
        at_marker = not np.any(offset)
        return PlacedShape(
            shape, marker.position + R_BM @ offset, R_BM, body=marker.body, marker=marker if at_marker else None
        )


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
        semi_axes = 0.5 * np.array([float(v["XSCALE"]), float(v["YSCALE"]), float(v["ZSCALE"])])
        if np.all(semi_axes == semi_axes[0]):
            return Sphere(float(semi_axes[0])), np.zeros(3)
        return Ellipsoid(semi_axes), np.zeros(3)
    if graphics.shape == "SPHERE" and "RADIUS" in v:
        return Sphere(float(v["RADIUS"])), np.zeros(3)
    if graphics.shape == "PLANE" and {"XMIN", "XMAX", "YMIN", "YMAX"} <= v.keys():
        x = np.array([float(v["XMIN"]), float(v["XMAX"])])
        y = np.array([float(v["YMIN"]), float(v["YMAX"])])
        return Plane(max(abs(x[1] - x[0]), abs(y[1] - y[0]))), np.array([x.mean(), y.mean(), 0.0])
    return None


def add_display_shape(graphics: Graphics) -> bool:
    """Put the shape of ``graphics`` on its marker's body; False when there is none to draw."""
    placed = graphics.placed
    if placed is None:
        return False
    assert placed.body is not None
    placed.body.shapes.append(placed)
    return True
