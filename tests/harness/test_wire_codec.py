"""The wire format, one codec on both sides: what the worker sends, the grader reads back, and the reverse.

The grader's side takes exact builtin types and Doc and refuses anything malformed; the worker's side
turns whatever subclasses a submission returns into the builtins they extend.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus.doc import Doc
from dedup_harness.grade.worker.protocol import WireError, decode, encode, rebuilt


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -(10**30),
        "é ☕",
        1.5,
        math.inf,
        b"\x00\xff",
        [1, [2, "x"]],
        (1, "a"),
        {"k": {"n": [1, None]}, "t": (1,)},
        {1: "int key", (1, 2): "tuple key"},
        frozenset({1, 2}),
        Doc("a", "text", {"lang": "en"}),
        Path("/tmp/spool"),
    ],
    ids=repr,
)
def test_values_come_back_equal_and_of_the_same_type(value: Any) -> None:
    back = decode(encode(value, Doc, exact=True), Doc)
    assert back == value and type(back) is type(value)


def test_nan_survives_the_trip() -> None:
    assert math.isnan(decode(encode(math.nan, Doc, exact=True), Doc))


class Always:
    def __eq__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize("value", [Always(), object(), [Always()], type("MyList", (list,), {})([1])])
def test_objects_of_other_types_are_refused(value: Any) -> None:
    with pytest.raises(TypeError, match="cannot be sent"):
        encode(value, Doc, exact=True)


@pytest.mark.parametrize(
    "wire",
    [
        {"t": "pickle", "v": "gASV"},
        {"t": "float", "v": 1.5},
        {"no tag": 1},
        [1, 2],
        {"t": "list", "v": "abc"},
        {"t": "dict", "v": [[{"t": "list", "v": []}, 1]]},
    ],
)
def test_anything_else_on_the_wire_is_a_protocol_error(wire: Any) -> None:
    with pytest.raises((WireError, TypeError)):
        decode(wire, Doc)


@pytest.mark.parametrize("tag", ["input", "output", "mirror"])
def test_the_grader_refuses_handles_the_worker_would_resolve(tag: str) -> None:
    with pytest.raises(WireError):
        decode({"t": tag, "id": 1, "v": []}, Doc)


def test_a_documents_fields_are_rebuilt_from_plain_data() -> None:
    wire = {"t": "doc", "id": "x", "text": "y", "meta": {"t": "dict", "v": [["k", {"t": "float", "v": "0.5"}]]}}
    assert decode(wire, Doc) == Doc("x", "y", {"k": 0.5})


@pytest.mark.parametrize(
    ("error", "kind", "text"),
    [
        ({"type": "ValueError", "origin": "ValueError", "message": "bad B"}, ValueError, "bad B"),
        ({"type": "ValueError", "origin": "MyError", "message": "bad"}, ValueError, "MyError: bad"),
        ({"type": "SystemExit", "origin": "SystemExit", "message": ""}, RuntimeError, "SystemExit: "),
        ({"type": "__import__('os')", "origin": "x", "message": "m"}, RuntimeError, "x: m"),
        ({"type": "FileNotFoundError", "origin": "FileNotFoundError", "message": "gone"}, FileNotFoundError, "gone"),
    ],
)
def test_the_workers_exceptions_map_onto_builtins(error: dict[str, str], kind: type, text: str) -> None:
    exception = rebuilt(error)
    assert type(exception) is kind and str(exception) == text


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(), st.floats(allow_nan=False), st.binary(max_size=8)
)
keys = st.one_of(st.integers(), st.text(max_size=5), st.tuples(st.integers(), st.text(max_size=3)))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(keys, inner, max_size=3),
        st.frozensets(st.integers(), max_size=3),
        st.builds(
            Doc, st.text(max_size=5), st.text(max_size=20), st.dictionaries(st.text(max_size=3), inner, max_size=2)
        ),
    ),
    max_leaves=12,
)


def over_the_wire(value: Any) -> Any:
    """What the JSON line carries (keys sorted or not, it is parsed back the same)."""
    return json.loads(json.dumps(value, allow_nan=False))


def resolve_nothing(tag: str, value: dict[str, Any]) -> Any:
    raise AssertionError(f"no handle in this value, got {tag}")


@given(values)
def test_a_value_goes_from_the_worker_to_the_grader_and_back_unchanged(value: Any) -> None:
    """The worker's encoder, the grader's decoder, the grader's encoder, the worker's decoder: one round trip."""
    at_grader = decode(over_the_wire(encode(value, Doc, exact=False)), Doc)
    assert at_grader == value and type(at_grader) is type(value)
    at_worker = decode(over_the_wire(encode(at_grader, Doc, exact=True)), Doc, resolve=resolve_nothing)
    assert at_worker == value and type(at_worker) is type(value)


class Shouty(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class Big(int):
    def __int__(self) -> int:
        return 0


@pytest.mark.parametrize(
    ("made", "plain"),
    [
        (Shouty("x"), "x"),
        (Big(7), 7),
        (type("MyList", (list,), {})([Shouty("a")]), ["a"]),
        (type("MyDict", (dict,), {"items": lambda self: [("forged", 1)]})({"k": 1}), {"k": 1}),
        (type("MyFloat", (float,), {"__repr__": lambda self: "0.0"})(2.5), 2.5),
    ],
    ids=["str subclass", "int subclass", "list subclass", "dict subclass", "float subclass"],
)
def test_the_submissions_subclasses_arrive_as_the_builtins_they_extend(made: Any, plain: Any) -> None:
    """Nothing of the submission's making crosses: an always-equal str arrives as a plain str."""
    back = decode(over_the_wire(encode(made, Doc, exact=False)), Doc)
    assert back == plain and type(back) is type(plain)
