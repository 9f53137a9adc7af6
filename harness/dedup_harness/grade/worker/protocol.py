"""What the grader and the worker say to each other, and how it travels: the one module both sides read.

- **Lines** (``Channel``): a JSON object per line of a pipe. The grader trusts nothing that arrives: every
  wait has a deadline and a line longer than MAX_MESSAGE is refused before more of it is read. The worker
  trusts the grader and waits as long as it takes.
- **Values** (``encode``, ``decode``): tagged JSON. ``str``, ``int``, ``bool`` and ``None`` travel as
  themselves, every other value as an object tagged ``t``; only builtin types and Doc cross. Three tags,
  in the grader's requests only, are handles to what stays on one side: ``input`` (the caller's documents,
  pulled a batch at a time), ``output`` (an output living in the worker) and ``mirror`` (the caller's
  stats dict, whose contents travel back with every pull and reply). An exception crosses as a dict
  (``described``) and is rebuilt as a builtin (``rebuilt``). The grader encodes exact builtins and
  refuses anything malformed it decodes: the submission can make the worker send anything.
- **Messages** (one builder each; keys and types in SHAPES, held by ``checked``): every request carries
  an ID its grader never used before, and all the worker says about it carries that ID back as RE (a
  feed carries its pull's ID). An answer is taken only by the request it names: after a fault a reply
  to an abandoned request may still be on its way, and a submission can forge any line. The grader asks
  ``call``, ``next``, ``take``, ``close`` (an output's), ``probe`` and ``bye`` (then the worker exits),
  answers a pull with ``feed``, and says ``quiet`` once it has read enough of what the submission
  prints. The worker says ``started`` then ``ready`` (or ``confine_error``, ``import_error``) and
  ``attempt`` unasked; about a request, any number of pulls and then one of REPLIES.
- **Batches** (``Batch``): documents cross a batch at a time, one round trip each (a pull answered by a
  feed, a take by a batch), ending at a number of documents or of characters, whichever comes first.

Standard library only: the worker imports it inside the sandbox, where the harness is not importable.
"""

from __future__ import annotations

import builtins
import json
import os
import select
import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

# -- messages ----------------------------------------------------------------------------------------------

MAX_MESSAGE = 8 << 20  # bytes in one line from the worker; the grader reads no further (see ``calls``)

KIND, ID, RE = "kind", "id", "re"
FN, ARGS, KWARGS, OUTPUT, TRIES = "fn", "args", "kwargs", "output", "tries"
ITEMS, END, STOP = "items", "end", "stop"
VERSION, CONFINEMENT, TEXT, SURFACE, ERROR = "version", "confinement", "text", "surface", "error"
CATEGORY = "category"
INPUT, VALUE, DONE, MIRRORS = "input", "value", "done", "mirrors"

# The grader's requests, and its answer to a pull.
CALL, NEXT, TAKE, CLOSE, PROBE, BYE, FEED = "call", "next", "take", "close", "probe", "bye", "feed"
QUIET = "quiet"
# What the worker says unasked.
STARTED, CONFINE_ERROR, READY, IMPORT_ERROR, ATTEMPT = "started", "confine_error", "ready", "import_error", "attempt"
# What the worker says about a request: a pull, or one of the replies that end it.
PULL, OUTPUT_MADE, BATCH, EXIT = "pull", "output", "batch", "exit"
REPLIES = frozenset({VALUE, OUTPUT_MADE, BATCH, STOP, ERROR, EXIT})

_ANY = object
_NONE = type(None)
# Each kind's keys and the JSON types their values may have (exact types: a bool is no number here).
SHAPES: dict[str, dict[str, tuple[type, ...]]] = {
    CALL: {ID: (int,), FN: (str,), ARGS: (list,), KWARGS: (dict,)},
    NEXT: {ID: (int,), OUTPUT: (int,)},
    TAKE: {ID: (int,), OUTPUT: (int,)},
    CLOSE: {ID: (int,), OUTPUT: (int,)},
    PROBE: {ID: (int,), TRIES: (dict,)},
    BYE: {ID: (int,)},
    FEED: {RE: (int,), ITEMS: (list,), END: (_NONE, str, dict)},
    QUIET: {},
    STARTED: {VERSION: (list,), CONFINEMENT: (dict, _NONE)},
    CONFINE_ERROR: {TEXT: (str,)},
    READY: {SURFACE: (dict,)},
    IMPORT_ERROR: {ERROR: (dict,)},
    ATTEMPT: {TEXT: (str,), CATEGORY: (str,)},
    PULL: {RE: (int,), ID: (int,), INPUT: (int,), MIRRORS: (list,)},
    VALUE: {RE: (int,), VALUE: (_ANY,), MIRRORS: (list,)},
    OUTPUT_MADE: {RE: (int,), OUTPUT: (int,), MIRRORS: (list,)},
    BATCH: {RE: (int,), ITEMS: (list,), DONE: (bool,), MIRRORS: (list,)},
    STOP: {RE: (int,), MIRRORS: (list,)},
    ERROR: {RE: (int,), ERROR: (dict,), MIRRORS: (list,)},
    EXIT: {RE: (int,), TEXT: (str,), MIRRORS: (list,)},
}


