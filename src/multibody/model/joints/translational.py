"""Translational (prismatic) joint: sliding along the common z-axis of I and J only."""

from multibody.model.joints.base import NO_ROTATION_ABOUT_Z, PARALLEL_Z, Joint, in_plane


class Translational(Joint):
    """I and J keep their orientation and I's origin stays on J's z-axis: one DOF along z."""

    rows = PARALLEL_Z + (NO_ROTATION_ABOUT_Z, in_plane("x"), in_plane("y"))
    coordinates = ("translation",)
