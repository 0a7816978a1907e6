"""Rigid node sets (Nastran RBE2): groups of FE nodes tied to move as one rigid body.

A set k of nodes S_k with centroid c_k moves by the rigid field of its master motion (a_k, theta_k):
``u_s = a_k + theta_k x (x_s - c_k)`` for every node s of the set (and ``theta_s = theta_k`` for the
rotational DOFs of beam nodes). The tie is eliminated exactly before the reduction: u = T z, where z
holds the DOFs of the nodes in no set followed by six master DOFs per set, and the reduction runs on
``T^T M T``, ``T^T K T`` (``multibody.fem.reduction.reduce_model``). Unlike an averaged (RBE3-style)
node set, a tied set stiffens the structure: it is the rigid flange, hub or bolt pattern of a part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from multibody.fem.reduction import node_dofs, rigid_body_modes
from multibody.model.element import ModelError


@dataclass(frozen=True)
class RigidSets:
    """The tie of rigid node sets: ``u = transformation @ z`` (n, nz)."""

    transformation: sp.csr_matrix
    rigid: NDArray[np.float64]
    """(nz, 6) the six rigid-body fields (``rigid_body_modes``) in the z coordinates"""
    node_set: NDArray[np.int64]
    """(N,) per node, the set it belongs to (-1: none)"""
    free_offset: NDArray[np.int64]
    """(N,) per node in no set, where its DOFs start in z"""
    master_offset: NDArray[np.int64]
    """(n_sets,) where each set's six master DOFs start in z"""
    dofs_per_node: int

    def dofs(self, nodes: NDArray[np.int64]) -> NDArray[np.int64]:
        """The z DOFs that move ``nodes``: a node's own, or its set's six master DOFs (each once)."""
        columns = []
        for node in np.asarray(nodes, np.int64):
            k = self.node_set[node]
            start = self.master_offset[k] if k >= 0 else self.free_offset[node]
            columns.append(np.arange(start, start + (6 if k >= 0 else self.dofs_per_node)))
        return np.unique(np.concatenate(columns)) if columns else np.zeros(0, np.int64)


def tie_rigid_sets(
    points: NDArray[np.float64], dofs_per_node: int, sets: Sequence[NDArray[np.int64]], owner: str
) -> RigidSets:
    """The tie of node ``sets`` (each two or more node indices, no node in two sets) of a mesh with
    nodes ``points`` (N, 3) [m] and ``dofs_per_node`` 3 or 6."""
    n_nodes = len(points)
    node_set = np.full(n_nodes, -1, dtype=np.int64)
    for k, nodes in enumerate(sets):
        if len(nodes) < 2:
            raise ModelError(f"{owner}: rigid set {k} needs at least two nodes, got {list(nodes)}")
        if np.any(node_set[nodes] >= 0):
            raise ModelError(f"{owner}: node {int(nodes[node_set[nodes] >= 0][0])} is in two rigid sets; merge them")
        node_set[nodes] = k
    free_nodes = np.flatnonzero(node_set < 0)
    free_offset = np.full(n_nodes, -1, dtype=np.int64)
    free_offset[free_nodes] = dofs_per_node * np.arange(free_nodes.size)
    master_offset = dofs_per_node * free_nodes.size + 6 * np.arange(len(sets), dtype=np.int64)
    n_z = dofs_per_node * free_nodes.size + 6 * len(sets)
    rows, columns, values = [node_dofs(free_nodes, dofs_per_node)], [np.arange(dofs_per_node * free_nodes.size)], []
    values.append(np.ones(rows[0].size))
    centroids = np.array([points[nodes].mean(axis=0) for nodes in sets]).reshape(-1, 3)
    for k, nodes in enumerate(sets):
        # u_s = a - skew(x_s - c) theta, theta_s = theta: the rigid field of the master motion (a, theta)
        field = rigid_body_modes(points[nodes] - centroids[k], dofs_per_node)  # (|S| dofs_per_node, 6)
        dof = node_dofs(np.asarray(nodes), dofs_per_node)
        r, c = np.nonzero(field)
        rows.append(dof[r])
        columns.append(master_offset[k] + c)
        values.append(field[r, c])
    transformation = sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))), shape=(n_nodes * dofs_per_node, n_z)
    )
    rigid_full = rigid_body_modes(points, dofs_per_node)
    rigid = np.zeros((n_z, 6))
    rigid[: dofs_per_node * free_nodes.size] = rigid_full[node_dofs(free_nodes, dofs_per_node)]
    for k in range(len(sets)):
        # a rigid field t + theta x x moves a set's master by a = t + theta x c_k, theta
        rigid[master_offset[k] : master_offset[k] + 6] = rigid_body_modes(centroids[k : k + 1], 6)
    return RigidSets(transformation, rigid, node_set, free_offset, master_offset, dofs_per_node)
