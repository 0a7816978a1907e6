"""Mass and stiffness matrices written by FE programs: Abaqus and ANSYS (Mechanical APDL).

Abaqus ``*MATRIX GENERATE`` files (``*MATRIX OUTPUT, FORMAT=COORDINATE``, .mtx): each data line is
``row node, row DOF, column node, column DOF, value`` (DOF 1-6: u_x, u_y, u_z, theta_x, theta_y,
theta_z). Abaqus writes one triangle of a symmetric matrix; both triangles are accepted. Rows and
columns of the returned matrix are the (node, DOF) pairs sorted by node label, then DOF: node-major,
the layout ``FlexibleBody.from_matrices`` takes when every node has the same DOFs.

ANSYS assembled matrices (the .full file) exported by ``HBMAT`` as Harwell-Boeing text, with the
equation -> (node, DOF label) mapping file HBMAT writes beside them: ``read_ansys_matrices``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

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
    full = _full_symmetric(sp.coo_matrix((table[:, 4], (rows, cols)), shape=(n, n)).tocsr(), path)
    return (full, dofs) if return_dofs else full


def _full_symmetric(matrix: sp.csr_matrix, path: str | Path) -> sp.csr_matrix:
    """The full symmetric matrix from one stored triangle (mirrored), or from both (checked symmetric)."""
    lower, upper = sp.tril(matrix, -1), sp.triu(matrix, 1)
    if lower.nnz and upper.nnz:
        asymmetry = abs(matrix - matrix.T).max()
        if asymmetry > 1e-9 * abs(matrix).max():
            raise ModelError(f"matrix file '{path}': the matrix is not symmetric (largest |A - A^T| = {asymmetry:g})")
        return sp.csr_matrix(matrix)
    return sp.csr_matrix(matrix + lower.T + upper.T)


def write_abaqus_matrix(path: str | Path, matrix: sp.spmatrix | NDArray, dofs: NDArray[np.int64]) -> None:
    """Write the lower triangle of a symmetric matrix in Abaqus coordinate format; ``dofs`` (n, 2)
    gives (node label, DOF 1-6) of each row."""
    lower = sp.tril(sp.coo_matrix(matrix)).tocoo()
    with open(path, "w") as file:
        file.writelines(
            f"{dofs[row, 0]},{dofs[row, 1]}, {dofs[col, 0]},{dofs[col, 1]}, {value:.17e}\n"
            for row, col, value in zip(lower.row, lower.col, lower.data)
        )


ANSYS_DOF_LABELS = ("UX", "UY", "UZ", "ROTX", "ROTY", "ROTZ")
"""Structural DOF labels of ANSYS in the order of a node's rows (translations, then rotations)."""

_FORTRAN_FIELD = re.compile(r"\(\s*(?:-?\d*P\s*,?\s*)?(\d*)\s*([IEDFG])\s*(\d+)(?:\.\d+)?(?:E\d+)?\s*\)", re.IGNORECASE)
"""A Harwell-Boeing data format such as (10I8), (4E20.12), (1P,5D16.8): repeat count, letter, width."""


class AnsysMatrices(NamedTuple):
    """M and K of an ANSYS model in node-major DOF order, ready for ``FlexibleBody.from_matrices``."""

    mass_matrix: sp.csr_matrix
    """(N d, N d) [kg, kg m, kg m^2 in the model's units], full symmetric"""
    stiffness_matrix: sp.csr_matrix
    """(N d, N d) [N/m, N, N m in the model's units], full symmetric"""
    nodes: NDArray[np.int64]
    """(N,) ANSYS node numbers, ascending: node k of the body (rows d k .. d k + d - 1) is ``nodes[k]``"""
    dofs_per_node: int
    """d: 3 (UX, UY, UZ) or 6 (and ROTX, ROTY, ROTZ)"""


def _fortran_values(path: str | Path, lines: list[str], fortran_format: str, count: int, what: str) -> NDArray:
    """``count`` numbers from fixed-width data ``lines`` in ``fortran_format`` (the fields can touch)."""
    match = _FORTRAN_FIELD.fullmatch(fortran_format.strip())
    if match is None:
        raise ModelError(f"Harwell-Boeing file '{path}': cannot read the {what} format {fortran_format.strip()!r}")
    per_line, width = int(match.group(1) or 1), int(match.group(3))
    fields = [line[k * width : (k + 1) * width].strip() for line in lines for k in range(per_line)]
    fields = [field.upper().replace("D", "E") for field in fields if field]
    try:
        values = np.array(fields[:count], dtype=float)
    except ValueError:
        raise ModelError(
            f"Harwell-Boeing file '{path}': the {what} are not numbers in {fortran_format.strip()}"
        ) from None
    if len(values) != count:
        raise ModelError(f"Harwell-Boeing file '{path}': expected {count} {what}, found {len(values)}")
    return values


