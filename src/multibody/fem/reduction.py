"""Modal reduction of a finite-element model: free-free modes, Craig-Bampton, orthonormalization, damping.

Every basis returned here is mass-orthonormal (Phi^T M Phi = I) with Phi^T K Phi = diag(omega^2)
and holds no rigid-body motion: the columns are M-orthogonal to the six rigid-body modes when the
basis can represent them, which makes the body frame a mean-axes (Tisserand/Buckens) frame to
first order in the deformation (see ``multibody.fem.invariants``).

References: R. R. Craig, M. C. C. Bampton, "Coupling of substructures for dynamic analyses",
AIAA J. 6 (1968) 1313-1319; R. R. Craig, A. J. Kurdila, *Fundamentals of Structural Dynamics*,
2nd ed., Wiley 2006, ch. 17.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError

if TYPE_CHECKING:
    from multibody.fem.rigid_sets import RigidSets

DENSE_LIMIT = 400
"""Models with fewer DOFs than this are solved densely (scipy.linalg.eigh); larger ones by eigsh."""


def rigid_body_modes(points: NDArray[np.float64], dofs_per_node: int) -> NDArray[np.float64]:
    """(n dofs_per_node, 6) rigid-body displacement fields: translations along x, y, z [m per m],
    then small rotations about the body axes through the origin [m per rad], u_k = theta x p_k
    (rotational DOFs of 6-DOF nodes get theta itself)."""
    n = len(points)
    modes = np.zeros((n, dofs_per_node, 6))
    modes[:, :3, :3] = np.eye(3)
    # theta x p = -skew(p) theta
    x, y, z = points.T
    modes[:, 0, 4], modes[:, 0, 5] = z, -y
    modes[:, 1, 3], modes[:, 1, 5] = -z, x
    modes[:, 2, 3], modes[:, 2, 4] = y, -x
    if dofs_per_node == 6:
        modes[:, 3:, 3:] = np.eye(3)
    return modes.reshape(n * dofs_per_node, 6)


def _shift(M: sp.spmatrix, K: sp.spmatrix) -> float:
    """A negative shift [1/s^2] for shift-invert: small against the stiffness scale, so K - sigma M is
    positive definite and well conditioned even for a free body."""
    return -1e-6 * abs(K.diagonal().sum()) / abs(M.diagonal().sum())


def lowest_modes(M: sp.spmatrix, K: sp.spmatrix, count: int, owner: str) -> tuple[NDArray, NDArray]:
    """The ``count`` lowest eigenpairs of K phi = omega^2 M phi: (omega^2 (count,), Phi (n, count)),
    M-normalized. Shift-invert Lanczos (scipy eigsh) about a small negative shift, dense below
    ``DENSE_LIMIT`` DOFs."""
    n = M.shape[0]
    if count > n:
        raise ModelError(f"{owner}: asks for {count} modes of a model with {n} DOFs; ask for fewer modes")
    if n < DENSE_LIMIT or count >= n - 1:
        omega2, modes = scipy.linalg.eigh(_dense(K), _dense(M), subset_by_index=(0, count - 1))
        return omega2, modes
    from scipy.sparse.linalg import eigsh

    omega2, modes = eigsh(sp.csc_matrix(K), k=count, M=sp.csc_matrix(M), sigma=_shift(M, K), which="LM")
    order = np.argsort(omega2)
    modes = modes[:, order]
    modes /= np.sqrt(np.einsum("ij,ij->j", modes, M @ modes))
    return omega2[order], modes


def _dense(matrix: sp.spmatrix | NDArray) -> NDArray[np.float64]:
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def _drop_rigid(M: sp.spmatrix, rigid: NDArray, omega2: NDArray, modes: NDArray) -> tuple[NDArray, NDArray]:
    """Remove the M-normalized columns of ``modes`` that are mostly rigid-body motion."""
    if rigid.shape[1] == 0:
        return omega2, modes
    M_rr = rigid.T @ (M @ rigid)
    coupling = rigid.T @ (M @ modes)
    rigid_fraction = np.einsum("ij,ij->j", coupling, np.linalg.solve(M_rr, coupling))
    elastic = rigid_fraction < 0.5
    return omega2[elastic], modes[:, elastic]


def free_modes(M: sp.spmatrix, K: sp.spmatrix, n_modes: int, rigid: NDArray, owner: str) -> tuple[NDArray, NDArray]:
    """The ``n_modes`` lowest elastic free-free modes: (omega^2 (m,) [1/s^2], Phi (n, m) [1/sqrt(kg)]),
    the rigid-body modes (``rigid``, from ``rigid_body_modes``) dropped."""
    omega2, modes = lowest_modes(M, K, min(n_modes + rigid.shape[1], M.shape[0]), owner)
    omega2, modes = _drop_rigid(M, rigid, omega2, modes)
    if len(omega2) < n_modes:
        raise ModelError(f"{owner}: the model has only {len(omega2)} elastic modes; ask for at most that many")
    return omega2[:n_modes], modes[:, :n_modes]


def craig_bampton_basis(
    M: sp.spmatrix, K: sp.spmatrix, interface_dofs: ArrayLike, n_modes: int, owner: str
) -> NDArray[np.float64]:
    """The Craig-Bampton basis T (n, n_modes + n_b): ``n_modes`` fixed-interface normal modes (interface
    DOFs held, M-normalized) followed by one static constraint mode per interface DOF (unit
    displacement there, the other interface DOFs held: psi_i = -K_ii^-1 K_ib). Column n_modes + j
    is 1 at interface DOF j and every other column is 0 at all interface DOFs."""
    from scipy.sparse.linalg import splu

    n = M.shape[0]
    boundary = np.asarray(interface_dofs, np.int64)
    interior = np.setdiff1d(np.arange(n), boundary)
    K, M = sp.csr_matrix(K), sp.csr_matrix(M)
    K_ii = K[interior][:, interior].tocsc()
    try:
        factor = splu(K_ii)
    except RuntimeError:
        raise ModelError(
            f"{owner}: the interface nodes do not hold the body still (the stiffness with them fixed is singular); "
            "choose interface nodes that restrain all rigid motion (3 non-collinear solid nodes, or one beam node)"
        ) from None
    constraint = -factor.solve(K[interior][:, boundary].toarray()) if boundary.size else np.zeros((interior.size, 0))
    _, fixed = lowest_modes(M[interior][:, interior], K_ii, n_modes, owner)
    basis = np.zeros((n, n_modes + len(boundary)))
    basis[np.ix_(interior, np.arange(n_modes))] = fixed
    basis[interior, n_modes:] = constraint
    basis[boundary, n_modes + np.arange(len(boundary))] = 1.0
    return basis


def orthonormal_modes(
    M: sp.spmatrix, K: sp.spmatrix, basis: NDArray, rigid: NDArray, owner: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Orthonormalize a basis (Rayleigh-Ritz: eigenvectors of the reduced K, M) and drop its rigid-body
    content: (omega^2 (m,) ascending, Phi (n, m)) with Phi^T M Phi = I, Phi^T K Phi = diag(omega^2)."""
    K_r = basis.T @ (K @ basis)
    M_r = basis.T @ (M @ basis)
    try:
        omega2, X = scipy.linalg.eigh((K_r + K_r.T) / 2, (M_r + M_r.T) / 2)
    except np.linalg.LinAlgError:
        raise ModelError(f"{owner}: the reduced mass matrix is singular; the basis has dependent columns") from None
    return _drop_rigid(M, rigid, omega2, basis @ X)


