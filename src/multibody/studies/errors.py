"""The error a study raises for a bad set-up (parameters, responses, store, client)."""

from __future__ import annotations


class StudyError(Exception):
    """A study cannot run as set up: the message names the parameter, response or file and the fix."""
