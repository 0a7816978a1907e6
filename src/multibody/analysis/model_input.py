"""Analyses accept a Model or a compiled System."""

from __future__ import annotations

from multibody.model.model import Model
from multibody.system.system import System


def as_system(model: Model | System) -> System:
    """``model`` compiled, or ``model`` itself if it already is a ``System``."""
    if isinstance(model, System):
        return model
    if isinstance(model, Model):
        return model.compile()
    raise TypeError(f"expected a Model or a System, got {type(model).__name__}")