def read_harwell_boeing(path: str | Path) -> sp.csr_matrix:
    """Read a real assembled matrix from a Harwell-Boeing text file (Duff, Grimes & Lewis, *User's Guide
    for the Harwell-Boeing Sparse Matrix Collection*, 1992): type RSA (symmetric, one triangle stored:
    returned full) or RUA (returned as stored). A right-hand side, if present, is skipped. scipy's
    ``scipy.io.hb_read`` reads RUA files without right-hand sides only; ANSYS writes RSA, often with one."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as error:
        raise ModelError(f"Harwell-Boeing file '{path}': cannot read it ({error.strerror})") from None
    matrix_type = lines[2][:3].upper() if len(lines) > 2 else ""
    if matrix_type not in ("RSA", "RUA"):
        raise ModelError(
            f"Harwell-Boeing file '{path}': matrix type {matrix_type!r}; only real assembled matrices (RSA, RUA) "
            "are read; write the matrix with HBMAT in ASCII form"
        )
    try:
        card_counts = [int(lines[1][k : k + 14] or 0) for k in range(14, 70, 14)]
        n_rows, n_cols, n_entries = (int(lines[2][k : k + 14]) for k in (14, 28, 42))
        formats = lines[3]
    except (IndexError, ValueError):
        raise ModelError(
            f"Harwell-Boeing file '{path}': the four header lines (title; card counts; type and sizes; formats) "
            "are not in the Harwell-Boeing layout"
        ) from None
    pointer_cards, index_cards, value_cards = card_counts[0], card_counts[1], card_counts[2]
    start = 5 if card_counts[3] > 0 else 4  # a right-hand side adds a fifth header line
    data = lines[start:]
    pointer_format, index_format, value_format = formats[:16], formats[16:32], formats[32:52]
    pointers = _fortran_values(path, data[:pointer_cards], pointer_format, n_cols + 1, "column pointers")
    indices = _fortran_values(
        path, data[pointer_cards : pointer_cards + index_cards], index_format, n_entries, "row indices"
    )
    values = _fortran_values(
        path,
        data[pointer_cards + index_cards : pointer_cards + index_cards + value_cards],
        value_format,
        n_entries,
        "values",
    )
    if pointers[0] != 1 or pointers[-1] != n_entries + 1 or np.any(np.diff(pointers) < 0):
        raise ModelError(f"Harwell-Boeing file '{path}': the column pointers do not run from 1 to {n_entries + 1}")
    if indices.min(initial=1) < 1 or indices.max(initial=1) > n_rows:
        raise ModelError(f"Harwell-Boeing file '{path}': a row index lies outside 1 .. {n_rows}")
    matrix = sp.csc_matrix((values, indices.astype(np.int64) - 1, pointers.astype(np.int64) - 1), (n_rows, n_cols))
    if not np.all(np.isfinite(values)):
        raise ModelError(f"Harwell-Boeing file '{path}': the matrix holds non-finite values")
    return _full_symmetric(matrix.tocsr(), path) if matrix_type == "RSA" else matrix.tocsr()


def read_ansys_mapping(path: str | Path) -> NDArray[np.int64]:
    """Read an ANSYS HBMAT mapping file (a header line, then one line ``equation  node  DOF-label`` per
    matrix equation): (n, 2) array whose row i is (node number, DOF 1-6 of ``ANSYS_DOF_LABELS``) of
    equation i + 1."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ModelError(f"mapping file '{path}': cannot read it ({error.strerror})") from None
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+([A-Za-z]+)\s*$", text, flags=re.MULTILINE)
    if not rows:
        raise ModelError(
            f"mapping file '{path}': no lines 'equation node DOF' found; write it with HBMAT, ..., Mapping=YES"
        )
    equations = np.array([int(row[0]) for row in rows])
    if not np.array_equal(np.sort(equations), np.arange(1, len(rows) + 1)):
        raise ModelError(f"mapping file '{path}': the equation numbers are not 1 .. {len(rows)}, each once")
    labels = [row[2].upper() for row in rows]
    unknown = sorted(set(labels) - set(ANSYS_DOF_LABELS))
    if unknown:
        raise ModelError(
            f"mapping file '{path}': DOF labels {unknown} are not structural displacements {ANSYS_DOF_LABELS}; "
            "export a structural model without other fields or Lagrange multipliers"
        )
    dofs = np.empty((len(rows), 2), dtype=np.int64)
    dofs[equations - 1, 0] = [int(row[1]) for row in rows]
    dofs[equations - 1, 1] = [ANSYS_DOF_LABELS.index(label) + 1 for label in labels]
    return dofs


