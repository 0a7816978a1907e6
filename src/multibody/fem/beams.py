"""3D frame (beam) elements: Euler-Bernoulli and Timoshenko, assembled into sparse M, K and K_G.

Each node has 6 DOFs in body axes, ordered (u_x, u_y, u_z, theta_x, theta_y, theta_z); node k owns
DOFs 6k .. 6k+5. Element matrices follow J. S. Przemieniecki, *Theory of Matrix Structural
Analysis* (McGraw-Hill 1968; Dover 1985): stiffness eq. (5.116) with the shear parameters
Phi = 12 E I / (G k A L^2) (Phi = 0 gives Euler-Bernoulli), consistent mass eq. (11.42) (cubic
Hermite bending, linear axial and torsion shapes; rotary inertia of the section omitted), and
geometric stiffness eq. (15.31) for an axial force N (tension positive).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError
from multibody.model.material import Material, Section

BEAM_KINDS = ("euler_bernoulli", "timoshenko")


@dataclass(frozen=True)
class BeamMesh:
    """Nodes and 2-node frame elements with one section.

    ``points`` (n, 3) [m] node positions in body axes; ``elements`` (e, 2) 0-based node indices;
    ``y_axis`` (3,) a direction the section's local y axis points to (projected normal to each
    element); ``kind`` one of ``BEAM_KINDS``.
    """

    points: NDArray[np.float64]
    elements: NDArray[np.int64]
    section: Section
    y_axis: NDArray[np.float64]
    kind: str = "euler_bernoulli"


def beam_line(
    length: float,
    n_elements: int,
    section: Section,
    start: ArrayLike = (0.0, 0.0, 0.0),
    direction: ArrayLike = (1.0, 0.0, 0.0),
    y_axis: ArrayLike = (0.0, 1.0, 0.0),
    kind: str = "euler_bernoulli",
) -> BeamMesh:
    """A straight beam of ``length`` [m] from ``start`` along ``direction``, ``n_elements`` equal
    elements; node k sits at start + k L / n_elements direction."""
    if kind not in BEAM_KINDS:
        raise ModelError(f"beam mesh: kind must be one of {BEAM_KINDS}, got {kind!r}")
    if int(n_elements) < 1 or length <= 0.0:
        raise ModelError(f"beam mesh: need length > 0 and n_elements >= 1, got {length!r} m, {n_elements!r}")
    axis = np.asarray(direction, float) / np.linalg.norm(direction)
    s = np.linspace(0.0, length, int(n_elements) + 1)
    points = np.asarray(start, float) + s[:, None] * axis
    elements = np.column_stack([np.arange(n_elements), np.arange(1, n_elements + 1)])
    return BeamMesh(points, elements, section, np.asarray(y_axis, float), kind)


def _bending_blocks(EI: NDArray, L: NDArray, phi: NDArray) -> NDArray[np.float64]:
    """(e, 4, 4) bending stiffness for (v1, theta1, v2, theta2), theta = dv/dx (Przemieniecki 5.116)."""
    c = EI / (L**3 * (1.0 + phi))
    k = np.empty((len(L), 4, 4))
    k[:, 0] = np.stack([12 * c, 6 * L * c, -12 * c, 6 * L * c], -1)
    k[:, 1] = np.stack([6 * L * c, (4 + phi) * L**2 * c, -6 * L * c, (2 - phi) * L**2 * c], -1)
    k[:, 2] = -k[:, 0]
    k[:, 3] = np.stack([6 * L * c, (2 - phi) * L**2 * c, -6 * L * c, (4 + phi) * L**2 * c], -1)
    return k


def _hermite_mass(mass_per_length: float, L: NDArray) -> NDArray[np.float64]:
    """(e, 4, 4) consistent Hermite mass for (v1, theta1, v2, theta2) (Przemieniecki 11.42)."""
    pattern = np.array([[156, 22, 54, -13], [22, 4, 13, -3], [54, 13, 156, -22], [-13, -3, -22, 4]], float)
    powers = np.array([[0, 1, 0, 1], [1, 2, 1, 2], [0, 1, 0, 1], [1, 2, 1, 2]])
    return mass_per_length * L[:, None, None] / 420.0 * pattern * L[:, None, None] ** powers


def _geometric_blocks(L: NDArray) -> NDArray[np.float64]:
    """(e, 4, 4) geometric stiffness per unit axial force for (v1, theta1, v2, theta2) (Przemieniecki 15.31)."""
    pattern = np.array([[36, 3, -36, 3], [3, 4, -3, -1], [-36, -3, 36, -3], [3, -1, -3, 4]], float)
    powers = np.array([[0, 1, 0, 1], [1, 2, 1, 2], [0, 1, 0, 1], [1, 2, 1, 2]])
    return pattern * L[:, None, None] ** powers / (30.0 * L[:, None, None])


# local DOF indices of the two bending planes: x-y (v, theta_z) and x-z (w, theta_y with theta_y = -dw/dx)
_PLANE_XY = np.array([1, 5, 7, 11])
_PLANE_XZ = np.array([2, 4, 8, 10])
_SIGN_XZ = np.array([1.0, -1.0, 1.0, -1.0])


def _place(blocks_xy: NDArray, blocks_xz: NDArray, out: NDArray) -> None:
    out[:, _PLANE_XY[:, None], _PLANE_XY[None, :]] += blocks_xy
    out[:, _PLANE_XZ[:, None], _PLANE_XZ[None, :]] += blocks_xz * np.outer(_SIGN_XZ, _SIGN_XZ)


def _two_node_rod(value: NDArray) -> NDArray[np.float64]:
    """(e, 2, 2) value * [[1, -1], [-1, 1]]."""
    return value[:, None, None] * np.array([[1.0, -1.0], [-1.0, 1.0]])


def element_frames(mesh: BeamMesh) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Element lengths L (e,) [m] and rotations R_BE (e, 3, 3) whose columns are the local x, y, z axes."""
    d = mesh.points[mesh.elements[:, 1]] - mesh.points[mesh.elements[:, 0]]
    L = np.linalg.norm(d, axis=1)
    if np.any(L <= 0.0):
        raise ModelError("beam mesh: an element joins two nodes at the same position; remove zero-length elements")
    ex = d / L[:, None]
    ez = np.cross(ex, mesh.y_axis)
    norm = np.linalg.norm(ez, axis=1)
    if np.any(norm < 1e-8):
        raise ModelError("beam mesh: y_axis is parallel to an element; give a y_axis normal to the beam")
    ez /= norm[:, None]
    ey = np.cross(ez, ex)
    return L, np.stack([ex, ey, ez], axis=2)