def modal_damping(
    omega: NDArray[np.float64],
    damping_ratio: float | ArrayLike | None = None,
    rayleigh: tuple[float, float] | None = None,
) -> NDArray[np.float64]:
    """Modal damping matrix D (m, m) [1/s] of mass-orthonormal modes with circular frequencies ``omega``
    [rad/s]: ``damping_ratio`` zeta (one or one per mode) gives diag(2 zeta omega); ``rayleigh``
    (alpha [1/s], beta [s]) gives alpha I + beta diag(omega^2), i.e. Phi^T (alpha M + beta K) Phi."""
    if (damping_ratio is None) == (rayleigh is None):
        raise ModelError("modal damping: give exactly one of damping_ratio and rayleigh=(alpha, beta)")
    if rayleigh is not None:
        coefficients = np.asarray(rayleigh, float)
        if coefficients.shape != (2,) or np.any(coefficients < 0) or not np.all(np.isfinite(coefficients)):
            raise ModelError(f"modal damping: rayleigh must be (alpha [1/s], beta [s]), both >= 0; got {rayleigh!r}")
        return np.diag(coefficients[0] + coefficients[1] * omega**2)
    zeta = np.asarray(damping_ratio, float)
    if zeta.shape not in ((), omega.shape) or np.any(zeta < 0) or not np.all(np.isfinite(zeta)):
        raise ModelError(
            f"modal damping: damping_ratio must be one ratio >= 0 or one per kept mode ({len(omega)}); got {damping_ratio!r}"
        )
    return np.diag(2.0 * zeta * omega)


