"""``grade --similarity``: a copy disguised by renaming and reordering is found, with its passages side by side;
what the kit hands out is never evidence; the figures are the same on every run; staff outputs alone hold them."""

from __future__ import annotations

import argparse
import ast
import base64
import builtins
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from dedup_harness.check.stub import stub_source
from dedup_harness.commands import extras
from dedup_harness.commands.arguments import share
from dedup_harness.core.paths import DATA_ROOT, IMPL_ROOT, PACKAGE_DIR
from dedup_harness.distribution import student_kit
from dedup_harness.grade import similarity
from dedup_harness.grade.reports import gradescope, json_report, terminal
from dedup_harness.grade.reports import html as grade_html
from dedup_harness.grade.reports.summary import Outline, summarize
from grade_fakes import report

pytest.importorskip("copydetect", reason="grade --similarity needs the similarity extra: pip install '.[similarity]'")

SAMPLES = Path(__file__).parent / "submissions" / "samples"


def disguised(source: str) -> str:
    """``source`` as a student hiding a copy writes it: every local name and private helper renamed, comments
    gone, the functions in reverse order. The names the contract fixes (public functions and their
    parameters, imports) stay, or the copy would not pass."""
    tree = ast.parse(source)
    public = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef) and not n.name.startswith("_")}
    contract = {a.arg for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in public for a in ast.walk(n)
                if isinstance(a, ast.arg)}  # fmt: skip
    imported = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
                for a in n.names}  # fmt: skip
    kept = public | contract | imported | {"self", "STATS_KEYS"} | set(dir(builtins))
    renamed: dict[str, str] = {}

    def new(name: str) -> str:
        return name if name in kept else renamed.setdefault(name, f"w{len(renamed)}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = new(node.id)
        elif isinstance(node, ast.arg):
            node.arg = new(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.ExceptHandler) and node.name:
            node.name = new(node.name)
    assert renamed, "the disguise renamed something"
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    tree.body = [n for n in tree.body if not isinstance(n, ast.FunctionDef)] + functions[::-1]
    return ast.unparse(tree)


def submitted(folder: Path, name: str, source: str) -> str:
    (folder / name).mkdir()
    (folder / name / "dedup.py").write_text(source, encoding="utf-8")
    return str(folder / name)


def test_a_copy_renamed_and_reordered_is_found_with_each_passage_beside_its_original(tmp_path: Path) -> None:
    original = (SAMPLES / "correct_different.py").read_text(encoding="utf-8")
    ann = submitted(tmp_path, "ann", original)
    dora = submitted(tmp_path, "dora", disguised(original))
    bob = submitted(tmp_path, "bob", (SAMPLES / "correct_plain.py").read_text(encoding="utf-8"))
    found = similarity.compare([ann, bob, dora], kit=stub_source())
    assert [(p.left, p.right) for p in found.pairs] == [(ann, dora)], "the copy, and no independent solution"
    pair = found.pairs[0]
    assert pair.similarity > 0.9
    where = [
        (passage.left.first + passage.left.text.splitlines().index(line), passage.right.first + at)
        for passage in pair.passages
        for line in passage.left.text.splitlines()
        if line.startswith("def paragraphs(")
        for at, other in enumerate(passage.right.text.splitlines())
        if other.startswith("def paragraphs(")
    ]
    assert where, "the function is shown beside itself in the copy"
    (mine, theirs), *_ = where
    assert mine != theirs, "where it moved to"
    assert all(p.left.text.strip() and p.right.text.strip() for p in pair.passages)


def test_what_the_kit_hands_out_is_never_evidence(tmp_path: Path) -> None:
    """Two students who only kept the stub `start` writes share nothing; neither does the stub with the reference."""
    stubs = [submitted(tmp_path, name, stub_source()) for name in ("ann", "bob")]
    found = similarity.compare(stubs, threshold=0.01, kit=stub_source())
    assert found.pairs == ()


def test_the_reference_handed_in_is_found_whole(tmp_path: Path) -> None:
    leaked = submitted(tmp_path, "eve", (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8"))
    (pair,) = similarity.compare([leaked], kit=stub_source()).pairs
    assert (pair.left, pair.right, pair.shares) == (similarity.REFERENCE, leaked, (1.0, 1.0))


def test_what_cannot_be_read_is_listed_and_the_rest_compared(tmp_path: Path) -> None:
    ann = submitted(tmp_path, "ann", (SAMPLES / "correct_plain.py").read_text(encoding="utf-8"))
    (tmp_path / "empty").mkdir()
    found = similarity.compare([ann, str(tmp_path / "empty")], kit=stub_source())
    assert found.compared == (ann,)
    assert [name for name, _ in found.not_compared] == [str(tmp_path / "empty")]
    assert "no dedup.py" in found.not_compared[0][1]


SAME_FIGURES = """
import json, sys
from dedup_harness.check.stub import stub_source
from dedup_harness.grade import similarity
found = similarity.compare(sys.argv[1:], threshold=0.01, kit=stub_source())
print(json.dumps(found.as_json(), sort_keys=True))
"""


def test_the_figures_are_the_same_whatever_python_hashes_strings_with(tmp_path: Path) -> None:
    """copydetect hashes with Python's hash(), which changes per process; keeping every k-gram keeps the figures."""
    folders = [submitted(tmp_path, p.stem, p.read_text(encoding="utf-8")) for p in sorted(SAMPLES.glob("*.py"))[:4]]
    runs = [
        subprocess.run(
            [sys.executable, "-c", SAME_FIGURES, *folders],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    ]
    assert json.loads(runs[0])["pairs"], "something to compare"
    assert runs[0] == runs[1]


def test_the_pairs_reach_json_and_html_and_never_a_students_gradescope_results(tmp_path: Path) -> None:
    original = (SAMPLES / "correct_different.py").read_text(encoding="utf-8") + "\n# </pre><script>alert(1)</script>\n"
    ann, dora = submitted(tmp_path, "ann", original), submitted(tmp_path, "dora", disguised(original))
    copies = similarity.compare([ann, dora], kit=stub_source())
    reports = [report(name=ann), report(name=dora)]
    summary = summarize(map(Outline.of, reports))
    document = json.loads(json_report.render(reports, summary, copies))
    jsonschema.validate(document, json.loads(json_report.SCHEMA_PATH.read_text(encoding="utf-8")))
    assert [(p["left"], p["right"]) for p in document["similarity"]["pairs"]] == [(ann, dora)]
    assert "similarity" not in json.loads(json_report.render(reports, summary)), "only when asked for"
    page = grade_html.render(reports, summary, copies)
    assert 'id="copies"' in page and "<script>alert" not in page
    assert 'href="#submission-' in page.split('id="copies"')[1].split("</summary>")[0], "each name links its report"
    for r in reports:
        assert "similar" not in gradescope.render(r).lower() and dora not in gradescope.render(reports[0])


@pytest.mark.parametrize(("text", "value"), [("0.7", 0.7), ("70%", 0.7), ("1", 1.0), ("100%", 1.0)])
def test_a_threshold_is_a_fraction_or_a_percentage(text: str, value: float) -> None:
    assert share(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["0", "0%", "1.5", "150%", "-0.2", "most", "nan"])
def test_a_threshold_outside_0_to_1_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        share(text)


def test_without_copydetect_the_option_is_refused_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "installed", lambda module: module != "copydetect")
    refused = r"--similarity needs copydetect: pip install 'dedup-harness\[similarity\]'"
    with pytest.raises(extras.MissingExtra, match=refused):
        extras.require("similarity", "--similarity")


def test_pairs_tie_their_files_into_clusters_largest_first(tmp_path: Path) -> None:
    """A copy of a copy is one cluster with its original, though the first and the last may not pair."""
    original = (SAMPLES / "correct_different.py").read_text(encoding="utf-8")
    names = [submitted(tmp_path, name, source) for name, source in (
        ("ann", original), ("bob", (SAMPLES / "correct_plain.py").read_text(encoding="utf-8")),
        ("cyd", disguised(original)), ("eve", (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8")),
    )]  # fmt: skip
    found = similarity.compare(names, kit=stub_source())
    assert found.clusters() == [[similarity.REFERENCE, names[3]], [names[0], names[2]]]
    assert found.as_json()["clusters"] == found.clusters()


def test_the_terminal_names_the_clusters_then_the_pairs_within_80_columns(tmp_path: Path) -> None:
    original = (SAMPLES / "correct_different.py").read_text(encoding="utf-8")
    names = [submitted(tmp_path, f"student-with-a-long-name-{n:02d}", disguised(original)) for n in range(24)]
    found = similarity.compare(names, kit=stub_source())
    console = Console(record=True, width=80)
    terminal.print_copies(console, found)
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].startswith(" 24 alike: student-with-a-long-name-00")
    assert sum("~" in line for line in lines) == terminal.PAIRS_SHOWN
    assert lines[-1] == f"  ... and {len(found.pairs) - terminal.PAIRS_SHOWN} more pairs (--html, --json)"


def padded(source: str) -> str:
    """``source`` with ``pass`` after every statement and a docstring atop every function: no-ops that break every
    run of tokens a fingerprint spans."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, field, [s for stmt in body for s in (stmt, ast.Pass())])
        if isinstance(node, ast.FunctionDef):
            node.body.insert(0, ast.Expr(ast.Constant("Nothing to see here.")))
    return ast.unparse(tree)


def test_a_copy_padded_with_no_ops_and_renamed_is_listed_with_its_classmate(tmp_path: Path) -> None:
    original = (SAMPLES / "correct_different.py").read_text(encoding="utf-8")
    ann = submitted(tmp_path, "ann", original)
    pad = submitted(tmp_path, "pad", padded(original))
    cal = submitted(tmp_path, "cal", padded(disguised(original)))
    bob = submitted(tmp_path, "bob", (SAMPLES / "correct_plain.py").read_text(encoding="utf-8"))
    found = similarity.compare([ann, bob, cal, pad], kit=stub_source())
    alike = {(p.left, p.right): p.similarity for p in found.pairs}
    assert alike[ann, pad] >= similarity.THRESHOLD and alike[ann, cal] >= similarity.THRESHOLD  # 0.64 and less before
    assert not {ann, cal, pad} & {name for pair in alike for name in pair if bob in pair}, "no independent solution"


def test_code_that_builds_what_it_runs_is_named_unreadable_in_every_staff_output(tmp_path: Path) -> None:
    original = (SAMPLES / "correct_different.py").read_text(encoding="utf-8")
    blob = base64.b85encode(original.encode()).decode()
    hidden = submitted(tmp_path, "hid", f"import base64\nexec(base64.b85decode({blob!r}).decode())\n")
    ann = submitted(tmp_path, "ann", original)
    copies = similarity.compare([ann, hidden], kit=stub_source())
    said = f"{hidden} builds the code it runs (exec on line 2): what runs cannot be read"
    assert copies.not_compared == ((hidden, said),)
    console = Console(record=True, width=200)
    terminal.print_copies(console, copies)
    reports = [report(name=ann), report(name=hidden)]
    summary = summarize(map(Outline.of, reports))
    assert said in console.export_text() and said in grade_html.render(reports, summary, copies)
    assert json.loads(json_report.render(reports, summary, copies))["similarity"]["not_compared"][0]["why"] == said


def test_a_submission_assembled_from_the_kit_names_the_kit_files_it_came_from(tmp_path: Path) -> None:
    """The oracle's passes verbatim and the sizing's rate: named with the files they came from, and no other."""
    kit = {
        name: (PACKAGE_DIR / name).read_text(encoding="utf-8") for name in ("core/bloom_sizing.py", "core/checks.py")
    }
    kit["_data/oracle/__init__.py"] = (DATA_ROOT / "oracle" / "__init__.py").read_text(encoding="utf-8")
    taken = [
        ast.get_source_segment(kit[name], node) or ""
        for name in ("_data/oracle/__init__.py", "core/bloom_sizing.py")
        for node in ast.parse(kit[name]).body
        if isinstance(node, ast.FunctionDef) and node.name in {"is_blank", "paragraphs", "exact_dedup", "rate", "bits"}
    ]
    eve = submitted(tmp_path, "eve", "import math\n\n\n" + "\n\n\n".join(taken))
    (pair,) = similarity.compare([eve], kit=stub_source(), kit_code=sorted(kit.items())).pairs
    assert (pair.left, pair.right) == (f"{similarity.KIT} (_data/oracle/__init__.py, core/bloom_sizing.py)", eve)


def test_the_kits_code_compared_with_every_submission_is_the_oracle_the_judges_and_the_sizing() -> None:
    names = [name for name, _ in student_kit.code_files()]
    assert {"_data/oracle/__init__.py", "core/judges/expected.py", "core/judges/trusted_stage.py"} <= set(names)
    assert {"core/bloom_sizing.py", "core/reference.py"} <= set(names) and all(n.endswith(".py") for n in names)
