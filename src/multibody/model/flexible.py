"""FlexibleBody: a modal body (floating frame of reference, small elastic deformation about it).

The body frame B sits at the mesh's origin with the mesh's axes; ``position`` and ``orientation``
place it in the world. The elastic displacement of node k is u_k = Phi_k q for the m kept modes
(mass-orthonormal, rigid-body motion removed). Everything the equations of motion need is computed
here once: the modes, their frequencies, the inertia invariants (``multibody.fem.invariants``),
modal damping, and optional geometric stiffening. The Cartesian formulation moves it through the
modal body kind (``multibody.formulation.bodies.modal``), spin stiffening included.

What the body kind reads (all in body axes, SI; m kept modes, q in sqrt(kg) m):

- coordinates: the rigid block (``position``, ``orientation`` of the frame origin O, not the CM) plus q;
- ``invariants.dynamics(q, u)``: the mass matrix M(q) (6+m, 6+m) and the quadratic velocity vector for
  velocities u = (v_O, w in body axes, q'), compiled (energy-consistent: tested by a tumbling body's
  conservation and against particles);
- elastic forces -``modal_stiffness`` q - ``modal_damping`` q' (- Omega^2 ``geometric_stiffness["spin"]`` q, Omega
  the spin about ``spin_axis``);
- each ``FlexibleMarker``: undeformed ``position``, ``orientation`` (R_BM), and ``translation_modes``,
  ``rotation_modes`` (3, m) = T, A: p_BQ = position + T q, small rotation theta = A q (R_BM -> (I + skew(theta))
  R_BM); its Jacobian w.r.t. (v, w, q') is [R_WB, -R_WB skew(p_BQ), R_WB T] for the point, [0, R_WB, R_WB A]
  for the axes;
- ``reference_condition``: "mean_axes" (S_t = S_r = 0) or "tied" (frame fixed to ``reference_nodes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.body import MovingBody
from multibody.model.element import ModelError
from multibody.model.marker import Marker, marker_orientation, numbers
from multibody.model.material import Material

if TYPE_CHECKING:
    import scipy.sparse as sp

METHODS = ("free", "craig_bampton")


class FlexibleMarker(Marker):
    """A marker at one FE node or at the average of a node set (RBE3-style, equal weights).

    ``position`` [m] and ``orientation`` (R_BM) are undeformed, in body axes. The marker's elastic
    motion is linear in the modal coordinates q (m,): translation ``translation_modes @ q`` (3, m)
    [m per unit q] and small rotation ``rotation_modes @ q`` (3, m) [rad per unit q], body axes.
    A single solid node has no rotational DOFs: its marker translates only (rotation modes zero);
    a node set's rotation is the least-squares rigid fit of its nodes' displacements.
    """

    def __init__(
        self,
        name: str,
        body: FlexibleBody,
        nodes: NDArray[np.int64],
        orientation: NDArray[np.float64],
        translation_modes: NDArray[np.float64],
        rotation_modes: NDArray[np.float64],
    ) -> None:
        super().__init__(name, body, body.node_positions[nodes].mean(axis=0), orientation)
        self.nodes = nodes
        self.translation_modes = translation_modes
        self.rotation_modes = rotation_modes


class FlexibleBody(MovingBody):
    """A modal flexible body; build it with ``from_mesh`` or ``from_matrices``.

    Attributes
    ----------
    node_positions : (N, 3) undeformed nodes [m], body axes, in the mesh's order.
    dofs_per_node : 3 (solids: u_x, u_y, u_z) or 6 (beams: and theta_x, theta_y, theta_z).
    modes : (N dofs_per_node, m) mass-orthonormal mode shapes [1/sqrt(kg)].
    frequencies : (m,) natural frequencies of the kept modes [Hz]: of the free body, or of the body
        held at ``reference_nodes``; for ``"craig_bampton"`` those of the reduced basis (Ritz values).
    reference_condition : ``"mean_axes"`` (default: modes M-orthogonal to rigid motion, rigid modes
        dropped) or ``"tied"`` (``reference_nodes`` given: the frame is fixed to those nodes, whose
        DOFs are held in every mode; a beam node or three non-collinear solid nodes; or matrices
        whose stiffness already holds the body).
    modal_stiffness, modal_damping : (m, m) diag(omega^2) [1/s^2] and the damping matrix [1/s]: from
        ``damping_ratio`` (one or per mode) or ``rayleigh=(alpha, beta)``; given neither, ADAMS's
        default (1 % of critical below 100 Hz, 10 % to 1 kHz, critical above:
        ``multibody.fem.reduction.default_damping_ratios``); ``damping_ratio=0`` for none.
    invariants : ``multibody.fem.invariants.ModalInvariants``.
    geometric_stiffness : name -> (m, m) modal geometric stiffness of a reference load case (see
        ``add_spin_stiffening``, ``add_axial_stiffening``).
    rigid_sets : node index arrays tied to move rigidly (Nastran RBE2; the ``rigid_sets=[[...], ...]``
        argument): a flange or hub that stiffens the part, eliminated before the reduction
        (``multibody.fem.rigid_sets``); a marker at such a set (``add_marker(name, node=set)``) moves
        with it exactly. Without it a node set's marker averages its nodes (RBE3-style).
    """

    kind = "flexible body"

    def __init__(
        self,
        name: str,
        mass_matrix: sp.spmatrix | NDArray,
        stiffness_matrix: sp.spmatrix | NDArray,
        node_positions: ArrayLike,
        n_modes: int,
        dofs_per_node: int = 3,
        interface: Sequence[int] | None = None,
        method: str | None = None,
        reference_nodes: Sequence[int] | None = None,
        position: ArrayLike | None = None,
        orientation: ArrayLike | None = None,
        velocity: ArrayLike | None = None,
        angular_velocity: ArrayLike | None = None,
        exact: Sequence[str] = (),
        damping_ratio: float | ArrayLike | None = None,
        rayleigh: tuple[float, float] | None = None,
        mesh: object = None,
        material: Material | None = None,
        rigid_sets: Sequence[Sequence[int]] = (),
    ) -> None:
        from multibody.fem.invariants import modal_invariants
        from multibody.fem.reduction import default_damping_ratios, modal_damping, reduce_model
        from multibody.fem.rigid_sets import tie_rigid_sets

        super().__init__(name)
        owner = self.describe()
        if dofs_per_node not in (3, 6):
            raise ModelError(f"{owner}: dofs_per_node must be 3 (solid nodes) or 6 (beam nodes), got {dofs_per_node!r}")
        self.dofs_per_node = int(dofs_per_node)
        points = numbers(owner, "node_positions", node_positions)
        if points.ndim != 2 or points.shape[1] != 3 or not np.all(np.isfinite(points)):
            raise ModelError(f"{owner}: node_positions must be an (N, 3) array of finite numbers [m]")
        self.node_positions = points
        M = _symmetric_matrix(owner, "mass_matrix", mass_matrix, len(points) * self.dofs_per_node)
        K = _symmetric_matrix(owner, "stiffness_matrix", stiffness_matrix, len(points) * self.dofs_per_node)
        if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) or n_modes <= 0:
            raise ModelError(f"{owner}: n_modes must be a positive integer (the number of kept modes), got {n_modes!r}")
        self.method = method or ("craig_bampton" if interface is not None else "free")
        if self.method not in METHODS:
            raise ModelError(f"{owner}: method must be one of {METHODS}, got {method!r}")
        self.interface = None if interface is None else self._node_indices(interface, "interface")
        self.reference_nodes = (
            None if reference_nodes is None else self._node_indices(reference_nodes, "reference_nodes")
        )
        if self.method == "craig_bampton" and self.interface is None:
            raise ModelError(f"{owner}: method 'craig_bampton' needs interface=[node indices]; or use method='free'")
        self.set_initial_conditions(position, orientation, velocity, angular_velocity, exact)
        boundary = self.interface if self.method == "craig_bampton" else None
        self.rigid_sets = tuple(self._node_indices(nodes, f"rigid set {k}") for k, nodes in enumerate(rigid_sets))
        tie = tie_rigid_sets(points, self.dofs_per_node, self.rigid_sets, owner) if self.rigid_sets else None
        omega2, modes, self.reference_condition = reduce_model(
            M, K, points, self.dofs_per_node, int(n_modes), boundary, self.reference_nodes, owner, tie
        )
        self.modes = modes
        self.modal_stiffness = np.diag(np.clip(omega2, 0.0, None))
        self.frequencies = np.sqrt(np.clip(omega2, 0.0, None)) / (2.0 * np.pi)
        if damping_ratio is None and rayleigh is None:
            damping_ratio = default_damping_ratios(self.frequencies)
        try:
            self.modal_damping = modal_damping(2.0 * np.pi * self.frequencies, damping_ratio, rayleigh)
        except ModelError as error:
            raise ModelError(f"{owner}: {error}") from None
        self.invariants = modal_invariants(M, modes, points, self.dofs_per_node)
        self.mass_matrix, self.stiffness_matrix = M, K
        self.geometric_stiffness: dict[str, NDArray[np.float64]] = {}
        self.spin_axis: NDArray[np.float64] | None = None
        self.mesh, self.material = mesh, material

    @classmethod
    def from_matrices(cls, name: str, *matrices_and_nodes: object, **options: object) -> FlexibleBody:
        """A body from an FE program's mass [kg] and stiffness [N/m] matrices in body axes, SI units,
        DOFs node-major (node k owns rows dofs_per_node k ...), e.g. from ``read_abaqus_matrix``:
        ``from_matrices(name, mass_matrix, stiffness_matrix, node_positions, n_modes, dofs_per_node=3,
        interface=..., method=..., reference_nodes=..., position=..., orientation=..., velocity=...,
        angular_velocity=..., exact=..., damping_ratio=..., rayleigh=..., rigid_sets=...)``, the constructor's arguments:
        ``position`` [m] and ``orientation`` place the body frame (the mesh origin and axes) in the world,
        ``velocity`` [m/s] and ``angular_velocity`` [rad/s] (world) start it moving, as for a RigidBody."""
        return cls(name, *matrices_and_nodes, **options)  # type: ignore[arg-type]

    @classmethod
    def from_mesh(
        cls,
        name: str,
        mesh: object,
        material: Material,
        n_modes: int,
        interface: Sequence[int] | None = None,
        method: str | None = None,
        **options: object,
    ) -> FlexibleBody:
        """A body from a mesh: a ``SolidMesh`` (``multibody.fem.solids``: box_mesh, tube_mesh, read_mesh),
        a ``BeamMesh`` (``multibody.fem.beams.beam_line``), a meshio Mesh or a mesh file path.
        ``material`` is a ``Material`` (E, nu, density). ``method`` "free" (default without interface)
        or "craig_bampton" (default with ``interface`` node indices: ``n_modes`` fixed-interface modes
        plus one constraint mode per interface DOF, less the 6 rigid modes in mean axes). ``options``: reference_nodes,
        position, orientation, velocity, angular_velocity, exact, damping_ratio, rayleigh, rigid_sets."""
        import meshio

        from multibody.fem.beams import BeamMesh, beam_matrices
        from multibody.fem.solids import SolidMesh, read_mesh, solid_matrices, solid_mesh_from_meshio

        if not isinstance(material, Material):
            raise ModelError(
                f"flexible body '{name}': material must be a multibody Material(E, nu, density), got {material!r}"
            )
        if isinstance(mesh, (str, Path)):
            mesh = read_mesh(mesh)
        elif isinstance(mesh, meshio.Mesh):
            mesh = solid_mesh_from_meshio(mesh, f"flexible body '{name}': mesh")
        if isinstance(mesh, BeamMesh):
            M, K = beam_matrices(mesh, material)
            points, dofs_per_node = mesh.points, 6
        elif isinstance(mesh, SolidMesh):
            M, K = solid_matrices(mesh, material)
            points, dofs_per_node = mesh.points, 3
        else:
            raise ModelError(
                f"flexible body '{name}': mesh must be a SolidMesh, BeamMesh, meshio Mesh or file path, got {mesh!r}"
            )
        return cls(
            name, M, K, points, n_modes, dofs_per_node, interface, method, mesh=mesh, material=material, **options
        )  # type: ignore[arg-type]

    def _node_indices(self, nodes: object, what: str) -> NDArray[np.int64]:
        indices = np.atleast_1d(np.asarray(nodes))
        n = len(self.node_positions)
        if indices.size == 0 or indices.dtype.kind not in "iu" or indices.ndim != 1:
            raise ModelError(f"{self.describe()}: {what} must be 0-based node indices (integers), got {nodes!r}")
        if indices.min() < 0 or indices.max() >= n:
            raise ModelError(
                f"{self.describe()}: {what} node index {int(indices[(indices < 0) | (indices >= n)][0])} is out of "
                f"range; the body has {n} nodes, numbered 0 .. {n - 1} in the mesh's order"
            )
        if len(np.unique(indices)) != len(indices):
            raise ModelError(f"{self.describe()}: {what} lists a node twice: {indices.tolist()}")
        return indices.astype(np.int64)

    def add_marker(  # type: ignore[override]
        self,
        name: str,
        node: int | Sequence[int],
        z_axis: ArrayLike | None = None,
        x_axis: ArrayLike | None = None,
        orientation: ArrayLike | None = None,
        euler_angles: ArrayLike | None = None,
    ) -> FlexibleMarker:
        """Fix a marker at FE node ``node`` (0-based, mesh order) or at the average of a node set
        (a list of indices, RBE3-style equal weights); axes as in ``Body.add_marker`` (body axes)."""
        owner = f"marker '{name}' on {self.describe()}"
        if name in self.markers:
            raise ModelError(f"{owner}: {self.describe()} already has a marker named '{name}'; choose another name")
        nodes = self._node_indices(node, f"marker '{name}'")
        R_BM = marker_orientation(owner, z_axis, x_axis, orientation, euler_angles)
        modes = self.modes.reshape(len(self.node_positions), self.dofs_per_node, -1)[nodes]
        translation = modes[:, :3].mean(axis=0)
        if len(nodes) == 1:
            rotation = modes[0, 3:] if self.dofs_per_node == 6 else np.zeros_like(translation)
        else:
            rotation = _fitted_rotation(owner, self.node_positions[nodes], modes[:, :3])
        marker = FlexibleMarker(name, self, nodes, R_BM, translation, rotation)
        self.markers[name] = marker
        return marker

    def node_displacements(self, nodes: Sequence[int], modal_coordinates: ArrayLike) -> NDArray[np.float64]:
        """Elastic displacements [m], body axes, of ``nodes`` (0-based): (..., len(nodes), 3) for modal
        coordinates (..., m) (one state or a time series)."""
        indices = self._node_indices(nodes, "nodes")
        q = np.asarray(modal_coordinates, float)
        shapes = self.modes.reshape(len(self.node_positions), self.dofs_per_node, -1)[indices, :3]
        return np.einsum("kaj,...j->...ka", shapes, q)

    @cached_property
    def stress_modes(self) -> NDArray[np.float64]:
        """Nodal stress of each mode (N, 6, m) [Pa per unit q], Voigt order (xx, yy, zz, yz, xz, xy), body
        axes; solid meshes, computed on first use (``multibody.fem.solids.nodal_stress_modes``). The
        stress at q is ``stress_modes @ q``; ``multibody.fem.solids.von_mises`` gives the equivalent."""
        from multibody.fem.solids import SolidMesh, nodal_stress_modes

        if not isinstance(self.mesh, SolidMesh):
            raise ModelError(f"{self.describe()}: stress modes are computed for solid meshes (from_mesh of a solid)")
        return nodal_stress_modes(self.mesh, self.material, self.modes)  # type: ignore[arg-type]

    def add_spin_stiffening(self, axis: ArrayLike, held_nodes: Sequence[int]) -> NDArray[np.float64]:
        """Modal geometric stiffness (m, m) of a unit spin (1 rad/s) about ``axis`` through the body origin,
        the body held at ``held_nodes`` (bodies made from_mesh); stored as ``geometric_stiffness["spin"]``:
        K_ff + Omega^2 K_G,spin is the stiffness at spin rate Omega [rad/s]. In a simulation Omega is the
        body's angular velocity about ``axis`` (``spin_axis``, body axes) at each instant."""
        from multibody.fem.stiffening import spin_stiffening

        if self.mesh is None:
            raise ModelError(f"{self.describe()}: spin stiffening needs the mesh; build the body with from_mesh")
        held = self._node_indices(held_nodes, "held_nodes")
        args = (self.mass_matrix, self.stiffness_matrix, self.modes, axis, held, self.describe())
        self.geometric_stiffness["spin"] = spin_stiffening(self.mesh, self.material, *args)  # type: ignore[arg-type]
        self.spin_axis = np.asarray(axis, float) / np.linalg.norm(axis)
        return self.geometric_stiffness["spin"]

    def add_axial_stiffening(self) -> NDArray[np.float64]:
        """Modal geometric stiffness (m, m) [1/(s^2 N)] of 1 N tension in every element (beam meshes);
        stored as ``geometric_stiffness["axial"]``."""
        from multibody.fem.beams import BeamMesh
        from multibody.fem.stiffening import axial_stiffening

        if not isinstance(self.mesh, BeamMesh):
            raise ModelError(
                f"{self.describe()}: axial stiffening is defined for beam meshes (from_mesh of a BeamMesh)"
            )
        self.geometric_stiffness["axial"] = axial_stiffening(self.mesh, self.modes)
        return self.geometric_stiffness["axial"]

    @property
    def mass(self) -> float:
        """Mass of the body [kg] (the FE mass matrix's rigid-translation quadratic form)."""
        return self.invariants.mass

    @property
    def inertia(self) -> NDArray[np.float64]:
        """Inertia (3, 3) [kg m^2] of the undeformed body about its frame origin, body axes."""
        return self.invariants.inertia


