"""Revolute joint: rotation about the common z-axis of I and J only."""

from multibody.model.joints.base import PARALLEL_Z, Joint, coincident


class Revolute(Joint):
    """I and J origins coincide and their z-axes stay parallel: one rotational DOF about z."""

    rows = coincident() + PARALLEL_Z
    coordinates = ("rotation",)
