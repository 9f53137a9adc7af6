"""The stub ``dedup.py`` a student starts from (``dedup-harness start``): the contract's names, words and signatures,
and bodies not written yet.

It is written from ``impl/corpus/dedup.pyi``, the signatures grade holds every submission to, so the
stub has exactly the surface grade expects, and its only problems are the functions not written yet:
each raises ``NotImplementedError`` naming itself, which a check that crashes on it says, with the
line. ``STATS_KEYS`` is filled in from ``core/contract.py`` (the stats are named by the contract, not
by the student). Each function keeps the signature's own lines and its docstring as the .pyi has them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from dedup_harness.core.contract import STATS_KEYS
from dedup_harness.grade.signature import STUB

INDENT = "    "
HEADER = (
    "Written by `dedup-harness start`: each function raises NotImplementedError until you write it, and\n"
    "`dedup-harness check` runs the course's checks on what you have (`dedup-harness tests` lists them).\n"
)


def not_written(function: str) -> str:
    """What a stub's function raises: its name, and that it is not written yet."""
    return f"{function}() is not written yet"


def stub_source(stub: Path = STUB) -> str:
    """The stub module's text, from the contract's ``.pyi``."""
    text = stub.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    parts = [_module_docstring(tree), "from __future__ import annotations"]
    if imports:  # as the .pyi groups them
        assert imports[-1].end_lineno is not None
        parts.append("\n".join(lines[imports[0].lineno - 1 : imports[-1].end_lineno]))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "STATS_KEYS":
            parts.append(_stats_keys())
        elif isinstance(node, ast.FunctionDef):
            parts.append("\n" + _function(lines, node))
    return "\n\n".join(parts) + "\n"


def _module_docstring(tree: ast.Module) -> str:
    said = (ast.get_docstring(tree, clean=True) or "").rstrip()
    return f'"""{said}\n\n{HEADER}"""'


def _segment(lines: list[str], node: ast.stmt) -> str:
    assert node.end_lineno is not None
    return "\n".join(lines[node.lineno - 1 : node.end_lineno])


def _stats_keys() -> str:
    keys = "".join(f'{INDENT}"{key}",\n' for key in STATS_KEYS)
    return f"STATS_KEYS: tuple[str, ...] = (\n{keys})"


def _function(lines: list[str], node: ast.FunctionDef) -> str:
    """The signature's lines and the docstring as the .pyi has them, then a body that says it is not written yet."""
    body = node.body[0]
    if not (isinstance(body, ast.Expr) and isinstance(body.value, ast.Constant) and isinstance(body.value.value, str)):
        raise ValueError(f"{STUB.name}: {node.name} has no docstring to start from")
    header = "\n".join(lines[node.lineno - 1 : body.lineno - 1])
    raises = f'{INDENT}raise NotImplementedError("{not_written(node.name)}")'
    return f"{header}\n{_segment(lines, body)}\n{raises}"
