"""Marker frames and velocities over the output instants, from the bodies' motion and the scene's markers.

A marker on an ANCF cable follows its material point (``multibody.results.cable``). A marker on a
flexible body moves with its body's deformation too: its origin is at p_BM + T q and its axes
are turned by exp(skew(A q)) in body axes (T, A its translation and rotation modes, q the modal coordinates;
``multibody.results.flexible.ModalShapes.marker_modes``), as in the equations of motion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from multibody.spatial.rotations import FloatArray

if TYPE_CHECKING:
    from multibody.results.results import BodyHistory, Results


def _elastic_motion(body: BodyHistory, marker: dict[str, Any]) -> tuple[FloatArray, FloatArray, FloatArray] | None:
    """``(T q (T, 3), A q (T, 3), T q' (T, 3))`` of a marker on a flexible body, body axes; None for a
    marker that does not deform (on a rigid body, or results without the modes)."""
    shapes = getattr(body, "shapes", None)
    if shapes is None or marker["name"] not in shapes.marker_modes:
        return None
    translation, rotation = shapes.marker_modes[marker["name"]]
    q, qdot = body.modal_coordinates, body.modal_velocities  # type: ignore[attr-defined]
    return q @ translation.T, q @ rotation.T, qdot @ translation.T


def _cable_frame(results: Results, marker: dict[str, Any], R_ref: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(p_WM (T, 3), R_WM (T, 3, 3))`` of a marker on an ANCF cable: at its material point, its
    undeformed axes ``R_ref`` carried along the tangent (``CableHistory.axes_at``)."""
    cable = results.cable(marker["cable"]["name"])
    s = marker["cable"]["arc_length"]
    return cable.position_at(s), cable.axes_at(s, R_ref)


def marker_frames(results: Results, markers: list[dict[str, Any]]) -> tuple[FloatArray, FloatArray]:
    """``(p_WM (T, n, 3) [m], R_WM (T, n, 3, 3))`` of the scene markers ``markers`` (entries of the
    scene's "markers": body index, position and rotation in the body) at every output instant."""
    from scipy.spatial.transform import Rotation

    count = len(results)
    bodies = results.layout.body_names
    p_WM = np.zeros((count, len(markers), 3))
    R_WM = np.zeros((count, len(markers), 3, 3))
    for k, marker in enumerate(markers):
        p_BM, R_BM = np.array(marker["position"]), np.array(marker["rotation"])
        if "cable" in marker:
            p_WM[:, k], R_WM[:, k] = _cable_frame(results, marker, R_BM)
            continue
        if marker["body"] < 0:
            p_WM[:, k], R_WM[:, k] = p_BM, R_BM
            continue
        body = results.body(bodies[marker["body"]])
        R_WB = body.rotation
        elastic = _elastic_motion(body, marker)
        if elastic is not None:
            p_BM = p_BM + elastic[0]
            R_BM = Rotation.from_rotvec(elastic[1]).as_matrix() @ R_BM
        p_WM[:, k] = body.position + np.einsum("tab,tb->ta", R_WB, np.broadcast_to(p_BM, (count, 3)))
        R_WM[:, k] = R_WB @ R_BM
    return p_WM, R_WM


def marker_velocities(results: Results, markers: list[dict[str, Any]]) -> FloatArray:
    """``v_WM (T, n, 3)`` [m/s]: velocity of the origins of the scene markers ``markers`` at every
    output instant, world components, ``v_B + w_B x (R_WB p_BM) (+ R_WB T q' on a flexible body)``."""
    bodies = results.layout.body_names
    v_WM = np.zeros((len(results), len(markers), 3))
    for k, marker in enumerate(markers):
        if "cable" in marker:
            v_WM[:, k] = results.cable(marker["cable"]["name"]).velocity_at(marker["cable"]["arc_length"])
        elif marker["body"] >= 0:
            body = results.body(bodies[marker["body"]])
            p_BM = np.broadcast_to(np.array(marker["position"]), (len(results), 3))
            elastic = _elastic_motion(body, marker)
            if elastic is not None:
                p_BM = p_BM + elastic[0]
            p_BM_W = np.einsum("tab,tb->ta", body.rotation, p_BM)
            v_WM[:, k] = body.velocity + np.cross(body.angular_velocity, p_BM_W)
            if elastic is not None:
                v_WM[:, k] += np.einsum("tab,tb->ta", body.rotation, elastic[2])
    return v_WM