def read_ansys_matrices(hb_mass: str | Path, hb_stiffness: str | Path, mapping: str | Path) -> AnsysMatrices:
    """M and K of an ANSYS (Mechanical APDL) model from its HBMAT exports, in node-major DOF order.

    ANSYS writes the assembled matrices of a solution to the binary .full file (a modal analysis,
    ``ANTYPE,MODAL``, writes the mass matrix too; ``WRFULL,1`` stops after the assembly). In /AUX2::

        FILE,jobname,full
        HBMAT,mass,matrix,,ASCII,MASS,NO,YES     ! mass.matrix and mass.mapping
        HBMAT,stiff,matrix,,ASCII,STIFF,NO,YES   ! stiff.matrix
        FINISH

    The Harwell-Boeing files (``read_harwell_boeing``) are in the solver's equation order; the mapping
    file (``read_ansys_mapping``) names the node and DOF of each equation. Both matrices are permuted
    to node-major order (nodes by ascending number, then UX, UY, UZ[, ROTX, ROTY, ROTZ]), so
    ``FlexibleBody.from_matrices(name, *result[:2], positions_of(result.nodes), n_modes,
    dofs_per_node=result.dofs_per_node)`` takes them, with the node positions (NLIST/NWRITE) in body
    axes in the order of ``nodes``. ANSYS removes constrained DOFs (D commands) from the .full file:
    export the unconstrained body and hold it with joints, so every node keeps all its DOFs. ANSYS has
    no units: the model must be in SI (kg, m, s).
    """
    dofs = read_ansys_mapping(mapping)
    nodes = np.unique(dofs[:, 0])
    dofs_per_node = 6 if np.any(dofs[:, 1] > 3) else 3
    position = np.full((len(nodes), dofs_per_node), -1, dtype=np.int64)
    node_index = np.searchsorted(nodes, dofs[:, 0])
    for equation, (k, dof) in enumerate(zip(node_index, dofs[:, 1] - 1)):
        if position[k, dof] >= 0:
            raise ModelError(f"mapping file '{mapping}': node {nodes[k]} lists {ANSYS_DOF_LABELS[dof]} twice")
        position[k, dof] = equation
    missing = np.argwhere(position < 0)
    if len(missing):
        k, dof = missing[0]
        raise ModelError(
            f"mapping file '{mapping}': node {nodes[k]} has no {ANSYS_DOF_LABELS[dof]} equation (of "
            f"{len(missing)} missing): ANSYS leaves constrained DOFs out of the .full file; export the "
            "unconstrained body (no D commands) and hold it with joints"
        )
    order = position.ravel()
    matrices = []
    for path in (hb_mass, hb_stiffness):
        matrix = read_harwell_boeing(path)
        if matrix.shape != (len(dofs), len(dofs)):
            raise ModelError(
                f"Harwell-Boeing file '{path}': the matrix is {matrix.shape[0]} x {matrix.shape[1]} but the "
                f"mapping file '{mapping}' lists {len(dofs)} equations; export both from the same .full file"
            )
        matrices.append(sp.csr_matrix(matrix[order][:, order]))
    return AnsysMatrices(matrices[0], matrices[1], nodes, dofs_per_node)


def write_harwell_boeing(path: str | Path, matrix: sp.spmatrix | NDArray, title: str = "multibody") -> None:
    """Write the lower triangle of a symmetric matrix as a Harwell-Boeing RSA file, the layout ANSYS
    HBMAT writes: (10I8) pointers and indices, (4E25.16) values."""
    lower = sp.csc_matrix(sp.tril(sp.csc_matrix(matrix)))
    lower.sort_indices()
    n = lower.shape[0]

    def cards(values: NDArray, per_line: int, field: str) -> list[str]:
        return ["".join(field.format(v) for v in values[k : k + per_line]) for k in range(0, len(values), per_line)]

    pointers = cards(lower.indptr + 1, 10, "{:8d}")
    indices = cards(lower.indices + 1, 10, "{:8d}")
    values = cards(lower.data, 4, "{:25.16E}")
    total = len(pointers) + len(indices) + len(values)
    header = [
        f"{title[:72]:<72}{'KEY':<8}",
        f"{total:14d}{len(pointers):14d}{len(indices):14d}{len(values):14d}{0:14d}",
        f"RSA{'':11}{n:14d}{n:14d}{lower.nnz:14d}{0:14d}",
        f"{'(10I8)':<16}{'(10I8)':<16}{'(4E25.16)':<20}{'':<20}",
    ]
    Path(path).write_text("\n".join(header + pointers + indices + values) + "\n")


def write_ansys_mapping(path: str | Path, dofs: NDArray[np.int64]) -> None:
    """Write an HBMAT-style mapping file; ``dofs`` (n, 2): (node number, DOF 1-6) of equation 1 .. n."""
    lines = [f"{'Matrix Eqn':>10}{'Node':>10}{'DOF':>8}"]
    lines += [f"{k + 1:10d}{node:10d}{ANSYS_DOF_LABELS[dof - 1]:>8}" for k, (node, dof) in enumerate(dofs)]
    Path(path).write_text("\n".join(lines) + "\n")
