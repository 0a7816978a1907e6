"""Tangent stiffness and damping of the moving-node rope span elements (``bodies.rope_span``), element
by element: compiled central differences of one element's terms (``rope_span.span_terms`` on that
element alone) in its 14 coordinates, so that no evaluation of the whole model is spent on them.

An element's generalized forces (gravity, inertial, elastic and damping) depend on its two nodes'
coordinates and its span's end material coordinates only; their derivatives fill a (14, 14) block
at ``RopeSpans.element_columns``. Central differences with a step of ``STEP`` times the coordinate's
size: truncation ``STEP^2`` and round-off ``eps / STEP``, both near 1e-10 relative, far below what
Newton needs; at a slack element's kink (tension only) they give the mean of both sides' slopes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.formulation.bodies.cable import FloatArray, IntArray
from multibody.formulation.bodies.rope_span import SPAN_ELEMENT_WIDTH, RopeSpans, span_terms

STEP = 1e-6
"""Relative step of the central differences (about the cube root of the round-off, 2e-16)."""


def element_tangents(spans: RopeSpans, q: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(d f / d q, d f / d v)`` (ne, 14, 14) per span element at ``(q, v)``, ``f`` its generalized
    forces on its columns ``spans.element_columns`` (velocity-space position increments: ``dq = dx``
    on a span's coordinates)."""
    count = spans.node_positions.shape[0]
    stiffness = np.empty((count, SPAN_ELEMENT_WIDTH, SPAN_ELEMENT_WIDTH))
    damping = np.empty((count, SPAN_ELEMENT_WIDTH, SPAN_ELEMENT_WIDTH))
    _element_differences(
        q,
        v,
        np.hstack([spans.node_positions, spans.end_positions]),
        spans.element_columns,
        spans.element_index,
        spans.element_count,
        spans.mass_per_length,
        spans.axial_stiffness,
        spans.damping,
        spans.smoothing,
        spans.gravity,
        stiffness,
        damping,
    )
    return stiffness, damping


@njit(cache=True)
def _element_differences(
    q: FloatArray,
    v: FloatArray,
    position_columns: IntArray,
    velocity_columns: IntArray,
    element_index: IntArray,
    element_count: IntArray,
    mass_per_length: FloatArray,
    axial_stiffness: FloatArray,
    damping: FloatArray,
    smoothing: FloatArray,
    gravity: FloatArray,
    stiffness: FloatArray,
    damping_matrix: FloatArray,
) -> None:
    """``element_tangents``' loop: per element, its coordinates copied into a 14-entry local model
    (nodes 0-11, ends 12-13) that ``span_terms`` evaluates as a one-element span."""
    width = SPAN_ELEMENT_WIDTH
    nodes = np.arange(12).reshape(1, 12)
    ends = np.array([[12, 13]])
    local_q, local_v = np.empty(width), np.empty(width)
    plus, minus = np.empty(width), np.empty(width)
    blocks = np.empty((1, width, width))
    for k in range(position_columns.shape[0]):
        for j in range(width):
            local_q[j] = q[position_columns[k, j]]
            local_v[j] = v[velocity_columns[k, j]]
        index, count = element_index[k : k + 1], element_count[k : k + 1]
        rho, EA, eta = mass_per_length[k : k + 1], axial_stiffness[k : k + 1], damping[k : k + 1]
        h = smoothing[k : k + 1]
        for derivative in range(2):
            varied = local_q if derivative == 0 else local_v
            out = stiffness if derivative == 0 else damping_matrix
            for column in range(width):
                value = varied[column]
                step = STEP * (1.0 + abs(value))
                for sign in range(2):
                    varied[column] = value + step if sign == 0 else value - step
                    force = plus if sign == 0 else minus
                    force[:] = 0.0
                    span_terms(
                        local_q,
                        local_v,
                        nodes,
                        nodes,
                        ends,
                        ends,
                        index,
                        count,
                        rho,
                        EA,
                        eta,
                        h,
                        gravity,
                        force,
                        blocks,
                    )
                varied[column] = value
                for row in range(width):
                    out[k, row, column] = (plus[row] - minus[row]) / (2.0 * step)
