"""Kernel of the linear bushing family (``multibody.model.forces.bushing``): six-component
stiffness and damping in J's axes, small-rotation angles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
    marker_indices,
    parameters,
)
from multibody.model.forces.base import ForceElement
from multibody.model.forces.bushing import Bushing
from multibody.spatial import rotations
from multibody.spatial.rotations import FloatArray, cross


@dataclass(frozen=True)
class Bushings:
    """Linear bushings (see ``Bushing``); 3-vectors per element, J axes."""

    element: IntArray
    i_marker: IntArray
    j_marker: IntArray
    stiffness: FloatArray
    damping: FloatArray
    rotational_stiffness: FloatArray
    rotational_damping: FloatArray
    preload_force: FloatArray
    preload_torque: FloatArray


def _bushings(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> Bushings:
    return Bushings(
        element_indices(members),
        marker_indices(members, context, "i_marker"),
        marker_indices(members, context, "j_marker"),
        *(
            parameters(members, a, (3,))
            for a in (
                "stiffness",
                "damping",
                "rotational_stiffness",
                "rotational_damping",
                "preload_force",
                "preload_torque",
            )
        ),
    )


def _bushing_loads(group: Bushings, inputs: LoadInputs, out: LoadOutputs) -> None:
    i, j = group.i_marker, group.j_marker
    p_M, v_M, R_WM, w_M = inputs.p_M, inputs.v_M, inputs.R_WM, inputs.w_M
    R_WJ = R_WM[j]
    d_J = np.einsum("nji,nj->ni", R_WJ, p_M[i] - p_M[j])
    # Rate of d in J axes: relative velocity minus the part due to J's rotation.
    d_rate_J = np.einsum("nji,nj->ni", R_WJ, v_M[i] - v_M[j] - cross(w_M[j], p_M[i] - p_M[j]))
    angle_J = rotations.rotation_vector(np.swapaxes(R_WJ, 1, 2) @ R_WM[i])
    w_rel_J = np.einsum("nji,nj->ni", R_WJ, w_M[i] - w_M[j])
    damping_force = -group.damping * d_rate_J
    damping_torque = -group.rotational_damping * w_rel_J
    F_J = -group.stiffness * d_J + group.preload_force + damping_force
    T_J = -group.rotational_stiffness * angle_J + group.preload_torque + damping_torque
    out.force[group.element] = np.einsum("nij,nj->ni", R_WJ, F_J)
    out.torque[group.element] = np.einsum("nij,nj->ni", R_WJ, T_J)
    out.value[group.element] = np.linalg.norm(F_J, axis=1)
    out.potential += float(
        np.sum(0.5 * group.stiffness * d_J**2 + 0.5 * group.rotational_stiffness * angle_J**2)
        - np.sum(group.preload_force * d_J + group.preload_torque * angle_J)
    )
    # Small-rotation power: the rotation-vector rate is taken as the relative angular velocity.
    out.dissipated -= float(np.sum(damping_force * d_rate_J) + np.sum(damping_torque * w_rel_J))


BUSHING = ForceFamily("bushing", (Bushing,), _bushings, _bushing_loads)
