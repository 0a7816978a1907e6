"""Cylindrical joint: rotation about and sliding along the common z-axis."""

from multibody.model.joints.base import PARALLEL_Z, Joint, in_plane


class Cylindrical(Joint):
    """z-axes parallel and I's origin on J's z-axis: two DOF (rotation and translation along z)."""

    rows = PARALLEL_Z + (in_plane("x"), in_plane("y"))
    coordinates = ("rotation", "translation")