def default_damping_ratios(frequencies: NDArray[np.float64]) -> NDArray[np.float64]:
    """ADAMS's default modal damping (its flexible bodies' CRATIO default): 1 % of critical for modes
    below 100 Hz, 10 % from 100 Hz to 1 kHz, critical above (frequencies [Hz] -> ratios). Real
    structures damp their high modes, and the integrator then need not resolve them."""
    return np.where(frequencies < 100.0, 0.01, np.where(frequencies < 1000.0, 0.1, 1.0))


def node_dofs(nodes: NDArray[np.int64], dofs_per_node: int) -> NDArray[np.int64]:
    """The DOF indices (node-major) of ``nodes``."""
    return (dofs_per_node * np.asarray(nodes)[:, None] + np.arange(dofs_per_node)).ravel()


def reduce_model(
    M: sp.spmatrix,
    K: sp.spmatrix,
    points: NDArray[np.float64],
    dofs_per_node: int,
    n_modes: int,
    interface: NDArray[np.int64] | None,
    reference_nodes: NDArray[np.int64] | None,
    owner: str,
    tie: RigidSets | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], str]:
    """Modes of a body: (omega^2 (m,), Phi (n, m), reference condition), mass-orthonormal.

    Without ``reference_nodes``: mean axes, rigid-body modes dropped; free-free modes, or with
    ``interface`` nodes the orthonormalized Craig-Bampton basis (``n_modes`` fixed-interface modes
    plus the constraint modes, less the six rigid modes). With ``reference_nodes`` (tied frame):
    those nodes' DOFs are held (zero in every mode) and the same reduction runs on the rest. Matrices
    that already hold the body (supports in K) are "tied" too: no rigid mode is dropped then. With
    ``tie`` (rigid node sets, ``multibody.fem.rigid_sets``) the reduction runs in the tied coordinates
    and the modes come back on every node, each set moving rigidly.
    """
    every_rigid = rigid_body_modes(points, dofs_per_node)

    def dofs_of(nodes: NDArray[np.int64]) -> NDArray[np.int64]:
        return node_dofs(nodes, dofs_per_node) if tie is None else tie.dofs(nodes)

    if tie is not None:
        T = tie.transformation
        M, K, every_rigid = T.T @ (M @ T), T.T @ (K @ T), tie.rigid
    n_coordinates = M.shape[0]
    rigid = unrestrained_rigid_modes(K, every_rigid, owner)
    condition = "mean_axes" if rigid.shape[1] == 6 and reference_nodes is None else "tied"
    active = np.arange(M.shape[0])
    if reference_nodes is not None:
        held = dofs_of(reference_nodes)
        require_rigid_restraint(rigid[held], owner, "reference")
        active = np.setdiff1d(active, held)
        rigid = np.zeros((active.size, 0))
        M, K = sp.csr_matrix(M)[active][:, active], sp.csr_matrix(K)[active][:, active]
    if interface is None:
        omega2, modes = free_modes(M, K, n_modes, rigid, owner)
    else:
        boundary = dofs_of(np.setdiff1d(interface, [] if reference_nodes is None else reference_nodes))
        if reference_nodes is not None:
            boundary = np.setdiff1d(boundary, held)  # a set both held and in the interface is held
        if condition == "mean_axes":
            require_rigid_restraint(every_rigid[boundary], owner, "interface")
        basis = craig_bampton_basis(M, K, np.searchsorted(active, boundary), n_modes, owner)
        omega2, modes = orthonormal_modes(M, K, basis, rigid, owner)
    full = np.zeros((n_coordinates, modes.shape[1]))
    full[active] = canonical_modes(omega2, modes)
    return omega2, full if tie is None else tie.transformation @ full, condition


