"""Shapes: display geometry of bodies, and their mass properties for ``RigidBody.from_shape``.

Every shape is described in its own frame S. A body holds shapes placed at a pose in its axes
(``body.add_shape(shape, marker)``: S is the marker frame, or the body frame without a marker).
Primitive shapes are centred or based on S as each class says, with the axis of symmetry along S z.

Units: lengths [m], density [kg/m^3], mass [kg], inertia [kg m^2].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError

if TYPE_CHECKING:
    import trimesh

    from multibody.model.body import Body
    from multibody.model.marker import Marker

FloatArray = NDArray[np.float64]

NAMED_COLORS = {
    "grey": "#9aa5b1",
    "gray": "#9aa5b1",
    "red": "#d64541",
    "green": "#3fa34d",
    "blue": "#3d7dd8",
    "orange": "#f28c28",
    "yellow": "#e8c547",
    "purple": "#8e5cc4",
    "white": "#f2f2f2",
    "black": "#222222",
    "steel": "#8a9bb0",
    "brass": "#c9a13b",
}
"""Colour names a shape accepts besides ``#rrggbb`` and RGB triples in [0, 1]."""

MESH_SEGMENTS = 48
"""Segments around the axis when a round shape is tessellated (glTF export, mass checks)."""


@dataclass(frozen=True)
class MassProperties:
    """Mass [kg], centre of mass ``p_SC`` (3,) [m] and inertia about the centre of mass in S axes (3, 3) [kg m^2]."""

    mass: float
    center: FloatArray
    inertia: FloatArray


