"""ANCF cable bodies: a gradient-deficient absolute nodal coordinate beam (Gerstmayr & Shabana).

An ``AncfCable`` is a body of its own kind, with no reference frame: each node carries its world
position ``r`` [m] and its slope ``r' = dr/dx`` (x the arc length of the undeformed cable), six
coordinates per node, and each element between two nodes interpolates ``r(x)`` by cubic Hermite
functions of those twelve coordinates. Rigid motions, large rotations and large deflections are
exact; the cable has axial and bending stiffness (``E A``, ``E I``) but no torsion and no shear,
which is right for ropes, hoses, cables and slender rods (use a geometrically exact ``Beam`` for
stiff parts that twist). ``multibody.formulation.bodies.cable`` is the kind's kernel.

Markers sit at any arc length (``marker_at``): their origin follows ``r(x)``, their x-axis the
tangent ``r' / |r'|``; the cable has no torsion, so the other two axes are carried along by the
smallest rotation that takes the undeformed tangent to the current one, and only the tangent may
be used by joints (a ``CableClamp`` holds a node and its tangent; a ``Spherical`` joint, a
``Distance``, springs and applied forces act at the marker's origin).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.body import Body
from multibody.model.element import ModelError
from multibody.model.joints.base import Joint, coincident, perpendicular
from multibody.model.marker import Marker, finite_vector, real_number
from multibody.model.material import Material, Section

FloatArray = NDArray[np.float64]

NODE_WIDTH = 6
"""Coordinates per node: position (3) and slope (3)."""


class CableMarker(Marker):
    """A marker at arc length ``arc_length`` [m] of an ``AncfCable``: on element ``element`` at the
    element coordinate ``xi`` (0 at its first node, 1 at its second). ``position`` and
    ``orientation`` are its undeformed world frame (x along the tangent)."""

    def __init__(self, name: str, cable: AncfCable, arc_length: float) -> None:
        element, xi = cable.locate(arc_length)
        position, tangent = cable.reference_point(element, xi)
        super().__init__(name, cable, position, frame_along(tangent))
        self.arc_length, self.element, self.xi = float(arc_length), element, xi


class AncfCable(Body):
    """A cable through the world points ``points`` (n+1, 3) [m], its nodes (straight elements
    between consecutive points; the undeformed slopes along each point's mean chord direction).

    ``section`` and ``material`` give ``E A``, ``E I`` (``Iy = Iz``: the cable's bending is
    isotropic) and ``rho A``; ``damping`` [s] is the strain-rate damping coefficient of
    both axial strain and curvature (Kelvin-Voigt: stress ``E (strain + damping * strain rate)``).
    ``velocities`` (n+1, 3) [m/s]: initial node velocities (default at rest); the slope rates are
    taken to match them along each element (a rigid translation or rotation). ``line_load`` (3,)
    [N/m]: a dead load per undeformed length in world axes, besides gravity (consistent nodal loads;
    like gravity it is conservative, its potential in the energy books).
    """

    kind = "cable"

    def __init__(
        self,
        name: str,
        points: ArrayLike,
        section: Section,
        material: Material,
        damping: float = 0.0,
        velocities: ArrayLike | None = None,
        line_load: ArrayLike | None = None,
    ) -> None:
        super().__init__(name)
        owner = self.describe()
        nodes = np.asarray(points, dtype=float)
        if nodes.ndim != 2 or nodes.shape[1] != 3 or nodes.shape[0] < 2 or not np.all(np.isfinite(nodes)):
            raise ModelError(f"{owner}: points must be an (n+1, 3) array of finite world positions [m], n >= 1")
        chords = np.diff(nodes, axis=0)
        lengths = np.linalg.norm(chords, axis=1)
        if np.any(lengths <= 1e-9 * max(1.0, float(lengths.max()))):
            raise ModelError(f"{owner}: two consecutive points coincide; give distinct points along the cable")
        if not isinstance(section, Section) or not isinstance(material, Material):
            raise ModelError(f"{owner}: section must be an mb.Section and material an mb.Material")
        if abs(section.Iy - section.Iz) > 1e-9 * max(section.Iy, section.Iz):
            raise ModelError(
                f"{owner}: an ANCF cable bends alike in every direction, so its section needs Iy == Iz (a circle, a "
                f"tube), got Iy = {section.Iy:.6g} and Iz = {section.Iz:.6g} m^4; use a geometrically exact Beam"
            )
        self.damping = real_number(owner, "damping [s]", damping)
        if self.damping < 0.0:
            raise ModelError(f"{owner}: damping must be a non-negative number of seconds, got {damping!r}")
        self.section, self.material = section, material
        self.lengths = lengths
        """(n,) undeformed element lengths [m]"""
        self.arc_lengths = np.r_[0.0, np.cumsum(lengths)]
        """(n+1,) arc length of each node [m]"""
        directions = chords / lengths[:, None]
        slopes = np.vstack([directions[:1], directions[:-1] + directions[1:], directions[-1:]])
        slopes /= np.linalg.norm(slopes, axis=1)[:, None]
        self.reference_coordinates = np.hstack([nodes, slopes]).reshape(-1)
        """(6 (n+1),) node positions and unit slopes of the undeformed cable"""
        self.initial_velocities = self._velocities(owner, velocities, nodes.shape[0])
        """(6 (n+1),) initial node velocities and slope rates"""
        self.line_load = np.zeros(3) if line_load is None else finite_vector(owner, "line_load [N/m]", line_load)
        """(3,) a dead load per undeformed length [N/m], world axes (wind, a distributed weight)"""

    @property
    def initial_coordinates(self) -> FloatArray:
        """(6 (n+1),) the cable's coordinates in the input configuration (its block of ``q``)."""
        return self.reference_coordinates

    @property
    def initial_rates(self) -> FloatArray:
        """(6 (n+1),) their initial rates (its block of ``v``)."""
        return self.initial_velocities

    @property
    def n_elements(self) -> int:
        """Number of elements."""
        return self.lengths.size

    @property
    def length(self) -> float:
        """Undeformed length [m]."""
        return float(self.arc_lengths[-1])

    @property
    def axial_stiffness(self) -> float:
        """``E A`` [N]."""
        return self.material.E * self.section.area

    @property
    def bending_stiffness(self) -> float:
        """``E I`` [N m^2]."""
        return self.material.E * self.section.Iy

    @property
    def mass_per_length(self) -> float:
        """``rho A`` [kg/m]."""
        return self.material.density * self.section.area

    @property
    def drawing(self) -> dict:
        """What the results need to rebuild the cable (``Results.cable``) and the animation to draw it:
        its element lengths [m], ``E A`` [N], ``E I`` [N m^2] and the section's radius [m]."""
        return {
            "name": self.name,
            "lengths": self.lengths.tolist(),
            "axial_stiffness": self.axial_stiffness,
            "bending_stiffness": self.bending_stiffness,
            "radius": float(np.sqrt(self.section.area / np.pi)),
        }

    def locate(self, arc_length: float) -> tuple[int, float]:
        """``(element, xi)`` of the point at ``arc_length`` [m] (ModelError outside the cable)."""
        from multibody.formulation.bodies.cable import locate

        s = real_number(self.describe(), "arc_length [m]", arc_length)
        if not -1e-12 * self.length <= s <= self.length * (1.0 + 1e-12):
            raise ModelError(f"{self.describe()}: arc length {s} m is outside the cable (0 to {self.length:g} m)")
        return locate(self.arc_lengths, s)

    def reference_point(self, element: int, xi: float) -> tuple[FloatArray, FloatArray]:
        """Undeformed world position [m] and unit tangent at element coordinate ``xi`` of ``element``."""
        from multibody.formulation.bodies.cable import hermite_shapes

        e = self.reference_coordinates[NODE_WIDTH * element : NODE_WIDTH * (element + 2)]
        h, dh, _ = hermite_shapes(xi, float(self.lengths[element]))
        position = h[0] * e[0:3] + h[1] * e[3:6] + h[2] * e[6:9] + h[3] * e[9:12]
        tangent = dh[0] * e[0:3] + dh[1] * e[3:6] + dh[2] * e[6:9] + dh[3] * e[9:12]
        return position, tangent / np.linalg.norm(tangent)

    def marker_at(self, name: str, arc_length: float) -> CableMarker:
        """A marker at ``arc_length`` [m] from the first node (x-axis along the tangent)."""
        if name in self.markers:
            raise ModelError(f"{self.describe()} already has a marker named '{name}'; choose another name")
        marker = CableMarker(name, self, arc_length)
        self.markers[name] = marker
        return marker

    def add_marker(self, name: str, *args: object, **kwargs: object) -> Marker:  # type: ignore[override]
        """Refused: markers on a cable sit at an arc length (``marker_at``)."""
        raise ModelError(f"{self.describe()}: put markers on a cable with marker_at(name, arc_length)")

    def _velocities(self, owner: str, velocities: ArrayLike | None, n_nodes: int) -> FloatArray:
        rates = np.zeros((n_nodes, NODE_WIDTH))
        if velocities is None:
            return rates.reshape(-1)
        node_velocities = np.asarray(velocities, dtype=float)
        if node_velocities.shape != (n_nodes, 3) or not np.all(np.isfinite(node_velocities)):
            raise ModelError(f"{owner}: velocities must be a finite ({n_nodes}, 3) array [m/s], one per node")
        differences = np.diff(node_velocities, axis=0) / self.lengths[:, None]
        rates[:, :3] = node_velocities
        rates[:, 3:] = np.vstack([differences[:1], 0.5 * (differences[:-1] + differences[1:]), differences[-1:]])
        return rates.reshape(-1)


class CableClamp(Joint):
    """Holds a cable marker (I, x-axis the tangent) at marker J's origin with its tangent along J's
    x-axis: three translation rows and two rows keeping the tangent perpendicular to J's y and z
    (the cable has no torsion to hold)."""

    rows = coincident() + (
        perpendicular("x", "y", "tangent perpendicular to J y"),
        perpendicular("x", "z", "tangent perpendicular to J z"),
    )

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker) -> None:
        super().__init__(name, i_marker, j_marker)
        if not isinstance(i_marker, CableMarker):
            raise ModelError(f"{self.describe()}: its I marker must be on an ANCF cable (cable.marker_at)")


def frame_along(tangent: FloatArray) -> FloatArray:
    """A right-handed frame (3, 3) whose x-axis is the unit ``tangent``."""
    helper = np.eye(3)[int(np.argmin(np.abs(tangent)))]
    y = np.cross(helper, tangent)
    y /= np.linalg.norm(y)
    return np.column_stack([tangent, y, np.cross(tangent, y)])
