"""Abaqus ``*MATRIX GENERATE`` matrix files (``*MATRIX OUTPUT, FORMAT=COORDINATE``, .mtx).

Each data line is ``row node, row DOF, column node, column DOF, value`` (DOF 1-6: u_x, u_y, u_z,
theta_x, theta_y, theta_z). Abaqus writes one triangle of a symmetric matrix; both triangles are
accepted. Rows and columns of the returned matrix are the (node, DOF) pairs sorted by node label,
then DOF: node-major, the layout ``FlexibleBody.from_matrices`` takes when every node has the same DOFs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from multibody.model.element import ModelError


def read_abaqus_matrix(
    path: str | Path, return_dofs: bool = False
) -> sp.csr_matrix | tuple[sp.csr_matrix, NDArray[np.int64]]:
    """Read a symmetric matrix from an Abaqus coordinate-format .mtx file as scipy.sparse (CSR, full
    symmetric). With ``return_dofs``, also the (n, 2) DOF map: row i is (node label, DOF 1-6)."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ModelError(f"matrix file '{path}': cannot read it ({error.strerror})") from None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("*")]
    try:
        table = np.array([[float(field) for field in line.replace(",", " ").split()] for line in lines])
    except ValueError:
        table = np.empty((0, 0))
    if table.ndim != 2 or table.shape[1] != 5 or not np.all(np.isfinite(table)):
        raise ModelError(
            f"matrix file '{path}': expected lines 'node, dof, node, dof, value' (Abaqus *MATRIX OUTPUT, "
            "FORMAT=COORDINATE); export the matrix in coordinate format"
        )
    pairs = table[:, :4].astype(np.int64)
    dofs, index = np.unique(np.vstack([pairs[:, :2], pairs[:, 2:]]), axis=0, return_inverse=True)
    rows, cols = index.ravel()[: len(table)], index.ravel()[len(table) :]
    n = len(dofs)
    matrix = sp.coo_matrix((table[:, 4], (rows, cols)), shape=(n, n)).tocsr()
    lower, upper = sp.tril(matrix, -1), sp.triu(matrix, 1)
    if lower.nnz and upper.nnz:
        asymmetry = abs(matrix - matrix.T).max()
        if asymmetry > 1e-9 * abs(matrix).max():
            raise ModelError(f"matrix file '{path}': the matrix is not symmetric (largest |A - A^T| = {asymmetry:g})")
        full = matrix
    else:
        full = matrix + lower.T + upper.T
    full = sp.csr_matrix(full)
    return (full, dofs) if return_dofs else full


def write_abaqus_matrix(path: str | Path, matrix: sp.spmatrix | NDArray, dofs: NDArray[np.int64]) -> None:
    """Write the lower triangle of a symmetric matrix in Abaqus coordinate format; ``dofs`` (n, 2)
    gives (node label, DOF 1-6) of each row."""
    lower = sp.tril(sp.coo_matrix(matrix)).tocoo()
    with open(path, "w") as file:
        file.writelines(
            f"{dofs[row, 0]},{dofs[row, 1]}, {dofs[col, 0]},{dofs[col, 1]}, {value:.17e}\n"
            for row, col, value in zip(lower.row, lower.col, lower.data)
        )
