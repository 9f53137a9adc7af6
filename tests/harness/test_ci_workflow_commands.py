"""ci-workflow's commands, run in the order each forge runs them on a scratch class: the gate (verify), each
shard's grade (the shards at once, as on their machines), then merge over every shard's files. What installs
(pip, apt) is left out: this run's environment is the install. GitHub's `${{ }}` expressions are given the
values its contexts would have."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from subprocess import PIPE
from typing import Any

from ruamel.yaml import YAML

from dedup_harness.commands.ci_workflow import PLACES
from dedup_harness.core.paths import IMPL_ROOT

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
INSTALLS = re.compile(r"^\s*(sudo )?(apt-get|python -m pip install)\b")
BIN = Path(sys.executable).parent  # dedup-harness, as the workflow's pip install puts it on PATH


def workflow(forge: str, folder: Path) -> dict[str, Any]:
    subprocess.run([BIN / "dedup-harness", "ci-workflow", forge, str(folder)], check=True)
    loaded: dict[str, Any] = YAML(typ="safe").load((folder / PLACES[forge]).read_text(encoding="utf-8"))
    return loaded


def scratch_class(folder: Path) -> None:
    for name, source in (("alice", IMPL_ROOT / "corpus" / "dedup.py"), ("bob", SAMPLES / "keeps_last.py")):
        (folder / "submissions" / name).mkdir(parents=True)
        (folder / "submissions" / name / "dedup.py").write_bytes(source.read_bytes())


def run_at_once(folder: Path, jobs: list[list[tuple[str, dict[str, str]]]]) -> None:
    """Each job's steps (script, environment) one after the other in bash -e in ``folder``, the jobs all at once
    (one machine each)."""
    runs = []
    for steps in jobs:
        lines = [f"export {k}={shlex.quote(v)}" for _, env in steps for k, v in env.items()]  # no step's clash
        lines += [line for script, _ in steps for line in script.splitlines() if not INSTALLS.match(line)]
        whole = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
        runs.append(subprocess.Popen(["bash", "-e", "-c", "\n".join(lines)], cwd=folder, env=whole, stderr=PIPE))
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err.decode()[-3000:]


def expand(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m[1]], text)


def github_jobs(jobs: dict[str, Any], name: str, summary: Path) -> list[list[tuple[str, dict[str, str]]]]:
    """Job ``name``'s runs, one per entry of its matrix, each its steps with the values GitHub gives their context."""
    shards = jobs[name].get("strategy", {}).get("matrix", {}).get("shard", [None])
    runs = []
    for shard in shards:
        values = {
            "inputs.submissions": "submissions",
            "matrix.shard": str(shard),
            "strategy.job-total": str(len(shards)),
        }
        steps = [step for step in jobs[name]["steps"] if "run" in step]
        env = [{k: expand(str(v), values) for k, v in step.get("env", {}).items()} for step in steps]
        summed = [e | {"GITHUB_STEP_SUMMARY": str(summary)} for e in env]
        runs.append([(expand(step["run"], values), e) for step, e in zip(steps, summed, strict=True)])
    return runs


def test_the_github_workflow_gates_then_grades_the_class_in_shards_and_merges(tmp_path: Path) -> None:
    jobs = workflow("github", tmp_path)["jobs"]
    scratch_class(tmp_path)
    summary = tmp_path / "summary.md"
    for name in ("gate", "grade", "merge"):  # the gate on a push; grade, then merge (needs: grade) run by hand
        run_at_once(tmp_path, github_jobs(jobs, name, summary))
    assert "verify passed" in summary.read_text(encoding="utf-8")
    assert (tmp_path / "grades.csv").read_text(encoding="utf-8").count("submissions/") == 2
    assert sorted(p.name for p in (tmp_path / "shards").glob("*.html")) == ["shard-1.html", "shard-2.html"]


def test_the_gitlab_pipeline_runs_its_stages_in_order_on_the_class(tmp_path: Path) -> None:
    """Its gate is the GitHub gate's commands (held equal here, so verify runs once, in the test above); then each
    stage's jobs, the parallel ones at once."""
    pipeline = workflow("gitlab", tmp_path)
    github = workflow("github", tmp_path / "github")["jobs"]["gate"]["steps"]
    assert pipeline["verify"]["script"] == [step["run"] for step in github if "run" in step][:2]
    scratch_class(tmp_path)
    for stage in pipeline["stages"][1:]:
        for job in (job for job in pipeline.values() if isinstance(job, dict) and job.get("stage") == stage):
            total = int(job.get("parallel", 1))
            variables = {k: str(v) for k, v in pipeline["variables"].items()}
            nodes = [{"CI_NODE_INDEX": str(i), "CI_NODE_TOTAL": str(total)} for i in range(1, total + 1)]
            run_at_once(tmp_path, [[("\n".join(job["script"]), variables | node)] for node in nodes])
    assert (tmp_path / "grades.csv").read_text(encoding="utf-8").count("submissions/") == 2
    assert sorted(p.name for p in (tmp_path / "shards").glob("*.html")) == ["shard-1.html", "shard-2.html"]
