"""The grading worker's wire format: one JSON object per line; values as tagged JSON.

``str``, ``int``, ``bool`` and ``None`` travel as themselves. Every other value is an object with a
tag ``t``: ``float`` (``v``: its repr), ``bytes`` (``v``: hex), ``list``, ``tuple``, ``set``,
``frozenset`` (``v``: the items), ``dict`` (``v``: ``[key, value]`` pairs), ``path`` (``v``: str) and
``doc`` (``id``, ``text``, ``meta``). Only builtin types and Doc cross. Three more tags, in the
grader's requests only, are handles to objects that stay on one side, each named by an ``id``:
``input`` (the caller's documents, pulled by the worker a batch at a time), ``output`` (an output
living in the worker) and ``mirror`` (the caller's stats dict, whose contents travel back with every
reply). An exception crosses as a dict (``described``) and is rebuilt as a builtin (``rebuilt``).

Both sides use this module, so the format has one home: the worker encodes what the submission
returns (made of whatever subclasses of builtins it likes) and decodes the grader's requests; the
grader encodes arguments (exact builtin types only) and decodes replies, refusing anything
malformed, since the submission can make the worker send anything. Standard library only: this
package runs inside the sandbox, where the harness is not importable.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

TAG, INNER, HANDLE_ID = "t", "v", "id"
FLOAT, DOC, BYTES, DICT, PATH = "float", "doc", "bytes", "dict", "path"
INPUT, OUTPUT, MIRROR = "input", "output", "mirror"  # the handles
DOC_FIELDS = ("id", "text", "meta")
DOC_TEXT = DOC_FIELDS[1]
ERROR_FIELDS = ("type", "origin", "message", "where")
# An error's crash site, beside those fields: [file name, line, function] of the innermost frame in the
# submission's own files. The grader takes it only in that shape (``crash_site``) and hangs it on the
# rebuilt exception under SITE_ATTRIBUTE, whence the outcome recorder reads it (core/outcome_recorder.py
# keeps its own copy of the name: this package imports nothing of the harness).
SITE = "site"
SITE_ATTRIBUTE = "dedup_harness_site"
SITE_FILE_NAME = 64  # characters of a crash site's file name, at most
SITE_FUNCTION = 120  # characters of its function's dotted name, at most
CODE_NAMES = ("<module>", "<lambda>", "<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>", "<locals>")
SEQUENCES: dict[str, Callable[[Any], Any]] = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}
# The module surface the worker reports after importing a submission.
NAMES = ("STATS_KEYS", "paragraphs", "paragraph_hash", "bloom_rate", "exact_dedup")
# Exception types the grader rebuilds; any other exception crosses as the first of these in its MRO.
MAPPED = (
    "FileNotFoundError",
    "PermissionError",
    "OSError",
    "KeyError",
    "IndexError",
    "LookupError",
    "ZeroDivisionError",
    "OverflowError",
    "ArithmeticError",
    "RecursionError",
    "NotImplementedError",
    "RuntimeError",
    "MemoryError",
    "TypeError",
    "ValueError",
    "AttributeError",
    "NameError",
    "ImportError",
)
MAX_ATTEMPTS = 40  # refused attempts one worker reports, at most
MAX_TEXT = 2000  # characters of an error message that cross


class WireError(ValueError):
    """A value that is not valid tagged JSON (or carries a handle where none may be)."""


Resolve = Callable[[str, dict[str, Any]], Any]


def encode(value: Any, doc_type: type | None, *, exact: bool) -> Any:
    """A value as tagged JSON.

    ``exact`` (the grader's side) takes builtins and Doc of exactly those types; without it (the
    worker's side) subclasses are turned into the builtin they extend, so nothing of the
    submission's making survives the trip. Anything else is a TypeError.
    """
    if value is None or type(value) in (bool, int, str):
        return value
    if not exact:
        plain = _plain_scalar(value)
        if plain is not _NOT_SCALAR:
            return plain
    kind = type(value) if exact else _builtin_base(value, doc_type)
    if kind is float:
        return {TAG: FLOAT, INNER: float.__repr__(value)}
    if doc_type is not None and kind is doc_type:
        return {TAG: DOC, **{name: encode(getattr(value, name), doc_type, exact=exact) for name in DOC_FIELDS}}
    if kind in (bytes, bytearray):
        return {TAG: BYTES, INNER: bytes(value).hex()}
    if kind in (list, tuple, set, frozenset):
        return {TAG: kind.__name__, INNER: [encode(v, doc_type, exact=exact) for v in value]}
    if kind is dict:
        pairs = [[encode(k, doc_type, exact=exact), encode(v, doc_type, exact=exact)] for k, v in dict.items(value)]
        return {TAG: DICT, INNER: pairs}
    if isinstance(value, PurePath):
        return {TAG: PATH, INNER: str(value)}
    if exact:
        raise TypeError(f"a {type(value).__qualname__} cannot be sent to the grading worker")
    raise TypeError(
        f"the submission produced an object of type {type(value).__qualname__}, which cannot be checked: "
        "only builtin types and Doc leave the worker"
    )


_NOT_SCALAR = object()


def _plain_scalar(value: Any) -> Any:
    """A subclass of bool, int or str as the plain builtin value, else _NOT_SCALAR."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, str):
        return str.__str__(value)
    return _NOT_SCALAR


def _builtin_base(value: Any, doc_type: type | None) -> type | None:
    """The builtin type (or Doc) a value of the submission's making extends, if any."""
    if doc_type is not None and isinstance(value, doc_type):
        return doc_type
    bases = (float, bytes, bytearray, list, tuple, set, frozenset, dict)
    return next((base for base in bases if isinstance(value, base)), None)


def decode(value: Any, doc_type: type, *, resolve: Resolve | None = None) -> Any:
    """Tagged JSON rebuilt into builtins and Doc; a malformed value is a WireError.

    ``resolve(tag, value)`` resolves the handle tags; without it (the grader's side) they are refused.
    """
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is not dict or type(value.get(TAG)) is not str:
        raise WireError(f"not a tagged value: {str(value)[:80]}")
    tag, inner = value[TAG], value.get(INNER)
    if tag == FLOAT and type(inner) is str:
        return float(inner)
    if tag == DOC and all(name in value for name in DOC_FIELDS):
        return doc_type(*(decode(value[name], doc_type, resolve=resolve) for name in DOC_FIELDS))
    if tag == BYTES and type(inner) is str:
        return bytes.fromhex(inner)
    if tag in SEQUENCES and type(inner) is list:
        return SEQUENCES[tag](decode(v, doc_type, resolve=resolve) for v in inner)
    if tag == DICT and type(inner) is list:
        return dict(_pair(pair, doc_type, resolve) for pair in inner)
    if tag == PATH and type(inner) is str:
        return Path(inner)
    if resolve is not None and tag in (INPUT, OUTPUT, MIRROR) and type(value.get(HANDLE_ID)) is int:
        return resolve(tag, value)
    raise WireError(f"unknown or malformed tag {tag!r}")


def _pair(pair: Any, doc_type: type, resolve: Resolve | None) -> tuple[Any, Any]:
    if type(pair) is not list or len(pair) != 2:
        raise WireError("a dict entry that is not a [key, value] pair")
    return decode(pair[0], doc_type, resolve=resolve), decode(pair[1], doc_type, resolve=resolve)


def handle(tag: str, handle_id: int, contents: Any = None) -> dict[str, Any]:
    """A handle of ``tag`` (INPUT, OUTPUT or MIRROR) to the object ``handle_id``; a mirror carries the
    dict's contents (its tagged pairs) as they are when the call starts."""
    return {TAG: tag, HANDLE_ID: handle_id} if contents is None else {TAG: tag, HANDLE_ID: handle_id, INNER: contents}


def text_of(item: Any) -> str | None:
    """The text of a tagged document, else None (what a batch's size is reckoned from)."""
    text = item.get(DOC_TEXT) if type(item) is dict and item.get(TAG) == DOC else None
    return text if type(text) is str else None


def mapped_name(error: BaseException) -> str:
    """The name of the first builtin exception in MAPPED that ``error`` is an instance of."""
    names = [cls.__name__ for cls in type(error).__mro__ if cls.__module__ == "builtins"]
    return next((name for name in names if name in MAPPED), "RuntimeError")


def mapped_type(name: object) -> type[BaseException]:
    """The builtin exception type a MAPPED name stands for (RuntimeError for anything else)."""
    return getattr(builtins, name) if isinstance(name, str) and name in MAPPED else RuntimeError


def described(error: BaseException, where: str = "", site: list[Any] | None = None) -> dict[str, Any]:
    """An exception as it crosses: its MAPPED type, its own class, its message, and where it was raised (``site``:
    the innermost frame in the submission's files, as [file name, line, function])."""
    text = repr(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    fields = (mapped_name(error), type(error).__qualname__, text[:MAX_TEXT], where)
    return {**dict(zip(ERROR_FIELDS, fields, strict=True)), **({SITE: site} if site else {})}


def crash_site(value: Any) -> str:
    """A crash site that crossed ([file name, line, function]) in words, "dedup.py line 40, in _spool"; "" when it
    is anything else. The submission controls it: only a short file name ending .py, a whole line number and a
    dotted name of identifiers pass, so the words hold nothing but what they claim to."""
    if type(value) is not list or len(value) != 3:
        return ""
    name, line, function = value
    if not (type(name) is str and 3 < len(name) <= SITE_FILE_NAME and name.endswith(".py") and "/" not in name):
        return ""
    if not (name[:-3].replace("-", "_").isidentifier() and type(line) is int and 0 < line < 10**7):
        return ""
    parts = function.split(".") if type(function) is str and len(function) <= SITE_FUNCTION else [""]
    if not all(part.isidentifier() or part in CODE_NAMES for part in parts):
        return ""
    return f"{name} line {line}, in {function}"


def rebuilt(error: Any) -> BaseException:
    """An exception that crossed, as one of the MAPPED builtin types with its own message."""
    if type(error) is not dict:
        raise WireError("malformed error")
    kind, origin, message, where = (error.get(name, "") for name in ERROR_FIELDS)
    exception_type = mapped_type(kind)
    text = str(message) if str(origin) == exception_type.__name__ else f"{origin}: {message}"
    site = crash_site(error.get(SITE))
    if str(where) and not site:  # the frames the worker saw, where no line of the student's is known
        text += f" (at {where})"
    rebuilt_error = exception_type(text) if exception_type is not KeyError else KeyError(str(message))
    if site:
        setattr(rebuilt_error, SITE_ATTRIBUTE, site)
    return rebuilt_error
