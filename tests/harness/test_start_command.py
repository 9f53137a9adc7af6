"""`dedup-harness start`: the stub a student starts from, and what `check` says of a half-written one.

The stub has the contract's surface exactly (grade finds no problem in it), never replaces a file,
and on it every failing check says which function is not written yet, with the line; the split
check judges ``paragraphs()`` alone, so it passes as soon as that one is written.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from dedup_harness.check.stub import not_written, stub_source
from dedup_harness.cli import main
from dedup_harness.core.checks import BY_NAME, CHECKS
from dedup_harness.core.contract import STATS_KEYS, SURFACE
from dedup_harness.grade.signature import stub_surface

SPLIT = "test_paragraph_split_rules"
PARAGRAPHS = """    import re

    return [piece.strip() for piece in re.split(r"\\n(?:[ \\t]*\\r?\\n)+", text) if piece.strip()]"""


def test_start_writes_the_stub_and_says_what_comes_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["start"]) == 0
    assert (tmp_path / "dedup.py").read_text(encoding="utf-8") == stub_source()
    assert "dedup-harness check" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dedup.py"], "no part file left beside it"


def test_start_never_overwrites_a_dedup_py(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dedup.py").write_text("# mine\n", encoding="utf-8")
    assert main(["start", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (tmp_path / "dedup.py").read_text(encoding="utf-8") == "# mine\n"
    assert main(["start", str(tmp_path / "nowhere")]) == 2


def test_the_stub_has_the_contracts_surface_docstrings_and_stats_keys() -> None:
    tree = ast.parse(stub_source())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert set(functions) | {"STATS_KEYS"} == set(SURFACE) == set(stub_surface())
    namespace: dict[str, object] = {}
    exec(compile(stub_source(), "dedup.py", "exec"), namespace)  # our own stub: every body raises
    assert namespace["STATS_KEYS"] == STATS_KEYS
    assert {"Doc", "BloomFilter"} <= set(namespace), "the stub imports the course's classes its words name"
    for name, node in functions.items():
        assert ast.get_docstring(node), name
        assert ast.unparse(node.body[-1]) == f"raise NotImplementedError({not_written(name)!r})"


def test_on_a_stub_with_paragraphs_written_each_failing_check_names_the_function_not_written_and_its_line(
    tmp_path: Path,
) -> None:
    stub = stub_source().replace(f'    raise NotImplementedError("{not_written("paragraphs")}")', PARAGRAPHS)
    (tmp_path / "dedup.py").write_text(stub, encoding="utf-8")
    assert main(["check", str(tmp_path), "--json", str(tmp_path / "c.json")]) == 1
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["submissions"][0]
    outcomes = {check["name"]: check["outcome"] for check in report["checks"]}
    assert outcomes == {name: "passed" if name == SPLIT else "error" for name in CHECKS}
    lines = stub.splitlines()
    for check in report["checks"]:
        if check["name"] == SPLIT:
            continue
        said = re.search(
            r"NotImplementedError: (\w+)\(\) is not written yet \(at dedup\.py line (\d+), in (\w+)\)",
            " ".join(check["feedback"]),
        )
        assert said, (check["name"], check["feedback"])
        function, line, where = said.group(1), int(said.group(2)), said.group(3)
        assert function == where and lines[line - 1].strip().startswith("raise NotImplementedError"), check["name"]
    assert BY_NAME[SPLIT].judged_as == "split"