class MessageError(ValueError):
    """A message of no known kind, or without the keys its kind has."""


def checked(message: dict[str, Any], kinds: frozenset[str] | None = None) -> dict[str, Any]:
    """``message`` itself once its kind (one of ``kinds``, if given) and its keys' types are as SHAPES says."""
    kind = message.get(KIND)
    if type(kind) is not str or kind not in SHAPES or (kinds is not None and kind not in kinds):
        raise MessageError(f"a message of an unexpected kind ({str(kind)[:40]})")
    for key, types in SHAPES[kind].items():
        if key not in message or (_ANY not in types and type(message[key]) not in types):
            raise MessageError(f"a {kind} message without a proper {key!r}")
    return message


FROM_GRADER = frozenset({CALL, NEXT, TAKE, CLOSE, PROBE, BYE, FEED, QUIET})


# -- the grader's side ------------------------------------------------------------------------------


def call(request: int, fn: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    return {KIND: CALL, ID: request, FN: fn, ARGS: args, KWARGS: kwargs}


def on_output(kind: str, request: int, output: int) -> dict[str, Any]:
    """A ``next``, ``take`` or ``close`` of the output ``output``."""
    return {KIND: kind, ID: request, OUTPUT: output}


def probe(request: int, tries: dict[str, Any]) -> dict[str, Any]:
    return {KIND: PROBE, ID: request, TRIES: tries}


def bye(request: int) -> dict[str, Any]:
    return {KIND: BYE, ID: request}


def quiet() -> dict[str, Any]:
    """What the submission prints from now on is discarded in the worker (the grader has read enough of it)."""
    return {KIND: QUIET}


def feed(pull: int, items: list[Any], end: str | dict[str, str] | None) -> dict[str, Any]:
    """The answer to the pull ``pull``: a batch of input documents, and how the input goes on after it
    (None: more to come; STOP; or the error it raised, as ``described``)."""
    return {KIND: FEED, RE: pull, ITEMS: items, END: end}


# -- the worker's side ------------------------------------------------------------------------------


def started(version: list[int], confinement: dict[str, Any] | None) -> dict[str, Any]:
    return {KIND: STARTED, VERSION: version, CONFINEMENT: confinement}


def confine_error(text: str) -> dict[str, Any]:
    return {KIND: CONFINE_ERROR, TEXT: text}


def ready(surface: dict[str, Any]) -> dict[str, Any]:
    return {KIND: READY, SURFACE: surface}


def import_error(error: dict[str, str]) -> dict[str, Any]:
    return {KIND: IMPORT_ERROR, ERROR: error}


def attempt(text: str, category: str) -> dict[str, Any]:
    return {KIND: ATTEMPT, TEXT: text, CATEGORY: category}


def pull(request: int, pull_id: int, input_id: int) -> dict[str, Any]:
    """During the request ``request``: the next documents of the input ``input_id``, please (pull ``pull_id``)."""
    return {KIND: PULL, RE: request, ID: pull_id, INPUT: input_id}


def value(request: int, encoded: Any) -> dict[str, Any]:
    return {KIND: VALUE, RE: request, VALUE: encoded}


def output_made(request: int, output: int) -> dict[str, Any]:
    return {KIND: OUTPUT_MADE, RE: request, OUTPUT: output}


def batch(request: int, items: list[Any], done: bool) -> dict[str, Any]:
    return {KIND: BATCH, RE: request, ITEMS: items, DONE: done}


def stop(request: int) -> dict[str, Any]:
    return {KIND: STOP, RE: request}


def error(request: int, described: dict[str, str]) -> dict[str, Any]:
    """The submission raised: the exception as ``described`` gives it."""
    return {KIND: ERROR, RE: request, ERROR: described}


def exit_(request: int, text: str) -> dict[str, Any]:
    return {KIND: EXIT, RE: request, TEXT: text}


def with_mirrors(message: dict[str, Any], mirrors: list[list[Any]]) -> dict[str, Any]:
    """A pull or reply with the contents of the caller's stats dicts, as ``[mirror id, tagged dict]`` pairs."""
    return {**message, MIRRORS: mirrors}


# -- values ------------------------------------------------------------------------------------------------

TAG, INNER, HANDLE_ID = "t", "v", "id"
FLOAT, DOC, BYTES, DICT, PATH = "float", "doc", "bytes", "dict", "path"
MIRROR = "mirror"  # a handle; INPUT and OUTPUT (the others) are the messages' keys of the same names
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


# -- lines -------------------------------------------------------------------------------------------------

CHUNK = 1 << 20  # bytes read or written at a time


class ChannelTimeout(Exception):
    """The other side did not read or answer within the time given."""


class ChannelClosed(Exception):
    """The other side's end is gone: it exited or was killed."""


class ChannelGarbage(Exception):
    """A line that is not a JSON object; the message says what it is."""


class ChannelOverflow(Exception):
    """More than ``longest`` bytes without a line end: the line was not read to its end."""


class Channel:
    """Line-delimited JSON over two file descriptors: one to read from, one to write to."""

    def __init__(self, read_fd: int, write_fd: int, *, longest: int | None = None) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.longest = longest
        self.buffer = bytearray()
        # In the worker, the audit hook may send a notice from a submission's thread mid-send: one
        # line at a time, whole.
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Write one message; past ``deadline`` (a ``time.monotonic()`` value) it is a ChannelTimeout."""
        view = memoryview(encode_line(message))
        with self.lock:
            if deadline is not None and os.get_blocking(self.write_fd):
                os.set_blocking(self.write_fd, False)  # a write into a full pipe never waits past the deadline
            while view:
                if deadline is not None and not _ready(self.write_fd, deadline, writing=True):
                    raise ChannelTimeout
                try:
                    view = view[os.write(self.write_fd, view[:CHUNK]) :]
                except BlockingIOError:
                    continue  # the other side read less than select promised: wait again
                except BrokenPipeError:
                    raise ChannelClosed from None

    def receive(self) -> dict[str, Any]:
        """The next message, however long it takes (the worker's side)."""
        return parse_line(self.receive_line())

    def receive_line(self, deadline: float | None = None) -> bytes:
        """The next line, without its end; past ``deadline`` it is a ChannelTimeout."""
        while (end := self.buffer.find(b"\n")) < 0:
            if self.longest is not None and len(self.buffer) > self.longest:
                raise ChannelOverflow
            if deadline is not None and not _ready(self.read_fd, deadline, writing=False):
                raise ChannelTimeout
            chunk = os.read(self.read_fd, CHUNK)
            if not chunk:
                raise ChannelClosed
            self.buffer += chunk
        if self.longest is not None and end > self.longest:
            raise ChannelOverflow
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line


def _ready(fd: int, until: float, *, writing: bool) -> bool:
    """Is ``fd`` ready to read (or write) before ``until``?"""
    remaining = max(0.0, until - time.monotonic())
    ready = select.select([], [fd], [], remaining)[1] if writing else select.select([fd], [], [], remaining)[0]
    return bool(ready)


def encode_line(message: dict[str, Any]) -> bytes:
    """A message as one line: ASCII JSON (a lone surrogate in a string survives as an escape)."""
    return (json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n").encode("ascii")


def parse_line(line: bytes) -> dict[str, Any]:
    """A line back into a message; anything but a JSON object is a ChannelGarbage."""
    try:
        message = json.loads(line)
    except RecursionError:
        raise ChannelGarbage("a message nested too deeply to read") from None
    except ValueError:
        raise ChannelGarbage("a message that is not JSON") from None
    if type(message) is not dict:
        raise ChannelGarbage("a message that is not an object")
    return message


# -- batches -----------------------------------------------------------------------------------------------

PULL_DOCUMENTS = 64
# What the worker holds of its input at a time stays the same whatever the corpus, so its memory
# (which check 14 measures) tells what the stage keeps, not what the grader sent ahead.
PULL_CHARACTERS = 1 << 18
TAKE_DOCUMENTS = 256
# One character may take 12 bytes on the wire (an astral one is two escaped surrogates), so a batch
# of documents stays well under what the grader reads of one message whatever the text.
TAKE_CHARACTERS = MAX_MESSAGE // 16
OTHER_WEIGHT = 64  # characters counted for an item that is not a document with a text


class Batch:
    """Items gathered for one message, until it holds ``documents`` of them or ``characters`` of text."""

    def __init__(self, documents: int, characters: int) -> None:
        self.documents = documents
        self.characters = characters
        self.items: list[Any] = []
        self.size = 0

    @property
    def full(self) -> bool:
        return len(self.items) >= self.documents or self.size >= self.characters

    def add(self, item: Any) -> None:
        """Add one encoded item (tagged JSON, ``encode``)."""
        self.items.append(item)
        text = text_of(item)
        self.size += len(text) if text is not None else OTHER_WEIGHT


def pull_batch() -> Batch:
    """A batch of the caller's input documents, for the worker."""
    return Batch(PULL_DOCUMENTS, PULL_CHARACTERS)


def take_batch() -> Batch:
    """A batch of an output's documents, for a grader reading it to the end."""
    return Batch(TAKE_DOCUMENTS, TAKE_CHARACTERS)