def _assemble(mesh: BeamMesh, local: NDArray[np.float64], R_BE: NDArray[np.float64]) -> sp.csr_matrix:
    """Rotate (e, 12, 12) local element matrices to body axes and sum them into a sparse matrix."""
    T = np.zeros((len(R_BE), 12, 12))
    for block in range(4):
        T[:, 3 * block : 3 * block + 3, 3 * block : 3 * block + 3] = R_BE.transpose(0, 2, 1)
    global_blocks = np.einsum("eji,ejk,ekl->eil", T, local, T)
    dofs = (6 * mesh.elements[:, :, None] + np.arange(6)).reshape(-1, 12)
    rows = np.repeat(dofs, 12, axis=1).ravel()
    cols = np.tile(dofs, (1, 12)).ravel()
    n = 6 * len(mesh.points)
    matrix = sp.coo_matrix((global_blocks.ravel(), (rows, cols)), shape=(n, n)).tocsr()
    return ((matrix + matrix.T) * 0.5).tocsr()


def beam_matrices(mesh: BeamMesh, material: Material) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Mass [kg, kg m, kg m^2] and stiffness [N/m, N, N m] matrices (6n x 6n, sparse) of a frame mesh.

    Stiffness: axial E A / L, torsion G J / L, bending in the x-y plane with E Iz and in the x-z plane
    with E Iy; Timoshenko meshes add shear flexibility through Phi = 12 E I / (G k A L^2).
    Mass: consistent (rho A for translation, rho (Iy + Iz) for torsion), Przemieniecki (11.42).
    """
    sec, E, G, rho = mesh.section, material.E, material.G, material.density
    L, R_BE = element_frames(mesh)
    if mesh.kind == "timoshenko":
        phi_y = 12.0 * E * sec.Iz / (G * sec.shear_coefficient * sec.area * L**2)
        phi_z = 12.0 * E * sec.Iy / (G * sec.shear_coefficient * sec.area * L**2)
    else:
        phi_y = phi_z = np.zeros_like(L)
    K = np.zeros((len(L), 12, 12))
    axial, torsion = np.array([0, 6]), np.array([3, 9])
    K[:, axial[:, None], axial] = _two_node_rod(E * sec.area / L)
    K[:, torsion[:, None], torsion] = _two_node_rod(G * sec.J / L)
    _place(_bending_blocks(E * sec.Iz, L, phi_y), _bending_blocks(E * sec.Iy, L, phi_z), K)
    M = np.zeros((len(L), 12, 12))
    rod_mass = (L / 6.0)[:, None, None] * np.array([[2.0, 1.0], [1.0, 2.0]])
    M[:, axial[:, None], axial] = rho * sec.area * rod_mass
    M[:, torsion[:, None], torsion] = rho * (sec.Iy + sec.Iz) * rod_mass
    hermite = _hermite_mass(rho * sec.area, L)
    _place(hermite, hermite, M)
    return _assemble(mesh, M, R_BE), _assemble(mesh, K, R_BE)


def beam_geometric_stiffness(mesh: BeamMesh, axial_forces: ArrayLike) -> sp.csr_matrix:
    """Geometric stiffness [N/m, N, N m] (6n x 6n) of the frame under element axial forces N (e,) [N],
    tension positive (Przemieniecki 15.31; torsional Wagner terms omitted)."""
    L, R_BE = element_frames(mesh)
    N = np.broadcast_to(np.asarray(axial_forces, float), L.shape)
    blocks = _geometric_blocks(L) * N[:, None, None]
    KG = np.zeros((len(L), 12, 12))
    _place(blocks, blocks, KG)
    return _assemble(mesh, KG, R_BE)


def beam_axial_forces(mesh: BeamMesh, displacement: NDArray[np.float64], material: Material) -> NDArray[np.float64]:
    """Element axial forces N (e,) [N] of a nodal displacement vector (6n,) [m, rad]: E A (u2 - u1) . e_x / L."""
    L, R_BE = element_frames(mesh)
    u = displacement.reshape(-1, 6)[:, :3]
    stretch = np.einsum("ei,ei->e", u[mesh.elements[:, 1]] - u[mesh.elements[:, 0]], R_BE[:, :, 0])
    return material.E * mesh.section.area * stretch / L
