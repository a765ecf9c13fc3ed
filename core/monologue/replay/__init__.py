"""Viewing recordings: ``monologue replay``, ``watch`` and ``log``, and how they show a
session. Built on :mod:`monologue.recording` (reading) and the pipeline (a replay runs a
recording through a live session); ``monologue.cli`` registers the commands. Everything
here is private.
"""

__all__: list[str] = []