def _symmetric_matrix(owner: str, what: str, matrix: object, size: int) -> sp.csr_matrix:
    """``matrix`` as a finite, symmetric (size, size) CSR matrix, or a ModelError naming ``owner``."""
    import scipy.sparse as sp

    if sp.issparse(matrix):
        A = sp.csr_matrix(matrix, dtype=float)
    else:
        A = sp.csr_matrix(numbers(owner, what, matrix))  # type: ignore[arg-type]
    if A.shape != (size, size):
        raise ModelError(
            f"{owner}: {what} is {A.shape[0]} x {A.shape[1]}, expected {size} x {size} (nodes x dofs_per_node); "
            "check node_positions and dofs_per_node"
        )
    if not np.all(np.isfinite(A.data)):
        raise ModelError(f"{owner}: {what} holds non-finite entries")
    scale = abs(A).max()
    asymmetry = abs(A - A.T).max() if A.nnz else 0.0
    if asymmetry > 1e-8 * scale:
        raise ModelError(
            f"{owner}: {what} is not symmetric (largest |A - A^T| = {asymmetry:g} against |A| = {scale:g}); "
            "give the symmetric matrix of a conservative FE model"
        )
    return ((A + A.T) * 0.5).tocsr()


def _fitted_rotation(owner: str, points: NDArray[np.float64], translation_modes: NDArray[np.float64]) -> NDArray:
    """(3, m) small rotation per mode that best fits the node set's displacements (least squares):
    theta = H^-1 sum_k d_k x u_k with d_k = x_k - centroid, H = sum_k (d_k.d_k I - d_k d_k^T)."""
    from multibody.fem.invariants import LEVI_CIVITA

    d = points - points.mean(axis=0)
    H = np.einsum("ka,ka->", d, d) * np.eye(3) - d.T @ d
    if np.linalg.matrix_rank(H, tol=1e-10 * max(np.trace(H), 1e-300)) < 3:
        raise ModelError(f"{owner}: the node set is collinear, so it defines no rotation; add a node off the line")
    moment = np.einsum("abc,kb,kcj->aj", LEVI_CIVITA, d, translation_modes - translation_modes.mean(axis=0))
    return np.linalg.solve(H, moment)
