"""Planar joint: I's xy-plane slides on J's xy-plane."""

from multibody.model.joints.base import PARALLEL_Z, Joint, in_plane


class Planar(Joint):
    """I origin in J's xy-plane and z-axes parallel: three DOF (x, y, rotation about z)."""

    rows = (in_plane("z"),) + PARALLEL_Z
