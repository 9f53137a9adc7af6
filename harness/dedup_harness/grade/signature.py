"""A submission's names and signatures against the stub ``corpus/dedup.pyi``.

``static_problems(surface)`` compares what the worker found after importing the submission (names,
kinds, parameters: data, never objects) with the stub: parameter names, kinds and the defaults the
stub gives. Each difference is a ``Problem`` in plain words.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.submission import Problem
from dedup_harness.grade.worker.protocol import FLOAT, INNER, TAG

STUB = IMPL_ROOT / "corpus" / "dedup.pyi"
KINDS = {
    "POSITIONAL_ONLY": "positional-only",
    "POSITIONAL_OR_KEYWORD": "positional",
    "VAR_POSITIONAL": "*args",
    "KEYWORD_ONLY": "keyword-only",
    "VAR_KEYWORD": "**kwargs",
}


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any = None  # a ("value", x) pair when the stub gives a default, else None


def stub_surface(stub: Path = STUB) -> dict[str, list[Param] | None]:
    """Each name the stub declares: its parameters for a function, None for a value."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    surface: dict[str, list[Param] | None] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            surface[node.target.id] = None
        elif isinstance(node, ast.FunctionDef):
            surface[node.name] = stub_params(node.args)
    return surface


def stub_params(args: ast.arguments) -> list[Param]:
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = [
        Param(a.arg, "POSITIONAL_ONLY" if a in args.posonlyargs else "POSITIONAL_OR_KEYWORD", _literal(d))
        for a, d in zip(positional, defaults, strict=True)
    ]
    if args.vararg:
        params.append(Param(args.vararg.arg, "VAR_POSITIONAL"))
    params += [
        Param(a.arg, "KEYWORD_ONLY", _literal(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    if args.kwarg:
        params.append(Param(args.kwarg.arg, "VAR_KEYWORD"))
    return params


def _literal(node: ast.expr | None) -> Any:
    return None if node is None else ("value", ast.literal_eval(node))


SIGNATURE = "{} is not the contract's"  # a signature problem in one phrase


def static_problems(surface: dict[str, Any], stub: Path = STUB) -> list[Problem]:
    """Every way the imported submission's names and signatures differ from the stub."""
    problems: list[Problem] = []
    for name, want in stub_surface(stub).items():
        got = surface.get(name) or {"kind": "missing"}
        wrong = SIGNATURE.format(name)
        if got.get("kind") == "missing":
            problems.append(Problem("missing", f"{name} is missing: every check that uses it fails", f"no {name}"))
        elif want is None and got.get("kind") != "value":
            problems.append(Problem("signature", f"{name} should be a value (a tuple of names), not a function", wrong))
        elif want is None and got.get("type") != "tuple":
            problems.append(Problem("signature", f"{name} should be a tuple, got a {got.get('type')}", wrong))
        elif want is not None and got.get("kind") != "function":
            problems.append(Problem("signature", f"{name} should be a function, got a {got.get('type')} value", wrong))
        elif want is not None and got.get("params") is not None:
            problems += [
                Problem("signature", f"{name}: {line}", wrong) for line in param_differences(want, got["params"])
            ]
    return problems


def param_differences(want: list[Param], got: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    got_by_name = {p.get("name"): p for p in got}
    for i, param in enumerate(want):
        other = got_by_name.get(param.name)
        if other is None:
            lines.append(f"parameter {param.name!r} is missing")
            continue
        if other.get("kind") != param.kind:
            lines.append(f"parameter {param.name!r} should be {KINDS[param.kind]}, is {KINDS.get(other['kind'], '?')}")
        elif param.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") and got.index(other) != i:
            lines.append(f"parameter {param.name!r} should come at position {i + 1}, is at {got.index(other) + 1}")
        lines += default_differences(param, other.get("default"))
    for other in got:
        optional = other.get("default") is not None or other.get("kind") in ("VAR_POSITIONAL", "VAR_KEYWORD")
        if other.get("name") not in {p.name for p in want} and not optional:
            lines.append(f"extra required parameter {other.get('name')!r}: the checks never pass it")
    return lines


def default_differences(param: Param, default: dict[str, Any] | None) -> list[str]:
    if param.default is None:
        return []
    want = param.default[1]
    if default is None:
        return [f"parameter {param.name!r} should default to {want!r}, has no default"]
    got = _plain(default.get("value")) if "value" in default else default.get("repr")
    if "value" not in default or got != want:
        return [f"parameter {param.name!r} should default to {want!r}, defaults to {got!r}"]
    return []


def _plain(value: Any) -> Any:
    """A default as the worker sent it (tagged JSON), for comparison with the stub's literal."""
    if type(value) is dict and value.get(TAG) == FLOAT:
        return float(value[INNER])
    return value if not isinstance(value, dict) else repr(value)
