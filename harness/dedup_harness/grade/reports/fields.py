"""A dataclass's fields as labelled values for a page, so a field added to the data shows with no template change.

``CheckFeedback`` grows (a minimal failing case per failed check, say): the HTML report renders
whatever fields it has, in their declared order, leaving out the empty ones. A text becomes a block,
a list of texts a list, a nested dataclass or mapping its own labelled fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Field:
    label: str  # the field's name in words: ``smallest_input`` -> "smallest input"
    text: str = ""  # a single value
    items: tuple[str, ...] = ()  # a list of values
    fields: tuple[Field, ...] = ()  # a nested record


def fields_of(record: object) -> tuple[Field, ...]:
    """The non-empty fields of a dataclass instance (or the items of a mapping), in order."""
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        pairs = [(f.name, getattr(record, f.name)) for f in dataclasses.fields(record)]
    elif isinstance(record, Mapping):
        pairs = [(str(key), value) for key, value in record.items()]
    else:
        return ()
    return tuple(field for name, value in pairs if (field := _field(name, value)) is not None)


def _field(name: str, value: Any) -> Field | None:
    label = name.replace("_", " ")
    if value is None or value == "" or value == () or value == []:
        return None
    if (dataclasses.is_dataclass(value) and not isinstance(value, type)) or isinstance(value, Mapping):
        return Field(label, fields=fields_of(value))
    if isinstance(value, (list, tuple)):
        return Field(label, items=tuple(str(item) for item in value))
    return Field(label, text=str(value))
