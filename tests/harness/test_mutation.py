"""`dedup-harness mutation`'s own logic: reading mutmut's outputs, keying survivors, judging the run.

No real mutmut run here (that is the `mutation` tox env and the CI gate): mutmut's outputs are given
as the text and JSON it writes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from dedup_harness.commands import mutation as command
from dedup_harness.mutation import fastest_tests_first
from dedup_harness.mutation.equivalents import (
    PLACEHOLDER,
    Equivalents,
    EquivalentsError,
    function_of,
    load_equivalents,
    mutant_key,
    paste_lines,
)
from dedup_harness.mutation.measure import Fate, MutationReport, Survivor, stale, verdict_of
from dedup_harness.mutation.mutmut_cli import MutationError, check_buckets, parse_results, report_progress
from dedup_harness.mutation.report import render_terminal, to_json
from dedup_harness.mutation.rerun import Rerun
from dedup_harness.mutation.scratch import child_env, make_scratch, mutmut_config

DIFF = """\
--- corpus/bloom.py
+++ corpus/bloom.py
@@ -1,4 +1,4 @@
 def bits_for(capacity: int, error_rate: float) -> int:
     n = max(capacity, 1)
-    return max(1, math.ceil(-n * math.log(error_rate) / LN2**2))
+    return max(2, math.ceil(-n * math.log(error_rate) / LN2**2))"""

# The same change after the function gained a line above it: other line numbers, other context.
DIFF_AFTER_AN_EDIT = """\
--- corpus/bloom.py
+++ corpus/bloom.py
@@ -2,5 +2,5 @@
     \"\"\"The bit count m.\"\"\"
     n = max(capacity, 1)
