"""The optional parts of the install, and the one line a command says when it needs one that is missing.

A student's install brings only what ``check`` and the suite import; staff's tools live in extras
(``EXTRAS``, as pyproject.toml has them; ``staff`` is all five). A command asks here before any work
starts, so a missing extra is one line and exit status 2, never a traceback after a batch was graded.
"""

from __future__ import annotations

import importlib.util

# extra -> the modules it brings that the harness imports (in the order the message names them)
EXTRAS: dict[str, tuple[str, ...]] = {
    "html": ("matplotlib", "jinja2"),
    "mutation": ("mutmut",),
    "numpy": ("numpy",),
    "similarity": ("copydetect",),
    "xlsx": ("openpyxl",),
}


class MissingExtra(Exception):
    """An extra a command needs is not installed; the message says which, and the pip command that adds it."""


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def require(extra: str, what: str) -> None:
    """Raise ``MissingExtra`` naming ``what`` (``--html``, ``mutation testing``) when ``extra`` is not installed."""
    missing = [module for module in EXTRAS[extra] if not installed(module)]
    if missing:
        raise MissingExtra(f"{what} needs {' and '.join(missing)}: pip install 'dedup-harness[{extra}]'")