EQUAL_FREQUENCIES = 1e-6
"""Relative difference of omega^2 below which modes are one eigenspace (a symmetric part's pairs)."""


def canonical_modes(omega2: NDArray[np.float64], modes: NDArray[np.float64]) -> NDArray[np.float64]:
    """``modes`` (n, m) with each eigenvector's sign and each repeated eigenspace's basis fixed by the
    modes themselves, not by the eigensolver's start vector or summation order: within a group of
    equal ``omega2`` (a symmetric section's two bending directions) the basis is rotated so that, on
    the DOFs where the group moves most (picked greedily, largest remaining amplitude first), it is
    lower triangular with a positive diagonal. Runs are then reproducible to round-off."""
    out = modes.copy()
    start = 0
    while start < len(omega2):
        stop = start + 1
        scale = max(abs(omega2[start]), 1e-300)
        while stop < len(omega2) and abs(omega2[stop] - omega2[start]) <= EQUAL_FREQUENCIES * scale:
            stop += 1
        group = out[:, start:stop]
        remaining, rows = group.copy(), []
        for _ in range(stop - start):
            amplitude = np.round(np.linalg.norm(remaining, axis=1), 10)  # ties broken by DOF order
            row = int(np.argmax(amplitude))
            rows.append(row)
            direction = remaining[row] / np.linalg.norm(remaining[row])
            remaining = remaining - np.outer(remaining @ direction, direction)
        Q, R = np.linalg.qr(group[rows].T)
        Q *= np.where(np.diag(R) < 0.0, -1.0, 1.0)
        out[:, start:stop] = group @ Q
        start = stop
    return out


def unrestrained_rigid_modes(K: sp.spmatrix, rigid: NDArray[np.float64], owner: str) -> NDArray[np.float64]:
    """The rigid-body modes K does not resist: all six (n, 6) for a free body, none (n, 0) for matrices
    with supports; a ModelError for a partly held body (a mechanism), which has no reference condition."""
    orthonormal, _ = np.linalg.qr(rigid)
    resisted = np.linalg.svd(K @ orthonormal, compute_uv=False) > 1e-8 * abs(K).max()
    if resisted.all():
        return rigid[:, :0]
    if not resisted.any():
        return rigid
    raise ModelError(
        f"{owner}: the stiffness matrix resists only {np.count_nonzero(resisted)} of the 6 rigid-body motions; "
        "give the free (unsupported) matrices, or hold the body fully"
    )


def require_rigid_restraint(rigid_rows: NDArray[np.float64], owner: str, what: str) -> None:
    """ModelError unless holding these DOFs stops all six rigid-body motions."""
    scale = max(np.abs(rigid_rows).max(initial=0.0), 1.0)
    if rigid_rows.size == 0 or np.linalg.matrix_rank(rigid_rows, tol=1e-9 * scale) < 6:
        raise ModelError(
            f"{owner}: holding the {what} nodes leaves the body free to move rigidly; give one beam node or "
            "at least three non-collinear solid nodes"
        )
