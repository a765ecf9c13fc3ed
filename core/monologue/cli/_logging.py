"""The command line's log output: ``monologue: message`` on standard error.

Its own module so that ``monologue --help``, which logs nothing, does not import
:mod:`logging` (with traceback, string and weakref, a few milliseconds of start-up).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

__all__ = ["configure_logging", "log"]

log = logging.getLogger("monologue")


class _Formatter(logging.Formatter):
    """``monologue: message``, tracebacks only with ``--verbose``."""

    def __init__(self, verbose: bool) -> None:
        super().__init__("monologue: %(message)s")
        self.verbose = verbose

    def formatException(self, ei: Any) -> str:
        return super().formatException(ei) if self.verbose else ""

    def format(self, record: logging.LogRecord) -> str:
        if not self.verbose:
            record.exc_text = ""
            text = super().format(record)
            return text.rstrip()
        return super().format(record)


def configure_logging(verbose: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter(verbose))
    log.handlers[:] = [handler]
    log.setLevel(logging.DEBUG if verbose else logging.WARNING)
    log.propagate = False
