"""Helpers the checks share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from corpus.doc import Doc


def docs_from(records: Iterable[dict[str, Any]]) -> list[Doc]:
    return [Doc(r["id"], r["text"], r["meta"]) for r in records]
