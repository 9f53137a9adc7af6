"""`dedup-harness verify` as a command: exit status, the JSON, Markdown and Stryker reports, the kill matrix file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dedup_harness.cli import build_parser
from dedup_harness.commands import verify as command
from dedup_harness.commands.outputs import OutputError, Outputs
from dedup_harness.verify.targets import Layout
from world import KILL_SETS, edit, make_world

STRYKER_STATUSES = {"Killed", "Survived", "NoCoverage", "CompileError", "RuntimeError", "Timeout", "Ignored", "Pending"}


@pytest.fixture
def world(tmp_path: Path) -> Layout:
    return make_world(tmp_path / "world")


def verify(layout: Layout, *argv: str) -> int:
    args = build_parser().parse_args(["verify", "--jobs", "2", *argv])
    return command.run(args, layout)


def assert_stryker_shape(report: dict) -> None:  # type: ignore[type-arg]
    """The fields mutation-testing-report-schema (version 2) requires, with their types."""
    assert report["schemaVersion"].split(".")[0] == "2"
    assert {"high", "low"} <= report["thresholds"].keys()
    for path, entry in report["files"].items():
        assert isinstance(entry["source"], str) and entry["language"] == "python", path
        for mutant in entry["mutants"]:
            assert isinstance(mutant["id"], str) and isinstance(mutant["mutatorName"], str)
            assert mutant["status"] in STRYKER_STATUSES
            start, end = mutant["location"]["start"], mutant["location"]["end"]
            assert start["line"] >= 1 and start["column"] >= 1
            assert (end["line"], end["column"]) >= (start["line"], start["column"])
            assert not mutant["replacement"].endswith("\n"), "a replacement ends on its last changed column"
    for tests in report["testFiles"].values():
        assert all({"id", "name"} <= test.keys() for test in tests["tests"])


def test_a_clean_run_exits_zero_and_writes_every_report(world: Layout, tmp_path: Path) -> None:
    out = {name: tmp_path / f"report.{name}" for name in ("json", "markdown", "stryker")}
    out["markdown"].write_text("## an earlier command of the step\n", encoding="utf-8")
    assert (
        verify(world, "--json", str(out["json"]), "--markdown", str(out["markdown"]), "--stryker", str(out["stryker"]))
        == 0
    )
    document = json.loads(out["json"].read_text())
    assert document["schema"] == "dedup-harness/verify/1" and document["ok"] is True
    assert [t["name"] for t in document["targets"]] == ["canary", "reference", "s07", "s08"]
    assert document["kill_matrix"]["measured"] == KILL_SETS == document["kill_matrix"]["committed"]
    assert document["targets"][2]["outcomes"] == {"test_split": "failed", "test_rate": "passed", "test_keys": "passed"}
    summary = out["markdown"].read_text()
    assert summary.startswith("## an earlier command of the step\n") and "verify passed" in summary
    stryker = json.loads(out["stryker"].read_text())
    assert_stryker_shape(stryker)
    assert {m["id"]: m["status"] for m in stryker["files"]["corpus/dedup.py"]["mutants"]} == {
        "s07": "Killed",
        "s08": "Killed",
    }
    assert (stryker["config"]["mutants"], stryker["config"]["entries"]) == (2, 2), "one entry per one-hunk mutant"


def test_a_breach_exits_one_and_says_so_in_every_report(
    world: Layout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(world.suite_dir / "test_tiny.py", 'paragraphs("a\\n \\nb")', 'paragraphs("a\\n\\nb")')
    stryker = tmp_path / "stryker.json"
    assert verify(world, "--json", "-", "--stryker", str(stryker)) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is False
    assert ("survivor", "s07", "test_split") in [(b["kind"], b["target"], b["check"]) for b in document["breaches"]]
    statuses = {m["id"]: m["status"] for m in json.loads(stryker.read_text())["files"]["corpus/dedup.py"]["mutants"]}
    assert statuses["s07"] == "Survived"


def test_the_markdown_summary_is_appended_like_a_github_step_summary(tmp_path: Path) -> None:
    """Every command of a GitHub step appends to $GITHUB_STEP_SUMMARY; verify must not wipe what came before."""
    summary = tmp_path / "summary.md"
    for text in ("first\n", "second\n"):
        with Outputs("verify") as outputs:
            outputs.appended("--markdown", summary)
            outputs.put("--markdown", text)
            outputs.commit()
    assert summary.read_text() == "first\nsecond\n"
    with pytest.raises(OutputError, match=r"--markdown .*: no folder"), Outputs("verify") as outputs:
        outputs.appended("--markdown", tmp_path / "missing" / "summary.md")


def test_write_kill_matrix_replaces_a_stale_file(world: Layout) -> None:
    world.kill_matrix_file.write_text(json.dumps({"s07": [], "s08": []}), encoding="utf-8")
    assert verify(world, "--write-kill-matrix") == 0
    assert json.loads(world.kill_matrix_file.read_text()) == KILL_SETS


def test_a_target_that_is_not_an_implementation_root_exits_two(
    world: Layout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert verify(world, "--target", str(tmp_path)) == 2
    assert "not an implementation root" in capsys.readouterr().err


def test_the_canary_stop_is_explained_and_exits_one(world: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    edit(world.suite_dir / "test_tiny.py", '    assert impl.STATS_KEYS[-1] == "docs_out"', "    assert True")
    assert verify(world) == 1
    out = capsys.readouterr().out
    assert "verify stopped at the canary" in out
    assert "canary-survived: canary / test_keys" in out
    assert "checks that kill no mutant" not in out
