"""Marker frames and velocities over the output instants, from the bodies' motion and the scene's markers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import Results


def marker_frames(results: Results, markers: list[dict[str, Any]]) -> tuple[FloatArray, FloatArray]:
    """``(p_WM (T, n, 3) [m], R_WM (T, n, 3, 3))`` of the scene markers ``markers`` (entries of the
    scene's "markers": body index, position and rotation in the body) at every output instant."""
    count = len(results)
    bodies = results.layout.body_names
    p_WM = np.zeros((count, len(markers), 3))
    R_WM = np.zeros((count, len(markers), 3, 3))
    for k, marker in enumerate(markers):
        p_BM, R_BM = np.array(marker["position"]), np.array(marker["rotation"])
        if marker["body"] < 0:
            p_WM[:, k], R_WM[:, k] = p_BM, R_BM
        else:
            body = results.body(bodies[marker["body"]])
            R_WB = body.rotation
            p_WM[:, k] = body.position + R_WB @ p_BM
            R_WM[:, k] = R_WB @ R_BM
    return p_WM, R_WM


def marker_velocities(results: Results, markers: list[dict[str, Any]]) -> FloatArray:
    """``v_WM (T, n, 3)`` [m/s]: velocity of the origins of the scene markers ``markers`` at every
    output instant, world components, ``v_B + w_B x (R_WB p_BM)`` from their bodies' motion."""
    bodies = results.layout.body_names
    v_WM = np.zeros((len(results), len(markers), 3))
    for k, marker in enumerate(markers):
        if marker["body"] >= 0:
            body = results.body(bodies[marker["body"]])
            p_BM_W = body.rotation @ np.array(marker["position"])
            v_WM[:, k] = body.velocity + np.cross(body.angular_velocity, p_BM_W)
    return v_WM
