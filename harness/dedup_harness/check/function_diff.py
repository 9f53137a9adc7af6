"""A student's functions beside the reference's (``dedup-harness diff``), matched by name, a unified diff each.

Functions are found with ``ast``: the module's own, and each class's methods as ``Class.name``
(nested classes spell their whole path). A function's text runs from its first decorator to its last
line, as the file has it. Two functions of one name are compared line by line (``difflib``); a name
only one side has is listed, so a student sees which of the reference's passes they wrote otherwise
or folded into another function.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


class Unreadable(ValueError):
    """A file that cannot be compared: the message says which and why."""


@dataclass(frozen=True)
class Function:
    name: str  # "paragraphs", or "Spool.documents" for a method
    line: int  # where its text starts (its first decorator)
    text: list[str]  # its lines, ends kept
    code: str = ""  # its syntax tree without its docstring: what it does, whatever its words say


@dataclass(frozen=True)
class Compared:
    """Two modules' functions by name: the diffs of those both have (empty where equal), and the rest."""

    diffs: dict[str, list[str]]  # name -> the unified diff's lines, in the student's order
    only_yours: list[Function]
    only_reference: list[Function]


def functions(path: Path) -> dict[str, Function]:
    """The functions of the Python file at ``path``, by name, in the file's order."""
    try:
        text = path.read_text(encoding="utf-8-sig")
        tree = ast.parse(text, filename=str(path))
    except OSError as exc:
        raise Unreadable(f"{path}: {exc.strerror or exc}") from None
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        raise Unreadable(f"{path}: not Python that parses ({exc})") from None
    lines = text.splitlines(keepends=True)
    return {f.name: f for f in _walk(tree.body, "", lines)}


def _walk(body: list[ast.stmt], prefix: str, lines: list[str]) -> Iterator[Function]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            assert node.end_lineno is not None
            body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
            code = ast.dump(type(node)(**{**vars(node), "body": body}))
            yield Function(prefix + node.name, start, lines[start - 1 : node.end_lineno], code)
        elif isinstance(node, ast.ClassDef):
            yield from _walk(node.body, f"{prefix}{node.name}.", lines)


def compare(yours: Path, reference: Path) -> Compared:
    mine, theirs = functions(yours), functions(reference)
    diffs = {
        name: list(  # a docstring alone changed: the same code, no diff
            difflib.unified_diff(
                theirs[name].text,
                mine[name].text,
                fromfile=f"reference {name} (line {theirs[name].line})",
                tofile=f"yours {name} (line {mine[name].line})",
            )
            if mine[name].code != theirs[name].code
            else ()
        )
        for name in mine
        if name in theirs
    }
    only_yours = [f for name, f in mine.items() if name not in theirs]
    only_reference = [f for name, f in theirs.items() if name not in mine]
    return Compared(diffs, only_yours, only_reference)


def report(compared: Compared) -> list[str]:
    """The comparison for people: each shared function's diff (or that it is the same), then the names one side has."""
    lines: list[str] = []
    for name, diff in compared.diffs.items():
        if not diff:
            lines.append(f"{name}: the same code as the reference's")
            continue
        lines += [f"{name}:", *(line.rstrip("\n") for line in diff), ""]
    lines += [f"only in yours: {f.name} (line {f.line})" for f in compared.only_yours]
    lines += [f"only in the reference: {f.name} (line {f.line})" for f in compared.only_reference]
    shared = len(compared.diffs)
    lines.append(
        f"{shared} function{'' if shared == 1 else 's'} in both ({sum(1 for d in compared.diffs.values() if d)} "
        f"differ), {len(compared.only_yours)} only in yours, {len(compared.only_reference)} only in the reference"
    )
    return lines
