"""The power instrument (benchmarks/check_power.py) stays honest: its extra mutants are real, current and aimed.

Each extra mutant must still apply to the reference (its old text occurs there exactly once), must name
a check of the registry, and must behave otherwise than the reference: a mutant that behaves alike
would count as a gap of the suite when it is no bug at all. Behaviour is read in-process on small
probes (the stage's answers, its spool, its memory), so this costs seconds; the full power run, the
whole suite against every mutant, is the benchmark's. The tables' arithmetic is tested on made-up runs.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dedup_harness.core import reference, worked_example
from dedup_harness.core.checks import BY_NAME, CHECKS
from dedup_harness.core.corpora import mixed_corpus, unique_corpus
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.judges.running import records, run_stage
from dedup_harness.core.judges.spool import ENDINGS
from dedup_harness.core.paths import DATA_ROOT, IMPL_ROOT
from dedup_harness.core.split_cases import SPLIT_CASES

POWER = DATA_ROOT / "benchmarks" / "power"
if not POWER.is_dir():  # an installed wheel carries no benchmarks
    pytest.skip("the benchmarks folder is not in this installation", allow_module_level=True)


def load(name: str) -> ModuleType:
    """A module of benchmarks/power/, by its path (the benchmarks are not a package on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"power_{name}", POWER / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


extra_mutants, tables = load("extra_mutants"), load("tables")
MUTANTS = extra_mutants.load_mutants()
IDENTITY = "test_paragraph_identity_is_the_exact_text"  # its mutants are the lossy identities
REFERENCE = reference.reference_stage()
Doc = REFERENCE.Doc


class TestTheDataFile:
    def test_every_extra_mutant_names_a_check_of_the_registry(self) -> None:
        assert {m.check for m in MUTANTS} <= set(CHECKS)

    def test_every_check_but_identity_has_three_extra_mutants_or_more(self) -> None:
        """The identity check's are the 24 lossy identities, taken from their own test."""
        counts = {check: sum(m.check == check for m in MUTANTS) for check in CHECKS}
        assert {check for check, n in counts.items() if n < 3} == {IDENTITY}
        assert len(extra_mutants.lossy_targets()) >= 20

    @pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
    def test_each_old_text_occurs_exactly_once_in_the_reference(self, mutant: Any) -> None:
        assert (IMPL_ROOT / mutant.file).read_text(encoding="utf-8").count(mutant.old) == 1

    def test_a_mutant_whose_old_text_moved_fails_loudly(self) -> None:
        moved = extra_mutants.ExtraMutant("moved", CHECKS[0], "corpus/dedup.py", "no such text", "x", "a bug")
        with pytest.raises(extra_mutants.MutantError, match="occurs 0 times"):
            moved.mutated((IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8"))

    @pytest.mark.parametrize(
        ("entry", "complaint"),
        [
            ('check = "test_no_such_check"', "names no check of the registry"),
            ('check = "test_stats_name_every_key"\nextra = 1', "fields unknown: \\['extra'\\]"),
            ('bug = ""\ncheck = "test_stats_name_every_key"', "fields missing or empty: \\['bug'\\]"),
        ],
    )
    def test_a_malformed_entry_is_refused_by_name(self, tmp_path: Path, entry: str, complaint: str) -> None:
        fields = {"name": '"m"', "file": '"corpus/dedup.py"', "old": '"a"', "new": '"b"', "bug": '"a bug"'}
        lines = [f"{key} = {value}" for key, value in fields.items() if f"{key} =" not in entry]
        path = tmp_path / "mutants.toml"
        path.write_text("[[mutant]]\n" + "\n".join([*lines, entry]) + "\n", encoding="utf-8")
        with pytest.raises(extra_mutants.MutantError, match=complaint):
            extra_mutants.load_mutants(path)


# -- behaviour: what a stage answers on small probes ------------------------------------------------

SMALL = [
    Doc("page", "Intro.\n\nFooter line.\n\nBody.\n\nFooter line.", {"n": 1}),
    Doc("echo", "Again.\n\nAgain.\n\nAgain."),
    Doc("crlf", "  Title line  \r\nsecond line\t\n\n\n\nLast paragraph.   ", {"tags": ["x"]}),
    Doc("edges", "\n \nOnly paragraph, between blank lines.\n\t\n"),
    Doc("empty", ""),
    Doc("blank", " \t\n\n  "),
    Doc("later", "Body.\n\nNew words.\r\n\r\nAgain.", {"n": 2}),
    Doc("copy", "Intro.\n\nOnly paragraph, between blank lines."),
]
HAND = [Doc(doc_id, text) for doc_id, text in worked_example.DOCUMENTS]
MIXED = [Doc(r["id"], r["text"], r["meta"]) for r in mixed_corpus(seed=3, docs=60, repeat_rate=0.3)]
UNIQUE = [Doc(r["id"], r["text"], r["meta"]) for r in unique_corpus(seed=4, paragraphs=3000, per_doc=25)]
RUNS = [
    ("no documents", [], 10),
    ("hand", HAND, 10),
    *(("small", SMALL, b) for b in (0.1, 1, 10)),
    ("mixed", MIXED, 0.25),
    ("unique", UNIQUE, 1),
]
SIZES = (0.1, 0.25, 0.5, 1, 2.5, 10, 0, -1, math.nan, math.inf)
HASHED = ("The cat sat.", "é ☕", "café", "x" * 300, "one\ntwo")


def answer(ask: Callable[[], Any]) -> Any:
    """What ``ask`` returns, or the name of what it raised: a raise is behaviour too."""
    try:
        return ask()
    except Exception as error:
        return f"raised {type(error).__name__}"


def outputs(stage: Any, docs: list[Any], b: float) -> Any:
    out, stats = run_stage(stage, docs, b)
    return records(out), stats


def default_b(stage: Any) -> dict[str, Any]:
    stats: dict[str, Any] = {}
    list(stage.exact_dedup(iter(SMALL), stats=stats))
    return stats


def judged(stage: Any, scratch: Path, judge: str, inputs: dict[str, Any]) -> Any:
    verdict = JUDGES[judge](Subject(stage, scratch), inputs)
    return verdict.failing, verdict.got


def behaviour(stage: Any, scratch: Path) -> Iterator[tuple[str, Callable[[], Any]]]:
    """The stage's observable answers, cheapest first (the memory probe last: it runs the stage on megabytes)."""
    yield "paragraphs", lambda: [stage.paragraphs(text) for text, _ in SPLIT_CASES]
    yield "paragraph_hash", lambda: [stage.paragraph_hash(p) for p in HASHED]
    yield "bloom_rate", lambda: [answer(partial(stage.bloom_rate, b)) for b in SIZES]
    for name, docs, b in RUNS:
        yield f"output and stats, {name} at B={b}", partial(outputs, stage, docs, b)
    yield "stats with B left out", lambda: default_b(stage)
    yield "returns an iterator", lambda: type(stage.exact_dedup([], 10)).__name__
    for ending in ENDINGS:
        yield f"spool, {ending}", partial(judged, stage, scratch / ending, "spool", {"docs": SMALL, "ending": ending})
    # The check's own corpora: at 8 and 16 documents a stage that reads its spool back with readlines()
    # grows no more than the reference does.
    yield "memory", lambda: judged(stage, scratch / "memory", "memory", {})[0]


def first_difference(stage: Any, scratch: Path, expected: dict[str, Any]) -> str | None:
    """The first probe on which ``stage`` answers otherwise than the reference did (None: it never does)."""
    for probe, ask in behaviour(stage, scratch):
        if answer(ask) != expected[probe]:
            return probe
    return None


@pytest.fixture(scope="module")
def reference_behaviour(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    scratch = tmp_path_factory.mktemp("reference")
    return {probe: answer(ask) for probe, ask in behaviour(REFERENCE, scratch)}


def test_the_reference_passes_its_own_memory_and_spool_probes(reference_behaviour: dict[str, Any]) -> None:
    """Else a mutant would differ from the reference there for free."""
    assert reference_behaviour["memory"] is False
    assert all(reference_behaviour[f"spool, {e}"][0] is False for e in ENDINGS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_extra_mutant_behaves_otherwise_than_the_reference(
    mutant: Any, tmp_path: Path, reference_behaviour: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run without spool_dir spools in tempfile's folder: what a mutant leaves there stays in the test's.
    (tmp_path / "temp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    stage = reference.stage_of(mutant.build(tmp_path / "root"))
    assert first_difference(stage, tmp_path, reference_behaviour) is not None, f"{mutant.name} is no bug: {mutant.bug}"


# -- the tables' arithmetic ------------------------------------------------------------------------

FIRST, SECOND = CHECKS[0], CHECKS[1]


def run(name: str, source: str, check: str, kills: list[str], broken: str = "") -> Any:
    outcomes = {c: "failed" if c in kills else "passed" for c in CHECKS}
    return tables.MutantRun(name, source, check, "a bug", outcomes, broken)


MADE_UP_RUNS = [
    run("a", "extra", FIRST, [FIRST]),
    run("b", "extra", FIRST, [SECOND]),
    run("c", "extra", SECOND, []),
    run("d", "extra", SECOND, [], broken="every check crashed"),
    run("s01", "catalogue", "", [FIRST, SECOND]),
    run("s02", "catalogue", "", [SECOND]),
]
COMMITTED = {"s01": [FIRST, SECOND], "s02": [FIRST, SECOND]}


class TestTheTables:
    def test_a_check_counts_its_own_mutants_and_the_catalogue_entries_that_name_it(self) -> None:
        first, second = tables.check_powers(MADE_UP_RUNS, COMMITTED, {FIRST: 0.5})[:2]
        assert (first.extra, first.extra_killed, first.survivors) == (["a", "b"], ["a"], {"b": "passed"})
        assert (first.catalogue, first.catalogue_killed) == (["s01", "s02"], ["s01"])
        assert (first.killed, first.targeted) == (2, 4)
        assert (first.power, first.cpu_seconds, first.also_kills, first.sole) == (0.5, 0.5, 0, ["a"])
        assert (second.survivors, second.also_kills, second.catalogue_killed) == (
            {"c": "passed", "d": "broken"},
            1,
            ["s01", "s02"],
        )
        assert second.sole == ["b", "s02"]

    def test_a_gap_is_an_extra_mutant_no_check_kills_and_a_broken_one_is_none(self) -> None:
        assert [r.name for r in tables.gaps(MADE_UP_RUNS)] == ["c"]

    def test_a_catalogue_kill_set_that_moved_is_reported(self) -> None:
        assert tables.catalogue_drift(MADE_UP_RUNS, COMMITTED) == {"s02": {"lost": [FIRST], "gained": []}}

    def test_a_run_whose_every_check_crashed_is_broken_and_one_crash_is_not(self) -> None:
        assert tables.broken_reason(dict.fromkeys(CHECKS, "error"), [])
        assert tables.broken_reason({FIRST: "error", SECOND: "failed"}, []) == ""
        assert "collection failed" in tables.broken_reason({}, ["ImportError"])

    def test_a_kill_an_earlier_run_made_and_this_one_did_not_is_lost(self) -> None:
        before = {"mutants": [{"name": "a", "kills": [FIRST, SECOND]}, {"name": "gone", "kills": [FIRST]}]}
        assert tables.lost_kills(before, MADE_UP_RUNS) == {SECOND: ["a"], "not measured now": ["gone"]}

    def test_the_markdown_names_every_check_by_number(self) -> None:
        text = tables.power_table(tables.check_powers(MADE_UP_RUNS, COMMITTED, {}))
        assert [line.split("|")[1].strip() for line in text.splitlines()[2:]] == [
            str(BY_NAME[c].number) for c in CHECKS
        ]
