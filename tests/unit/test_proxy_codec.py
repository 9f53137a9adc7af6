"""The trusted side's codec: only builtins and Doc come back, and the worker's errors map to builtins."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from corpus.doc import Doc
from dedup_harness.proxy import ProtocolError, decode, encode, rebuild_error


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
    back = decode(encode(value, Doc), Doc)
    assert back == value and type(back) is type(value)


def test_nan_survives_the_trip() -> None:
    assert math.isnan(decode(encode(math.nan, Doc), Doc))


class Always:
    def __eq__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize("value", [Always(), object(), [Always()], type("MyList", (list,), {})([1])])
def test_objects_of_other_types_are_refused(value: Any) -> None:
    with pytest.raises(TypeError, match="cannot be sent"):
        encode(value, Doc)


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
    with pytest.raises((ProtocolError, TypeError)):
        decode(wire, Doc)


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
    rebuilt = rebuild_error(error)
    assert type(rebuilt) is kind and str(rebuilt) == text
