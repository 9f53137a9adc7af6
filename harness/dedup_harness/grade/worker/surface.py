"""What a submission's module holds under each name of the contract, as plain data for the stub's comparison.

Used by the worker on what it imported, and by ``check`` on a student's module in-process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def surface(module: Any, name: str, encode: Callable[[Any], Any]) -> dict[str, Any]:
    """``name``'s kind in ``module``: missing, a value (encoded when it can be), or a function's parameters."""
    if not hasattr(module, name):
        return {"kind": "missing"}
    value = getattr(module, name)
    if not callable(value):
        try:
            return {"kind": "value", "type": type(value).__name__, "value": encode(value)}
        except Exception:
            return {"kind": "value", "type": type(value).__name__}
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return {"kind": "function", "params": None}
    return {"kind": "function", "params": [_parameter(p, encode) for p in signature.parameters.values()]}


def _parameter(p: inspect.Parameter, encode: Callable[[Any], Any]) -> dict[str, Any]:
    default: Any = None
    if p.default is not p.empty:
        try:
            default = {"value": encode(p.default)}
        except Exception:
            default = {"repr": repr(p.default)[:200]}
    return {"name": p.name, "kind": p.kind.name, "default": default}
