"""What the grader and the worker say to each other: every kind of message and every key, once, for both.

Each message is a JSON object on one line (``channel``) whose KIND says what it is. Values inside
travel as tagged JSON (``wire``).

Request ids. Every request the grader makes carries an ID, a number never used before by that
grader. Everything the worker sends about a request carries that number back as RE, and the
grader's answer to a pull carries the pull's own ID back as RE: an answer is taken only by the
request it names, never by the one that happens to be waiting (after a fault, a reply to an
abandoned request may still be on its way; a submission can forge any line).

The grader asks (each with ID):
  call   FN, ARGS, KWARGS        run a function of the submission's module
  next   OUTPUT                  the next document of an output living in the worker
  take   OUTPUT                  a batch of its documents (``batches``), for a caller reading it to the end
  close  OUTPUT                  close it
  probe  TRIES                   the isolation probe (``probe``)
  bye                            the threads the submission left running; then the worker exits
and answers a pull with ``feed`` (RE: the pull's ID): ITEMS, then END (None: more to come; STOP;
or the error the input raised). Once the submission has printed more than the grader reads, it says
``quiet`` (no ID, no reply): from then on the worker's stdout and stderr go to /dev/null.

The worker says, unasked: ``started`` (VERSION, CONFINEMENT) or ``confine_error`` (TEXT), then
``ready`` (SURFACE) or ``import_error`` (ERROR); ``attempt`` (TEXT, CATEGORY: the rule it met, one of
``categories``) whenever its audit hook refused something, from any thread. About the request RE it
says ``pull`` (ID, INPUT: more input documents, please) any number of times, then one reply, which
ends the request: ``value`` (VALUE), ``output`` (OUTPUT: an output now living in the worker),
``batch`` (ITEMS, DONE), ``stop``, ``error`` (ERROR) or ``exit`` (TEXT: the submission raised
SystemExit or the like). A pull and a reply carry MIRRORS:
the current contents of the caller's stats dicts.

Standard library only: the worker imports it inside the sandbox.
"""

from __future__ import annotations

from typing import Any

MAX_MESSAGE = 8 << 20  # bytes in one line from the worker; the grader reads no further (see ``budget``)

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
    (None: more to come; STOP; or the error it raised, as ``wire.described``)."""
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
    """The submission raised: the exception as ``wire.described`` gives it."""
    return {KIND: ERROR, RE: request, ERROR: described}


def exit_(request: int, text: str) -> dict[str, Any]:
    return {KIND: EXIT, RE: request, TEXT: text}


def with_mirrors(message: dict[str, Any], mirrors: list[list[Any]]) -> dict[str, Any]:
    """A pull or reply with the contents of the caller's stats dicts, as ``[mirror id, tagged dict]`` pairs."""
    return {**message, MIRRORS: mirrors}
