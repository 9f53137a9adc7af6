"""The spool gives back every document equal to what went in, whatever plain types its meta is built from."""

from __future__ import annotations

import collections
import enum
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from corpus.dedup import Spool, spool_documents
from corpus.doc import Doc


class Label(str):
    """A str subclass, as some libraries hand out."""


class Level(enum.IntEnum):
    LOW = 1


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


def round_trip(docs: list[Doc], folder: Path) -> list[Doc]:
    spool = Spool(folder)
    spool_documents(docs, spool)
    return list(spool.documents())


@given(
    st.lists(
        st.builds(
            Doc, st.text(max_size=8), st.text(max_size=60), st.dictionaries(st.text(max_size=5), JSON, max_size=3)
        ),
        max_size=3,
    )
)
def test_plain_documents_come_back_equal(tmp_path_factory, docs: list[Doc]) -> None:
    assert round_trip(docs, tmp_path_factory.mktemp("spool")) == [d for d in docs]


def test_subclasses_in_meta_and_id_come_back_as_json_would_keep_them(tmp_path: Path) -> None:
    meta = {"counts": collections.defaultdict(int, a=2), "order": collections.OrderedDict(b=1), "level": Level.LOW}
    docs = [Doc(Label("id-1"), "Some text.", meta)]
    (back,) = round_trip(docs, tmp_path)
    assert back == docs[0]
    assert type(back.id) is str and back.meta == {"counts": {"a": 2}, "order": {"b": 1}, "level": 1}
