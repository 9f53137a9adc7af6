"""The committed fixture is exactly what the generator writes."""

from __future__ import annotations

from dedup_harness.core.fixture import fixture_files
from dedup_harness.core.paths import FIXTURE_DIR


def test_the_fixture_regenerates_byte_for_byte() -> None:
    for name, data in fixture_files().items():
        assert (FIXTURE_DIR / name).read_bytes() == data, f"fixtures/data.03/{name} differs from the generator's output"