class Shape:
    """Base of all shapes: colour (``#rrggbb``, a name of ``NAMED_COLORS`` or RGB in [0, 1]) and opacity in (0, 1]."""

    kind = "shape"

    def __init__(self, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.color = hex_color(self.describe(), color)
        if not (isinstance(opacity, (int, float)) and 0.0 < opacity <= 1.0):
            raise ModelError(f"{self.describe()}: opacity must be in (0, 1], got {opacity!r}")
        self.opacity = float(opacity)

    def describe(self) -> str:
        return f"{self.kind} shape"

    @property
    def volume(self) -> float:
        """Volume [m^3]."""
        return self.unit_mass_properties().mass

    def mass_properties(self, density: float) -> MassProperties:
        """Mass, centre of mass and central inertia of the shape filled with ``density`` [kg/m^3]."""
        if not (isinstance(density, (int, float)) and math.isfinite(density) and density > 0.0):
            raise ModelError(f"{self.describe()}: density must be a positive number [kg/m^3], got {density!r}")
        unit = self.unit_mass_properties()
        return MassProperties(density * unit.mass, unit.center, density * unit.inertia)

    def unit_mass_properties(self) -> MassProperties:
        """Mass properties at density 1 (mass = volume)."""
        raise NotImplementedError

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        """A closed triangle mesh of the shape in S [m]; round shapes with ``segments`` segments around."""
        raise NotImplementedError

    def parameters(self) -> dict[str, Any]:
        """The shape's dimensions as JSON-ready values (stored in results files for the animation)."""
        raise NotImplementedError

    def description(self) -> dict[str, Any]:
        """Kind, dimensions, colour and opacity as a JSON-ready dict."""
        return {"type": self.kind, **self.parameters(), "color": self.color, "opacity": self.opacity}


class Box(Shape):
    """A box of edge lengths ``size`` = (lx, ly, lz) [m] along S x, y, z, centred on S."""

    kind = "box"

    def __init__(self, size: ArrayLike, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.size = positive_numbers("box shape", "size", size, 3)
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        return _centred_triaxial(float(np.prod(self.size)), self.size, 12.0)

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        import trimesh

        return trimesh.creation.box(extents=self.size)

    def parameters(self) -> dict[str, Any]:
        return {"size": self.size.tolist()}


class Sphere(Shape):
    """A sphere of ``radius`` [m] centred on S."""

    kind = "sphere"

    def __init__(self, radius: float, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.radius = positive_numbers("sphere shape", "radius", [radius], 1)[0]
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        volume = 4.0 / 3.0 * math.pi * self.radius**3
        return MassProperties(volume, np.zeros(3), 0.4 * volume * self.radius**2 * np.eye(3))

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        import trimesh

        return trimesh.creation.uv_sphere(radius=self.radius, count=[segments, segments])

    def parameters(self) -> dict[str, Any]:
        return {"radius": self.radius}


class Ellipsoid(Shape):
    """An ellipsoid of ``semi_axes`` = (a, b, c) [m] along S x, y, z, centred on S."""

    kind = "ellipsoid"

    def __init__(self, semi_axes: ArrayLike, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.semi_axes = positive_numbers("ellipsoid shape", "semi_axes", semi_axes, 3)
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        return _centred_triaxial(4.0 / 3.0 * math.pi * float(np.prod(self.semi_axes)), self.semi_axes, 5.0)

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        mesh = Sphere(1.0).triangle_mesh(segments)
        mesh.apply_scale(self.semi_axes)
        return mesh

    def parameters(self) -> dict[str, Any]:
        return {"semi_axes": self.semi_axes.tolist()}


class Cylinder(Shape):
    """A solid cylinder of ``radius`` and ``length`` [m] along S z, centred on S."""

    kind = "cylinder"

    def __init__(self, radius: float, length: float, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.radius, self.length = positive_numbers("cylinder shape", "radius and length", [radius, length], 2)
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        return Frustum(self.radius, self.radius, self.length).unit_mass_properties_about(-0.5 * self.length)

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        import trimesh

        return trimesh.creation.cylinder(radius=self.radius, height=self.length, sections=segments)

    def parameters(self) -> dict[str, Any]:
        return {"radius": self.radius, "length": self.length}


class Frustum(Shape):
    """A truncated cone along S z: ``bottom_radius`` at z = 0, ``top_radius`` at z = ``length`` [m].

    One radius may be zero (a cone).
    """

    kind = "frustum"

    def __init__(
        self,
        bottom_radius: float,
        top_radius: float,
        length: float,
        color: str | ArrayLike = "grey",
        opacity: float = 1.0,
    ) -> None:
        radii = np.asarray([bottom_radius, top_radius], dtype=float)
        if radii.shape != (2,) or not np.all(np.isfinite(radii)) or np.any(radii < 0.0) or not np.any(radii > 0.0):
            raise ModelError(f"frustum shape: radii must be >= 0 and not both 0, got {bottom_radius!r}, {top_radius!r}")
        self.bottom_radius, self.top_radius = float(radii[0]), float(radii[1])
        self.length = positive_numbers("frustum shape", "length", [length], 1)[0]
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        return self.unit_mass_properties_about(0.0)

    def unit_mass_properties_about(self, base_height: float) -> MassProperties:
        """Unit-density mass properties with the base circle at S z = ``base_height`` [m].

        Exact integrals over the radius r(z) = r0 + (r1 - r0) z / h of a solid of revolution:
        V = pi int r^2, z_C V = pi int r^2 z, Izz = pi/2 int r^4, Ixx(base) = pi int (r^4/4 + r^2 z^2).
        """
        h = self.length
        radius = np.polynomial.Polynomial([self.bottom_radius, (self.top_radius - self.bottom_radius) / h])
        z = np.polynomial.Polynomial([0.0, 1.0])

        def integral(p: np.polynomial.Polynomial) -> float:
            antiderivative = p.integ()
            return float(antiderivative(h) - antiderivative(0.0))

        volume = math.pi * integral(radius**2)
        z_center = math.pi * integral(radius**2 * z) / volume
        axial = 0.5 * math.pi * integral(radius**4)
        transverse_at_base = math.pi * integral(radius**4 / 4.0 + radius**2 * z**2)
        transverse = transverse_at_base - volume * z_center**2
        return MassProperties(
            volume, np.array([0.0, 0.0, base_height + z_center]), np.diag([transverse, transverse, axial])
        )

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        import trimesh

        angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
        ring = np.column_stack([np.cos(angle), np.sin(angle), np.zeros_like(angle)])
        bottom = ring * self.bottom_radius
        top = ring * self.top_radius + [0.0, 0.0, self.length]
        vertices = np.vstack([bottom, top, [[0.0, 0.0, 0.0], [0.0, 0.0, self.length]]])
        n = segments
        k = np.arange(n)
        k1 = (k + 1) % n
        faces = np.vstack(
            [
                np.column_stack([k, k1, n + k1]),
                np.column_stack([k, n + k1, n + k]),  # side
                np.column_stack([np.full(n, 2 * n), k1, k]),  # bottom cap, facing -z
                np.column_stack([np.full(n, 2 * n + 1), n + k, n + k1]),  # top cap, facing +z
            ]
        )
        return trimesh.Trimesh(vertices, faces, process=True, validate=True)  # a cone tip: drop degenerate faces

    def parameters(self) -> dict[str, Any]:
        return {"bottom_radius": self.bottom_radius, "top_radius": self.top_radius, "length": self.length}


class Capsule(Shape):
    """A cylinder of ``radius`` with hemispherical ends; ``length`` [m] between the hemisphere
    centres, along S z, centred on S."""

    kind = "capsule"

    def __init__(self, radius: float, length: float, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.radius = positive_numbers("capsule shape", "radius", [radius], 1)[0]
        self.length = nonnegative_number("capsule shape", "length", length)
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        r, h = self.radius, self.length
        cylinder = math.pi * r * r * h
        ball = 4.0 / 3.0 * math.pi * r**3
        axial = cylinder * r * r / 2.0 + ball * 0.4 * r * r
        # each hemisphere: 2/5 m r^2 about its flat face, its CM 3r/8 from the face (parallel axis twice)
        transverse = cylinder * (3.0 * r * r + h * h) / 12.0 + ball * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0)
        return MassProperties(cylinder + ball, np.zeros(3), np.diag([transverse, transverse, axial]))

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        import trimesh

        return trimesh.creation.capsule(height=self.length, radius=self.radius, count=[segments, segments])

    def parameters(self) -> dict[str, Any]:
        return {"radius": self.radius, "length": self.length}


class Mesh(Shape):
    """A triangle mesh read from an STL or OBJ file (``trimesh``), or given as ``vertices`` (n, 3)
    [m] and ``faces`` (k, 3) vertex indices; ``scale`` multiplies the coordinates (e.g. 0.001
    for a file in millimetres). Mass properties need a closed (watertight) mesh."""

    kind = "mesh"

    def __init__(
        self,
        source: str | Path | None = None,
        vertices: ArrayLike | None = None,
        faces: ArrayLike | None = None,
        scale: float = 1.0,
        color: str | ArrayLike = "grey",
        opacity: float = 1.0,
    ) -> None:
        import trimesh

        self.source = None if source is None else str(source)
        owner = f"mesh shape '{source}'" if source is not None else "mesh shape"
        scale = positive_numbers(owner, "scale", [scale], 1)[0]
        if (source is None) == (vertices is None or faces is None):
            raise ModelError(f"{owner}: give either a file (STL/OBJ) or both vertices and faces")
        if source is not None:
            if not Path(source).is_file():
                raise ModelError(f"{owner}: file not found")
            try:
                mesh = trimesh.load(source, force="mesh")
            except Exception as error:
                raise ModelError(f"{owner}: cannot read the mesh file ({type(error).__name__}: {error})") from error
        else:
            mesh = trimesh.Trimesh(np.asarray(vertices, dtype=float), np.asarray(faces, dtype=np.int64), process=True)
        if len(mesh.faces) == 0:
            raise ModelError(f"{owner}: the mesh has no triangles")
        mesh.apply_scale(scale)
        self.mesh = mesh
        self._owner = owner
        super().__init__(color, opacity)

    def describe(self) -> str:
        return getattr(self, "_owner", "mesh shape")

    def unit_mass_properties(self) -> MassProperties:
        if not self.mesh.is_watertight:
            raise ModelError(
                f"{self.describe()}: the mesh is not closed (watertight), so it has no volume; "
                "repair it or give the body's mass and inertia explicitly"
            )
        properties = self.mesh.mass_properties  # density 1
        return MassProperties(float(properties.mass), np.array(properties.center_mass), np.array(properties.inertia))

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        return self.mesh.copy()

    def parameters(self) -> dict[str, Any]:
        return {
            "vertices": np.round(self.mesh.vertices.ravel(), 7).tolist(),
            "faces": self.mesh.faces.ravel().tolist(),
        }


class Plane(Shape):
    """The x-y plane of S (normal: S z), for contact (``mb.Contact``): the solid side is below
    (-z). Unbounded for contact; drawn as a square of edge ``size`` [m]. It has no volume."""

    kind = "plane"

    def __init__(self, size: float = 2.0, color: str | ArrayLike = "grey", opacity: float = 1.0) -> None:
        self.size = positive_numbers("plane shape", "size", [size], 1)[0]
        super().__init__(color, opacity)

    def unit_mass_properties(self) -> MassProperties:
        raise ModelError(f"{self.describe()}: a plane has no volume; give the body's mass and inertia explicitly")

    def triangle_mesh(self, segments: int = MESH_SEGMENTS) -> trimesh.Trimesh:
        import trimesh

        half = 0.5 * self.size
        corners = [[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0], [-half, half, 0.0]]
        return trimesh.Trimesh(np.array(corners), np.array([[0, 1, 2], [0, 2, 3]]), process=False)

    def parameters(self) -> dict[str, Any]:
        return {"size": self.size}


class Link:
    """A capsule from marker ``start`` to marker ``end`` (both on the body it is added to) of ``radius`` [m]."""

    def __init__(
        self, start: Marker, end: Marker, radius: float, color: str | ArrayLike = "grey", opacity: float = 1.0
    ) -> None:
        self.start, self.end = start, end
        self.radius = positive_numbers(f"link from {start.describe()}", "radius", [radius], 1)[0]
        self.color, self.opacity = color, opacity


@dataclass(frozen=True)
class PlacedShape:
    """A shape on a body: ``position`` p_BS (3,) [m] and ``orientation`` R_BS (3, 3) in body axes;
    ``body`` and ``marker`` (None at the body frame) say where it was placed (contact uses them)."""

    shape: Shape
    position: FloatArray
    orientation: FloatArray
    body: Body | None = field(default=None, compare=False, repr=False)
    marker: Marker | None = field(default=None, compare=False, repr=False)

    def description(self) -> dict[str, Any]:
        """The shape's description with its pose (position, rotation matrix rows) in body axes."""
        return {**self.shape.description(), "position": self.position.tolist(), "rotation": self.orientation.tolist()}


def place_shape(body: Body, shape: Shape | Link, marker: Marker | None) -> PlacedShape:
    """Where ``shape`` sits on ``body``: at ``marker`` (a marker of ``body``) or at the body frame.

    A ``Link`` becomes a capsule spanning its two markers.
    """
    from multibody.spatial.rotations import rotation_from_axes

    owner = f"shape on {body.describe()}"
    if isinstance(shape, Link):
        if marker is not None:
            raise ModelError(f"{owner}: a Link is placed by its two markers; do not give a marker")
        for end in (shape.start, shape.end):
            if end.body is not body:
                raise ModelError(f"{owner}: link end {end.describe()} is not on {body.describe()}")
        axis = shape.end.position - shape.start.position
        length = float(np.linalg.norm(axis))
        if length < 1e-12:
            raise ModelError(
                f"{owner}: link markers '{shape.start.name}' and '{shape.end.name}' coincide; a link needs two points"
            )
        capsule = Capsule(shape.radius, length, shape.color, shape.opacity)
        return PlacedShape(
            capsule, 0.5 * (shape.start.position + shape.end.position), rotation_from_axes(axis), body=body
        )
    if not isinstance(shape, Shape):
        raise ModelError(
            f"{owner}: expected a Box, Cylinder, Sphere, Ellipsoid, Capsule, Frustum, Mesh, Plane or Link, got {shape!r}"
        )
    if marker is None:
        return PlacedShape(shape, np.zeros(3), np.eye(3), body=body)
    if marker.body is not body:
        raise ModelError(
            f"{owner}: {marker.describe()} is not on {body.describe()}; place shapes at the body's own markers"
        )
    return PlacedShape(shape, marker.position.copy(), marker.orientation.copy(), body=body, marker=marker)


def _centred_triaxial(volume: float, lengths: FloatArray, divisor: float) -> MassProperties:
    """Unit-density properties of a body symmetric about its centre: Ixx = V (b^2 + c^2) / divisor
    etc. for the lengths (a, b, c) along x, y, z (box: edges, divisor 12; ellipsoid: semi-axes, 5)."""
    a2, b2, c2 = np.square(lengths)
    return MassProperties(volume, np.zeros(3), volume / divisor * np.diag([b2 + c2, a2 + c2, a2 + b2]))


def equivalent_ellipsoid(mass: float, inertia: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The uniform solid ellipsoid of ``mass`` [kg] whose central inertia is ``inertia`` (3, 3) [kg m^2].

    Returns its semi-axes (3,) [m] and the principal axes R_BS (3, 3) (columns). From
    Ixx = m (b^2 + c^2) / 5 etc.: a^2 = 5 (Iyy + Izz - Ixx) / (2 m) in principal axes.
    """
    moments, axes = np.linalg.eigh(np.asarray(inertia, dtype=float))
    if np.linalg.det(axes) < 0.0:
        axes[:, 2] = -axes[:, 2]
    squares = 2.5 / mass * (moments.sum() - 2.0 * moments)
    return np.sqrt(np.maximum(squares, 0.0)), axes


def hex_color(owner: str, color: str | ArrayLike) -> str:
    """``#rrggbb`` from a name of ``NAMED_COLORS``, ``#rrggbb`` or an RGB triple in [0, 1]."""
    if isinstance(color, str):
        text = NAMED_COLORS.get(color.lower(), color)
        if len(text) == 7 and text[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in text[1:]):
            return text.lower()
        raise ModelError(f"{owner}: color {color!r} is not '#rrggbb' or one of {', '.join(NAMED_COLORS)}")
    rgb = np.asarray(color, dtype=float)
    if rgb.shape != (3,) or not np.all((rgb >= 0.0) & (rgb <= 1.0)):
        raise ModelError(f"{owner}: color must be '#rrggbb', a colour name or 3 numbers in [0, 1], got {color!r}")
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)


def positive_numbers(owner: str, what: str, values: ArrayLike, size: int) -> FloatArray:
    """``values`` as ``size`` finite positive floats, or a ``ModelError`` naming ``owner``."""
    array = np.asarray(values, dtype=float)
    if array.shape != (size,) or not np.all(np.isfinite(array)) or np.any(array <= 0.0):
        raise ModelError(f"{owner}: {what} must be {size} positive number{'s' if size > 1 else ''}, got {values!r}")
    return array


def nonnegative_number(owner: str, what: str, value: float) -> float:
    """``value`` as a finite float >= 0, or a ``ModelError`` naming ``owner``."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0.0):
        raise ModelError(f"{owner}: {what} must be a number >= 0 [m], got {value!r}")
    return float(value)


SHAPE_TYPES: dict[str, type[Shape]] = {
    shape_type.kind: shape_type for shape_type in (Box, Sphere, Ellipsoid, Cylinder, Frustum, Capsule, Mesh, Plane)
}
"""Shape classes by their ``kind`` (the ``type`` of a shape description)."""


def shape_from_description(description: dict[str, Any]) -> Shape:
    """The shape of a ``Shape.description()`` dict (pose keys are ignored)."""
    values = {k: v for k, v in description.items() if k not in ("type", "position", "rotation")}
    if description["type"] == "mesh":
        vertices = np.reshape(values.pop("vertices"), (-1, 3))
        faces = np.reshape(values.pop("faces"), (-1, 3))
        return Mesh(vertices=vertices, faces=faces, **values)
    return SHAPE_TYPES[description["type"]](**values)
