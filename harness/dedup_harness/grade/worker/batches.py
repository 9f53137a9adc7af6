"""How many documents travel in one message: the one estimate both sides use.

Documents cross a batch at a time, one round trip per batch, never one per document: the grader's
input documents to the worker (a ``pull`` answered by a ``feed``), and an output's documents to a
grader reading it to the end (a ``take`` answered by a ``batch``). A batch ends at a number of
documents or once its texts pass a number of characters, whichever comes first, so it may end one
document past the characters.

Standard library only: the worker imports it inside the sandbox.
"""

from __future__ import annotations

from typing import Any

from .messages import MAX_MESSAGE
from .wire import text_of

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
        """Add one encoded item (tagged JSON, ``wire.encode``)."""
        self.items.append(item)
        text = text_of(item)
        self.size += len(text) if text is not None else OTHER_WEIGHT


def pull_batch() -> Batch:
    """A batch of the caller's input documents, for the worker."""
    return Batch(PULL_DOCUMENTS, PULL_CHARACTERS)


def take_batch() -> Batch:
    """A batch of an output's documents, for a grader reading it to the end."""
    return Batch(TAKE_DOCUMENTS, TAKE_CHARACTERS)
