"""Geometric stiffening of a modal body from reference load cases.

A reference load case gives a prestress; its geometric stiffness projected on the modes, K_G =
Phi^T K_G(N) Phi (m, m), scales with the load at run time: K_ff + lambda K_G. Two cases:

- unit axial force: every element carries N = 1 N of tension (``axial_stiffening``), K_G per newton;
- unit spin: the body spins at 1 rad/s about an axis through the body origin and is held at chosen
  nodes (the hub); the centrifugal load is solved statically for the prestress: element axial
  forces of beams, the stress field of solids (``spin_stiffening``), K_G per (rad/s)^2. Without it a spinning beam's
  modal model softens and diverges (Kane, Ryan, Banerjee, J. Guid. Control Dyn. 10 (1987) 139).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from multibody.fem.beams import BeamMesh, beam_axial_forces, beam_geometric_stiffness
from multibody.fem.reduction import node_dofs, require_rigid_restraint, rigid_body_modes
from multibody.fem.solids import SolidMesh, solid_geometric_stiffness
from multibody.model.element import ModelError
from multibody.model.material import Material


def axial_stiffening(mesh: BeamMesh, modes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Phi^T K_G Phi (m, m) [1/(s^2 N)] for a unit tensile force in every element."""
    KG = beam_geometric_stiffness(mesh, 1.0)
    return modes.T @ (KG @ modes)


def spin_stiffening(
    mesh: BeamMesh | SolidMesh,
    material: Material,
    mass_matrix: sp.spmatrix,
    stiffness_matrix: sp.spmatrix,
    modes: NDArray[np.float64],
    axis: ArrayLike,
    held_nodes: ArrayLike,
    owner: str,
) -> NDArray[np.float64]:
    """Phi^T K_G Phi (m, m) [-] of a unit spin (1 rad/s) about ``axis`` through the body origin with
    ``held_nodes`` clamped: times Omega^2 [(rad/s)^2] it adds to the modal stiffness [1/s^2]. The
    centrifugal load is the consistent mass matrix times the nodes' centripetal acceleration field;
    beams take the element axial forces of the static solution, solids its full stress."""
    from scipy.sparse.linalg import spsolve

    axis = np.asarray(axis, float)
    if axis.shape != (3,) or np.linalg.norm(axis) == 0.0:
        raise ModelError(f"{owner}: spin axis must be 3 numbers, not all zero; got {axis!r}")
    axis = axis / np.linalg.norm(axis)
    dofs_per_node = 6 if isinstance(mesh, BeamMesh) else 3
    held = np.atleast_1d(np.asarray(held_nodes, np.int64))
    fixed = node_dofs(held, dofs_per_node)
    require_rigid_restraint(rigid_body_modes(mesh.points, dofs_per_node)[fixed], owner, "held")
    field = np.zeros((len(mesh.points), dofs_per_node))
    field[:, :3] = mesh.points - np.outer(mesh.points @ axis, axis)  # -w x (w x x) for w = axis
    load = mass_matrix @ field.ravel()
    free = np.setdiff1d(np.arange(load.size), fixed)
    displacement = np.zeros(load.size)
    K = sp.csr_matrix(stiffness_matrix)
    displacement[free] = spsolve(K[free][:, free].tocsc(), load[free])
    if isinstance(mesh, BeamMesh):
        KG = beam_geometric_stiffness(mesh, beam_axial_forces(mesh, displacement, material))
    else:
        KG = solid_geometric_stiffness(mesh, material, displacement)
    return modes.T @ (KG @ modes)
