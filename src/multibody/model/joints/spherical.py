"""Spherical (ball) joint."""

from multibody.model.joints.base import Joint, coincident


class Spherical(Joint):
    """I and J origins coincide: three rotational DOF."""

    rows = coincident()
