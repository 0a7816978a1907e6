"""Solid meshes (tetrahedra, hexahedra; linear and quadratic) and their M and K, assembled by scikit-fem.

A ``SolidMesh`` holds every FE node (corners and, for quadratic elements, mid-side, face and
interior nodes) in one array; node k owns DOFs 3k .. 3k+2 (u_x, u_y, u_z) of the matrices
``solid_matrices`` returns. Quadratic elements sit on straight-edged (affine) geometry: the
mid-side nodes of a file are matched by position to the nodes scikit-fem places at edge midpoints.
Linear elements (tet4, hex8) are much too stiff in bending (shear locking: a slender hex8 cantilever
is ~85 % too stiff with 2 elements through the thickness); use quadratic elements for bending parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError
from multibody.model.material import Material

ELEMENTS = {
    "tet4": ("tetra", "ElementTetP1"),
    "tet10": ("tetra", "ElementTetP2"),
    "hex8": ("hexahedron", "ElementHex1"),
    "hex20": ("hexahedron", "ElementHexS2"),
    "hex27": ("hexahedron", "ElementHex2"),
}
"""Element name -> (meshio corner cell type, scikit-fem element class)."""

MESHIO_CELLS = {
    "tetra": "tet4",
    "tetra10": "tet10",
    "hexahedron": "hex8",
    "hexahedron20": "hex20",
    "hexahedron27": "hex27",
}
"""meshio cell type -> element name (the first 4 or 8 nodes of each cell are its corners)."""


@dataclass(frozen=True)
class SolidMesh:
    """``points`` (n, 3) [m] all FE nodes in body axes; ``cells`` (c, 4 | 8) corner node indices in
    meshio/VTK order; ``element`` one of ``ELEMENTS``."""

    points: NDArray[np.float64]
    cells: NDArray[np.int64]
    element: str


def _check_element(element: str) -> None:
    if element not in ELEMENTS:
        raise ModelError(f"solid mesh: element must be one of {tuple(ELEMENTS)}, got {element!r}")


def _skfem_mesh(points: NDArray, cells: NDArray, element: str):
    """The linear-geometry scikit-fem mesh of the corner nodes (skfem orders them its own way)."""
    import meshio
    from skfem.io.meshio import from_meshio

    corners = np.unique(cells)
    renumber = np.full(len(points), -1)
    renumber[corners] = np.arange(len(corners))
    cell_type = ELEMENTS[element][0]
    return from_meshio(meshio.Mesh(points[corners], [(cell_type, renumber[cells])]))


def _basis(skmesh, element: str, components: int):
    import skfem

    scalar = getattr(skfem, ELEMENTS[element][1])()
    return skfem.Basis(skmesh, skfem.ElementVector(scalar) if components == 3 else scalar)


def _node_dofs(basis) -> NDArray[np.int64]:
    """(n_nodes, components) DOF indices of each FE node of a basis (corners, edges, faces, interiors)."""
    groups = [basis.nodal_dofs, basis.edge_dofs, basis.facet_dofs, basis.interior_dofs]
    return np.hstack([g for g in groups if g.size]).T


def box_mesh(
    lengths: ArrayLike, divisions: ArrayLike, element: str = "hex8", origin: ArrayLike = (0.0, 0.0, 0.0)
) -> SolidMesh:
    """A box of ``lengths`` (3,) [m] from ``origin``, ``divisions`` (3,) elements per side.

    Tetrahedral boxes split each hexahedron into tetrahedra (scikit-fem's ``MeshTet.init_tensor``).
    A plate is a box with one short side; a beam a box with one long side."""
    import skfem

    _check_element(element)
    lengths, divisions = np.asarray(lengths, float), np.asarray(divisions, int)
    if lengths.shape != (3,) or divisions.shape != (3,) or np.any(lengths <= 0) or np.any(divisions < 1):
        raise ModelError(f"box mesh: need 3 positive lengths and 3 divisions >= 1, got {lengths}, {divisions}")
    axes = [o + np.linspace(0.0, a, d + 1) for o, a, d in zip(np.asarray(origin, float), lengths, divisions)]
    kind = skfem.MeshTet if element.startswith("tet") else skfem.MeshHex
    return _from_skfem(kind.init_tensor(*axes), element)


def tube_mesh(
    length: float, d_out: float, d_in: float, n_axial: int, n_around: int, n_radial: int = 1, element: str = "hex8"
) -> SolidMesh:
    """A circular tube along the body x axis from x = 0 to ``length`` [m], hexahedra on an
    (x, r, angle) grid: ``n_axial`` x ``n_radial`` x ``n_around`` elements (quadrilateral facets
    approximate the circle, so the area is short of the exact one by O(1/n_around^2))."""
    import skfem

    _check_element(element)
    if element.startswith("tet") or not 0.0 < d_in < d_out or n_around < 3:
        raise ModelError("tube mesh: needs a hexahedral element, 0 < d_in < d_out and n_around >= 3")
    grid = skfem.MeshHex.init_tensor(
        np.linspace(0.0, length, n_axial + 1),
        np.linspace(d_in / 2.0, d_out / 2.0, n_radial + 1),
        np.linspace(0.0, 2.0 * np.pi, n_around + 1),
    )
    from scipy.spatial import cKDTree

    x, r, angle = grid.p
    seam = np.isclose(angle, 2.0 * np.pi)
    index = np.full(len(x), -1)
    index[~seam] = np.arange(np.count_nonzero(~seam))
    start = np.flatnonzero(np.isclose(angle, 0.0))
    _, nearest = cKDTree(np.column_stack([x[start], r[start]])).query(np.column_stack([x[seam], r[seam]]))
    index[seam] = index[start[nearest]]  # the seam at 2 pi is the start at angle 0
    p = np.vstack([x, r * np.cos(angle), r * np.sin(angle)])[:, ~seam]
    return _from_skfem(skfem.MeshHex(p, index[grid.t]), element)


def _from_skfem(skmesh, element: str) -> SolidMesh:
    """A SolidMesh whose nodes are the FE nodes of ``element`` on the scikit-fem mesh, corners first."""
    from skfem.io.meshio import to_meshio

    basis = _basis(skmesh, element, 3)
    nodes = basis.doflocs[:, _node_dofs(basis)[:, 0]].T
    corner_cells = to_meshio(skmesh).cells[0].data  # corners keep their skfem numbers: nodes 0..n_vertices-1
    return SolidMesh(np.ascontiguousarray(nodes), np.asarray(corner_cells, np.int64), element)


def read_mesh(path: str | Path) -> SolidMesh:
    """Read a solid mesh with meshio (Gmsh .msh, Abaqus .inp, VTK .vtk/.vtu, ...): the first
    tetrahedral or hexahedral cell block, its nodes in the file's order."""
    import meshio

    try:
        data = meshio.read(path)
    except (Exception, SystemExit) as error:  # noqa: BLE001 (meshio raises many types, and exits on unknown files)
        raise ModelError(
            f"mesh file '{path}': meshio cannot read it ({error}); give a .msh, .inp or .vtu file"
        ) from None
    return solid_mesh_from_meshio(data, f"mesh file '{path}'")


def solid_mesh_from_meshio(data: object, source: str) -> SolidMesh:
    """The tetrahedral or hexahedral cells of a meshio Mesh (several blocks of one type, e.g. Gmsh's
    physical volumes, are joined), its nodes in the mesh's order; ``source`` names the mesh in errors."""
    blocks = [block for block in data.cells if block.type in MESHIO_CELLS]  # type: ignore[attr-defined]
    if not blocks:
        cell_types = [block.type for block in data.cells]  # type: ignore[attr-defined]
        raise ModelError(f"{source}: no tetrahedra or hexahedra; cell types are {cell_types}")
    types = sorted({block.type for block in blocks})
    if len(types) > 1:
        raise ModelError(f"{source}: mixes solid cell types {types}; mesh the body with one element type")
    element = MESHIO_CELLS[types[0]]
    n_corners = 4 if element.startswith("tet") else 8
    cells = np.vstack([np.asarray(block.data[:, :n_corners]) for block in blocks])
    return SolidMesh(np.asarray(data.points, float)[:, :3], cells, element)  # type: ignore[attr-defined]


def _basis_and_permutation(mesh: SolidMesh, components: int = 3):
    """The vector (3) or scalar (1) basis of the mesh and the permutation p with node-major DOF
    i = scikit-fem DOF p[i]."""
    from scipy.spatial import cKDTree

    basis = _basis(_skfem_mesh(mesh.points, mesh.cells, mesh.element), mesh.element, components)
    node_dofs = _node_dofs(basis)
    distance, node = cKDTree(mesh.points).query(basis.doflocs[:, node_dofs[:, 0]].T)
    size = np.ptp(mesh.points, axis=0).max()
    if np.any(distance > 1e-8 * size) or len(np.unique(node)) != len(mesh.points):
        raise ModelError(
            "solid mesh: the nodes do not match the element's nodes at corners and straight edge midpoints; "
            "give straight-edged quadratic elements and no unused nodes"
        )
    permutation = np.empty(components * len(mesh.points), np.int64)
    permutation[(components * node[:, None] + np.arange(components)).ravel()] = node_dofs.ravel()
    return basis, permutation


def solid_matrices(mesh: SolidMesh, material: Material) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Consistent mass [kg] and stiffness [N/m] matrices (3n x 3n, sparse, node-major DOFs) of the
    mesh: linear elasticity (Lame parameters from E, nu) and rho u.v, by scikit-fem."""
    from skfem import BilinearForm, asm
    from skfem.helpers import dot
    from skfem.models.elasticity import linear_elasticity

    basis, permutation = _basis_and_permutation(mesh)
    lam, mu = material.lame_parameters()
    density = material.density
    K = asm(linear_elasticity(lam, mu), basis)
    M = asm(BilinearForm(lambda u, v, w: density * dot(u, v)), basis)
    return M[permutation][:, permutation].tocsr(), K[permutation][:, permutation].tocsr()


def solid_geometric_stiffness(mesh: SolidMesh, material: Material, displacement: NDArray[np.float64]) -> sp.csr_matrix:
    """Geometric (initial-stress) stiffness [N/m] (3n x 3n, node-major) of the prestress of a static
    displacement (3n,) [m]: K_G = int sigma_ij (du_k/dx_i)(dv_k/dx_j) dV with sigma = 2 mu eps + lambda
    tr(eps) I (Bathe, *Finite Element Procedures*, 1996, sec. 6.3, the linearized initial-stress term)."""
    from skfem import BilinearForm, asm
    from skfem.helpers import grad

    basis, permutation = _basis_and_permutation(mesh)
    stress = _stress_at_quadrature_points(basis, permutation, material, displacement)

    @BilinearForm
    def initial_stress(u, v, w):
        return np.einsum("ij...,ki...,kj...->...", w["stress"], grad(u), grad(v))

    KG = asm(initial_stress, basis, stress=stress)
    return KG[permutation][:, permutation].tocsr()


def _stress_at_quadrature_points(basis, permutation: NDArray, material: Material, displacement: NDArray) -> NDArray:
    """Cauchy stress (3, 3, elements, points) [Pa] of a node-major displacement (3n,) [m]:
    sigma = 2 mu eps + lambda tr(eps) I, eps = (grad u + grad u^T) / 2."""
    lam, mu = material.lame_parameters()
    u = np.empty(basis.N)
    u[permutation] = displacement
    gradient = basis.interpolate(u).grad  # (3, 3, elements, points): du_k/dx_i
    strain = 0.5 * (gradient + np.swapaxes(gradient, 0, 1))
    return 2.0 * mu * strain + lam * np.einsum("ii...->...", strain) * np.eye(3)[:, :, None, None]


VOIGT = ((0, 0), (1, 1), (2, 2), (1, 2), (0, 2), (0, 1))
"""Stress components in Voigt order: xx, yy, zz, yz, xz, xy."""


def nodal_stress_modes(mesh: SolidMesh, material: Material, modes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Stress of each mode at the nodes (n, 6, m) [Pa per unit modal coordinate], Voigt order
    (xx, yy, zz, yz, xz, xy), body axes: the element stresses L2-projected on the continuous
    displacement space (exact for stress fields in that space, smoothed across element faces
    otherwise). The stress at modal coordinates q is ``nodal_stress_modes @ q``."""
    from scipy.sparse.linalg import splu
    from skfem import BilinearForm, LinearForm, asm

    vector_basis, vector_permutation = _basis_and_permutation(mesh, 3)
    scalar_basis, scalar_permutation = _basis_and_permutation(mesh, 1)
    projection = splu(asm(BilinearForm(lambda u, v, w: u * v), scalar_basis).tocsc())
    load = LinearForm(lambda v, w: w["value"] * v)
    result = np.empty((len(mesh.points), 6, modes.shape[1]))
    for j, mode in enumerate(modes.T):
        stress = _stress_at_quadrature_points(vector_basis, vector_permutation, material, mode)
        rhs = np.column_stack([asm(load, scalar_basis, value=stress[a, b]) for a, b in VOIGT])
        result[:, :, j] = projection.solve(rhs)[scalar_permutation]
    return result


def von_mises(stress: NDArray[np.float64]) -> NDArray[np.float64]:
    """Von Mises equivalent stress [Pa] (...) of Voigt stresses (..., 6) [Pa]:
    sqrt(((s_xx - s_yy)^2 + (s_yy - s_zz)^2 + (s_zz - s_xx)^2) / 2 + 3 (s_yz^2 + s_xz^2 + s_xy^2))."""
    xx, yy, zz, yz, xz, xy = np.moveaxis(np.asarray(stress), -1, 0)
    return np.sqrt(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3.0 * (yz**2 + xz**2 + xy**2))
