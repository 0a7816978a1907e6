"""ANCF cables in the results: node positions, points along the cable, axial force and bending
moment over the output instants, from the stored node coordinates (``"cable/coordinates"``) and the
cable's description in the scene (``AncfCable.drawing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.formulation.bodies.cable import hermite_shapes, locate, smallest_rotations
from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results


@dataclass(frozen=True)
class CableHistory:
    """One ANCF cable over the T output instants.

    Attributes:
        name: the cable's name.
        lengths: (n,) undeformed element lengths [m].
        coordinates: (T, n + 1, 6) node positions [m] and slopes [-].
        velocities: (T, n + 1, 6) node velocities [m/s] and slope rates [1/s].
        axial_stiffness: ``E A`` [N]; bending_stiffness: ``E I`` [N m^2].
    """

    name: str
    lengths: FloatArray
    coordinates: FloatArray
    velocities: FloatArray
    axial_stiffness: float
    bending_stiffness: float

    @property
    def node_positions(self) -> FloatArray:
        """(T, n + 1, 3) world positions of the nodes [m]."""
        return self.coordinates[:, :, :3]

    @property
    def node_velocities(self) -> FloatArray:
        """(T, n + 1, 3) node velocities [m/s]."""
        return self.velocities[:, :, :3]

    @property
    def arc_lengths(self) -> FloatArray:
        """(n + 1,) undeformed arc length of each node [m]."""
        return np.r_[0.0, np.cumsum(self.lengths)]

    def _interpolate(self, arc_length: float, source: FloatArray, derivative: int) -> FloatArray:
        nodes = self.arc_lengths
        if not -1e-12 * nodes[-1] <= arc_length <= nodes[-1] * (1.0 + 1e-12):
            raise ValueError(f"cable '{self.name}': arc length {arc_length} m is outside 0 to {nodes[-1]:g} m")
        element, xi = locate(nodes, arc_length)
        weights = hermite_shapes(xi, float(self.lengths[element]))[derivative]
        e = source[:, element : element + 2].reshape(len(source), 4, 3)  # r_A, r'_A, r_B, r'_B
        return np.einsum("i,tia->ta", weights, e)

    def position_at(self, arc_length: float) -> FloatArray:
        """(T, 3) world position [m] of the material point at undeformed ``arc_length`` [m]."""
        return self._interpolate(arc_length, self.coordinates, 0)

    def velocity_at(self, arc_length: float) -> FloatArray:
        """(T, 3) velocity [m/s] of the material point at ``arc_length`` [m]."""
        return self._interpolate(arc_length, self.velocities, 0)

    def tangent_at(self, arc_length: float) -> FloatArray:
        """(T, 3) slope ``r'`` at ``arc_length`` [m] (its length is the stretch ``1 + strain``)."""
        return self._interpolate(arc_length, self.coordinates, 1)

    def axes_at(self, arc_length: float, reference: FloatArray | None = None) -> FloatArray:
        """(T, 3, 3) axes at ``arc_length`` [m]: x the tangent, y and z those of ``reference`` (3, 3,
        x along the undeformed tangent; default: a frame along the first output instant's tangent)
        turned by the smallest rotation that takes its x-axis to the tangent (a cable has no torsion)."""
        from multibody.model.cable import frame_along

        tangent = self.tangent_at(arc_length)
        unit = tangent / np.linalg.norm(tangent, axis=1)[:, None]
        reference = frame_along(unit[0]) if reference is None else reference
        return smallest_rotations(np.broadcast_to(reference[:, 0], unit.shape), unit) @ reference

    def axial_force(self, arc_length: float) -> FloatArray:
        """(T,) elastic axial force ``E A (|r'| - 1)`` [N] at ``arc_length`` [m] (tension positive). The
        strain is most accurate inside the elements (the quadrature points of the axial stiffness):
        at the nodes of a hanging rope it is off by about 1e-3 relative where an element's middle is
        within 1e-4."""
        return self.axial_stiffness * (np.linalg.norm(self.tangent_at(arc_length), axis=1) - 1.0)

    def moment_vector(self, arc_length: float) -> FloatArray:
        """(T, 3) elastic bending moment ``E I r' x r'' / |r'|^3`` [N m] at ``arc_length`` [m], world."""
        slope = self.tangent_at(arc_length)
        curvature = np.cross(slope, self._interpolate(arc_length, self.coordinates, 2))
        return self.bending_stiffness * curvature / (np.linalg.norm(slope, axis=1) ** 3)[:, None]

    def bending_moment(self, arc_length: float) -> FloatArray:
        """(T,) the bending moment's magnitude [N m] at ``arc_length`` [m] (``moment_vector``)."""
        return np.linalg.norm(self.moment_vector(arc_length), axis=1)


def cable_history(results: Results, cable: dict[str, Any]) -> CableHistory:
    """The history of the cable described by its scene entry ``cable`` (``AncfCable.drawing``)."""
    coordinates = results.cable_coordinates(cable["name"])
    velocities = results.cable_velocities(cable["name"])
    count = len(results)
    return CableHistory(
        name=cable["name"],
        lengths=np.asarray(cable["lengths"], dtype=float),
        coordinates=coordinates.reshape(count, -1, 6),
        velocities=velocities.reshape(count, -1, 6),
        axial_stiffness=float(cable["axial_stiffness"]),
        bending_stiffness=float(cable["bending_stiffness"]),
    )