-        return max(1, math.ceil(-n * math.log(error_rate) / LN2**2))
+        return max(2, math.ceil(-n * math.log(error_rate) / LN2**2))"""

BUCKETS = {
    "killed": 7,
    "survived": 2,
    "total": 10,
    "no_tests": 0,
    "skipped": 0,
    "suspicious": 0,
    "timeout": 1,
    "check_was_interrupted_by_user": 0,
    "segfault": 0,
}
RESULTS = "\n".join(
    [f"    corpus.dedup.x_emit__mutmut_{i}: killed" for i in range(1, 8)]
    + [
        "    corpus.bloom.x_bits_for__mutmut_3: survived",
        "    corpus.bloom.xǁBloomFilterǁ__init____mutmut_5: survived",
        "    corpus.hashing.x_fnv1a_64__mutmut_2: timeout",
    ]
)


class TestKeys:
    def test_a_function_is_named_by_its_module_and_name(self) -> None:
        assert function_of("corpus.bloom.x_bits_for__mutmut_3") == "corpus.bloom.bits_for"

    def test_a_method_is_named_by_its_class(self) -> None:
        assert function_of("corpus.bloom.xǁBloomFilterǁ__init____mutmut_5") == "corpus.bloom.BloomFilter.__init__"

    def test_a_name_that_is_no_mutant_is_refused(self) -> None:
        with pytest.raises(ValueError, match="not a mutmut mutant name"):
            function_of("corpus.bloom.bits_for")

    def test_the_key_ignores_mutmuts_number_line_numbers_context_and_indentation(self) -> None:
        first = mutant_key("corpus.bloom.x_bits_for__mutmut_3", DIFF)
        assert first == mutant_key("corpus.bloom.x_bits_for__mutmut_9", DIFF_AFTER_AN_EDIT)
        assert first.startswith("corpus.bloom.bits_for:")

    def test_a_different_change_gets_a_different_key(self) -> None:
        other = DIFF.replace("max(2,", "max(0,")
        assert mutant_key("corpus.bloom.x_bits_for__mutmut_3", DIFF) != mutant_key(
            "corpus.bloom.x_bits_for__mutmut_3", other
        )


class TestEquivalentsFile:
    def write(self, tmp_path: Path, text: str) -> Path:
        path = tmp_path / "equivalents.toml"
        path.write_text(text, encoding="utf-8")
        return path

    def test_a_pasted_entry_with_its_reason_written_reads_back_under_its_key(self, tmp_path: Path) -> None:
        key = mutant_key("corpus.bloom.x_bits_for__mutmut_3", DIFF)
        entry = paste_lines(key, DIFF).replace(PLACEHOLDER, "m is never below 2 here")
        assert entry.startswith("# corpus.bloom.bits_for:  -return max(1,")
        loaded = load_equivalents(self.write(tmp_path, f"[equivalent]\n{entry}\n"))
        assert loaded.reason_by_key == {key: "m is never below 2 here"}

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            (f'[equivalent]\n"corpus.x:0123456789ab" = "{PLACEHOLDER}"\n', "placeholder"),
            ('[equivalent]\n"corpus.x:12" = "why"\n', "is not a key"),
            ('[equivalent]\n"corpus.x:0123456789ab" = """one\ntwo"""\n', "one line"),
            ('[equivalent]\n"corpus.x:0123456789ab" = ""\n', "one line"),
            ('[other]\n"a" = "b"\n', "unknown table"),
            ("[equivalent\n", "equivalents.toml"),
        ],
        ids=["placeholder", "bad key", "two lines", "empty reason", "unknown table", "not toml"],
    )
    def test_a_bad_entry_is_refused_naming_the_file(self, tmp_path: Path, text: str, message: str) -> None:
        path = self.write(tmp_path, text)
        with pytest.raises(EquivalentsError, match=message) as caught:
            load_equivalents(path)
        assert str(path) in str(caught.value)

    def test_a_missing_file_is_named(self, tmp_path: Path) -> None:
        with pytest.raises(EquivalentsError, match="no such equivalents file"):
            load_equivalents(tmp_path / "nowhere.toml")

    def test_the_committed_file_loads(self) -> None:
        load_equivalents(command.EQUIVALENTS_FILE)


class TestMutmutOutputs:
    def test_results_are_read_line_by_line(self) -> None:
        statuses = parse_results(RESULTS + "\n    corpus.doc.x_compose__mutmut_1: no tests\n")
        assert statuses["corpus.bloom.xǁBloomFilterǁ__init____mutmut_5"] == "survived"
        assert statuses["corpus.doc.x_compose__mutmut_1"] == "no tests"
        assert len(statuses) == 11

    def test_an_unexpected_results_line_is_an_error(self) -> None:
        with pytest.raises(MutationError, match="unexpected line"):
            parse_results("Saved CI/CD stats\n")

    def test_buckets_that_add_up_and_agree_with_the_listing_give_the_total(self) -> None:
        assert check_buckets(BUCKETS, parse_results(RESULTS)) == 10

    def test_buckets_that_do_not_add_up_are_an_error(self) -> None:
        with pytest.raises(MutationError, match="do not add up"):
            check_buckets({**BUCKETS, "total": 11}, parse_results(RESULTS))

    def test_no_mutants_at_all_is_an_error_not_a_perfect_score(self) -> None:
        empty = dict.fromkeys(BUCKETS, 0)
        with pytest.raises(MutationError, match="no mutants"):
            check_buckets(empty, {})

    def test_a_listing_that_disagrees_with_the_buckets_is_an_error(self) -> None:
        statuses = parse_results(RESULTS.replace("_3: survived", "_3: killed"))
        with pytest.raises(MutationError, match="but mutmut-cicd-stats"):
            check_buckets(BUCKETS, statuses)

    def test_a_missing_bucket_is_an_error(self) -> None:
        with pytest.raises(MutationError, match="lacks"):
            check_buckets({k: v for k, v in BUCKETS.items() if k != "segfault"}, parse_results(RESULTS))

    def test_the_status_line_becomes_progress(self) -> None:
        events: list[tuple[str, int | None, int | None]] = []

        def record(phase: str, done: int | None, total: int | None) -> None:
            events.append((phase, done, total))

        for line in ("⠙ Running stats", "⠴ 17/410  🎉 15 🫥 0  ⏰ 0  🤔 0  🙁 2  🔇 0  🧙 0", "    done"):
            report_progress(line, record)
        assert events == [("Running stats", None, None), ("testing mutants", 17, 410)]

    def test_the_scratch_config_points_the_suite_at_the_mutated_copy(self) -> None:
        config = mutmut_config()
        assert 'source_paths = ["corpus"]' in config
        assert '"--impl=."' in config

    def test_every_child_keeps_its_temp_files_in_the_scratch_copy(self, tmp_path: Path) -> None:
        """mutmut's forked runs never remove pytest's numbered folders, and a mutant may leave its spool."""
        make_scratch(tmp_path)
        said = subprocess.run(
            [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
            env=child_env(tmp_path),
            capture_output=True,
            text=True,
            check=True,
        )
        assert Path(said.stdout.strip()) == tmp_path / "tmp"
        assert (tmp_path / "tmp").is_dir()


def survivor(rerun: Rerun, reason: str = "", key: str = "corpus.bloom.bits_for:0123456789ab") -> Survivor:
    return Survivor(
        "corpus.bloom.x_bits_for__mutmut_3", "survived", key, DIFF, rerun, verdict_of(rerun, reason), reason
    )


def report(*survivors: Survivor, equivalents: tuple[str, ...] = ()) -> MutationReport:
    listed = Equivalents(Path("eq.toml"), dict.fromkeys(equivalents, "why"))
    return MutationReport("3.8.1", BUCKETS, 10, list(survivors), stale(listed, survivors), Path("eq.toml"))


class TestJudging:
    @pytest.mark.parametrize(
        ("rerun", "reason", "verdict"),
        [
            (Rerun.FAILED, "", Fate.KILLED_ON_RERUN),
            (Rerun.FAILED, "listed", Fate.KILLED_ON_RERUN),
            (Rerun.TIMEOUT, "", Fate.TIMEOUT),
            (Rerun.ERROR, "", Fate.ERROR),
            (Rerun.PASSED, "listed", Fate.EQUIVALENT),
            (Rerun.PASSED, "", Fate.SURVIVED),
        ],
    )
    def test_a_rerun_and_the_list_decide_the_verdict(self, rerun: Rerun, reason: str, verdict: Fate) -> None:
        assert verdict_of(rerun, reason) is verdict

    def test_an_unreviewed_survivor_fails_the_run(self) -> None:
        assert not report(survivor(Rerun.PASSED)).ok
        assert report(survivor(Rerun.PASSED, "why")).ok
        assert not report(survivor(Rerun.ERROR)).ok

    def test_the_score_counts_timeouts_and_late_kills_and_leaves_equivalents_out(self) -> None:
        late, equivalent = survivor(Rerun.FAILED), survivor(Rerun.PASSED, "why")
        data = to_json(report(late, equivalent, equivalents=(equivalent.key,)))
        assert (data["killed"], data["timeouts"], data["equivalent"], data["non_equivalent"]) == (9, 1, 1, 9)
        assert data["score"] == {"killed_over_total": 0.9, "killed_over_non_equivalent": 1.0}
        assert data["ok"] is True and data["stale_equivalents"] == []

    def test_a_listed_key_no_survivor_matched_is_reported_stale(self) -> None:
        assert report(survivor(Rerun.FAILED), equivalents=("corpus.x:0123456789ab",)).stale_equivalents == [
            "corpus.x:0123456789ab"
        ]

    def test_an_unreviewed_survivor_is_printed_with_its_diff_and_a_ready_entry(self) -> None:
        console = Console(record=True, width=200)
        render_terminal(report(survivor(Rerun.PASSED)), console)
        text = console.export_text()
        assert "+    return max(2, math.ceil(" in text
        assert f'"corpus.bloom.bits_for:0123456789ab" = "{PLACEHOLDER}"' in text


def namespace(tmp_path: Path, **options: object) -> argparse.Namespace:
    defaults = {"json": None, "equivalents": command.EQUIVALENTS_FILE, "max_children": 2}
    return argparse.Namespace(**{**defaults, **options})


class TestCommand:
    def test_an_unreviewed_survivor_exits_1_and_prints_its_diff(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(command, "measure", lambda measurement: report(survivor(Rerun.PASSED)))
        assert command.run(namespace(tmp_path)) == 1
        assert "-    return max(1, math.ceil(" in capsys.readouterr().out

    def test_json_goes_to_stdout_alone_and_the_table_to_stderr(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(command, "measure", lambda measurement: report(survivor(Rerun.FAILED)))
        assert command.run(namespace(tmp_path, json="-")) == 0
        out = capsys.readouterr()
        assert json.loads(out.out)["killed"] == 9
        assert "killed / total" in out.err

    def test_a_measurement_that_cannot_be_judged_exits_2_with_the_reason(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        def broken(measurement: object) -> MutationReport:
            raise MutationError("mutmut made no mutants: nothing was measured")

        monkeypatch.setattr(command, "measure", broken)
        assert command.run(namespace(tmp_path)) == 2
        assert "mutation: mutmut made no mutants" in capsys.readouterr().err

    def test_a_bad_equivalents_file_exits_2_before_mutmut_runs(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert command.run(namespace(tmp_path, equivalents=tmp_path / "missing.toml")) == 2
        assert "missing.toml" in capsys.readouterr().err


class TestFastestFirst:
    def test_durations_come_from_mutmuts_stats_file(self, tmp_path: Path) -> None:
        stats = tmp_path / "mutmut-stats.json"
        stats.write_text(json.dumps({"duration_by_test": {"tests/a.py::slow": 2.5, "tests/a.py::fast": 0.01}}))
        assert fastest_tests_first.durations(stats) == {"tests/a.py::slow": 2.5, "tests/a.py::fast": 0.01}

    @pytest.mark.parametrize("text", [None, "not json", "[]", '{"duration_by_test": 3}'])
    def test_without_a_readable_stats_file_the_order_is_left_alone(self, tmp_path: Path, text: str | None) -> None:
        stats = tmp_path / "mutmut-stats.json"
        if text is not None:
            stats.write_text(text)
        assert fastest_tests_first.durations(stats) == {}
