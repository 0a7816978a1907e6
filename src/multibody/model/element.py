"""The base of every named thing a user adds to a model."""

from __future__ import annotations


class ModelError(ValueError):
    """Invalid model input. The message names the element, what is wrong and how to fix it."""


class LawError(ModelError):
    """A law the user supplied (a load function) raised or returned something unusable while it
    was evaluated; the message names the element and the time. An analysis reports it as its own
    failure at that time (``AnalysisError``), at the start as later in the run."""


class Element:
    """A named element of a model (body, joint, motion, force).

    Subclasses validate their own numbers in ``__init__`` and raise ``ModelError`` naming
    themselves; cross-references (markers on bodies of the same model) are checked by
    ``Model.add``.
    """

    kind: str = "element"
    parts: tuple[Element, ...] = ()
    """elements this one is made of (a beam's segments and springs, a rope's spans): ``Model.add``
    adds them with it, after it"""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ModelError(f"{self.kind} name must be a non-empty string, got {name!r}")
        self.name = name

    def describe(self) -> str:
        """``kind 'name'``, the way error messages refer to this element."""
        return f"{self.kind} '{self.name}'"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
