"""A geometrically exact beam element: the strain energy of one span of a nodal ``Beam``.

Simo-Reissner (geometrically exact) beam element of two nodes with one-point quadrature at its
midpoint. The node frames are the I and J markers (x along the beam, y and z the section's
principal axes): J at the first node A, I at the second node B. With ``d = x_B - x_A``, the
relative rotation vector ``phi = log(R_A^T R_B)`` and the midpoint frame
``R_M = R_A exp(phi / 2)``, the section strains (midpoint axes) are

    Gamma = R_M^T d / L0 - Gamma0      (axial strain, two shear strains)
    kappa = phi / L0 - kappa0          (twist, two curvatures) [1/m]

with ``L0``, ``Gamma0``, ``kappa0`` those of the input configuration (the reference, strain-free
geometry), and the strain energy is ``W = L0 / 2 (Gamma^T C_N Gamma + kappa^T C_M kappa)``,
``C_N = diag(EA, k G A, k G A)``, ``C_M = diag(G J, E Iy, E Iz)``. The loads are its exact gradient
(``multibody.formulation.forces.beam_element``); interpolating the relative rotation makes the
element objective and free of shear locking. Damping is stiffness-proportional: ``damping`` [s]
times the strain rates adds to the section forces.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.marker import Marker
from multibody.spatial import rotations

FloatArray = NDArray[np.float64]


class BeamElement(ForceElement):
    """One element of a nodal beam between the node frames ``j_marker`` (A, first) and
    ``i_marker`` (B, second); module docstring.

    ``axial_shear_stiffness`` (EA, kGA, kGA) [N], ``bending_torsion_stiffness`` (GJ, EIy, EIz)
    [N m^2], ``damping`` [s]. The reference geometry is the markers' input configuration.
    """

    def __init__(
        self,
        name: str,
        i_marker: Marker,
        j_marker: Marker,
        axial_shear_stiffness: ArrayLike,
        bending_torsion_stiffness: ArrayLike,
        damping: float = 0.0,
    ) -> None:
        super().__init__(name, i_marker, j_marker)
        owner = self.describe()
        self.axial_shear_stiffness = _positive_triple(owner, "axial_shear_stiffness [N]", axial_shear_stiffness)
        self.bending_torsion_stiffness = _positive_triple(
            owner, "bending_torsion_stiffness [N m^2]", bending_torsion_stiffness
        )
        if not isinstance(damping, (int, float)) or not np.isfinite(damping) or damping < 0.0:
            raise ModelError(f"{owner}: damping must be a non-negative number of seconds, got {damping!r}")
        self.damping = float(damping)
        p_A, R_A = marker_pose(j_marker)
        p_B, R_B = marker_pose(i_marker)
        d = p_B - p_A
        self.reference_length = float(np.linalg.norm(d))
        """L0 [m]: the distance between the nodes in the input configuration"""
        if self.reference_length <= 0.0:
            raise ModelError(f"{owner}: its two nodes are at the same place; give nodes apart")
        phi = rotations.rotation_vector(R_A.T @ R_B)
        R_M = R_A @ rotation_from_vector(0.5 * phi)
        self.reference_strain = R_M.T @ d / self.reference_length
        """Gamma0 (3,): (1, 0, 0) for a straight beam"""
        self.reference_curvature = phi / self.reference_length
        """kappa0 (3,) [1/m]: zero for a straight beam"""


def marker_pose(marker: Marker) -> tuple[FloatArray, FloatArray]:
    """World position [m] and orientation of ``marker`` in the model's input configuration."""
    body = marker.body
    R_WB = getattr(body, "orientation", np.eye(3))
    p_WB = getattr(body, "position", np.zeros(3))
    return p_WB + R_WB @ marker.position, R_WB @ marker.orientation


def rotation_from_vector(theta: ArrayLike) -> FloatArray:
    """``exp(skew(theta))`` (3, 3) of a rotation vector ``theta`` (3,) [rad]."""
    e = rotations.rotate_by_body_vector(np.array([1.0, 0.0, 0.0, 0.0]), np.asarray(theta, dtype=float))
    return rotations.rotation_from_euler_parameters(e)


def _positive_triple(owner: str, what: str, value: ArrayLike) -> FloatArray:
    array = np.asarray(value, dtype=float)
    if array.shape != (3,) or not np.all(np.isfinite(array)) or np.any(array <= 0.0):
        raise ModelError(f"{owner}: {what} must be 3 finite positive values, got {value!r}")
    return array
