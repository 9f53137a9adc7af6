"""The trusted side computes with the course's own modules and the oracle, even beside a student's own corpus.

In ``check`` the process's ``corpus`` is the student's root, whose ``bloom.py`` may be their own: the
course's filter, its ``Doc`` and the oracle are imported under the course's package beside it
(``core/reference.py``), and the trusted stage the shrinker asks about luck answers as the
reference does without the reference's ``dedup.py`` (the student kit holds none).
"""

from __future__ import annotations

import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dedup_harness.core import reference, worked_example
from dedup_harness.core.corpora import suite_corpus
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.judges.running import records, run_stage
from dedup_harness.core.judges.trusted_stage import TrustedStage
from dedup_harness.core.paths import IMPL_ROOT


@pytest.fixture
def own_corpus(tmp_path: Path) -> Iterator[Path]:
    """A process whose ``corpus`` is a student's root, with a bloom.py of their own (it reaches few bits)."""
    root = tmp_path / "root"
    shutil.copytree(IMPL_ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "dedup.py"))
    (root / "corpus" / "bloom.py").write_text("class BloomFilter:\n    mine = True\n", encoding="utf-8")
    (root / "corpus" / "doc.py").write_text("class Doc:\n    mine = True\n", encoding="utf-8")
    saved_modules = {n: m for n, m in sys.modules.items() if n == "corpus" or n.startswith("corpus.")}
    for name in saved_modules:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        importlib.import_module("corpus.bloom")
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == "corpus" or n.startswith("corpus.")]:
            del sys.modules[name]
        sys.modules.update(saved_modules)


def test_the_course_filter_is_the_courses_beside_a_students_own_bloom(own_corpus: Path) -> None:
    course = reference.course_module("bloom")
    assert not hasattr(course.BloomFilter, "mine") and Path(course.__file__ or "").parent == IMPL_ROOT / "corpus"
    assert sys.modules["corpus.bloom"].BloomFilter.mine, "the student's own is put back"


def test_the_oracle_builds_its_documents_with_the_courses_doc_beside_a_students_own(own_corpus: Path) -> None:
    saved = sys.modules.pop(reference.ORACLE, None)
    try:
        oracle = reference.oracle()
        assert not hasattr(oracle.Doc, "mine") and oracle.Doc is reference.course_module("doc").Doc
    finally:
        sys.modules.pop(reference.ORACLE, None)
        if saved is not None:
            sys.modules[reference.ORACLE] = saved


def test_the_trusted_stage_answers_as_the_reference_on_the_checks_corpora() -> None:
    """Output and every stat, at a filter that errs often and one that never does: the course's filter's answers."""
    stage = reference.reference_stage()
    docs = [stage.Doc(r["id"], r["text"], r["meta"]) for r in suite_corpus("200 documents, 20% repeats")]
    for b in (0.25, 10):
        trusted_out, trusted_stats = run_stage(TrustedStage(), docs, b)
        reference_out, reference_stats = run_stage(stage, docs, b)
        assert (records(trusted_out), trusted_stats) == (records(reference_out), reference_stats)


def test_the_trusted_stage_passes_the_judges_it_stands_for(tmp_path: Path) -> None:
    docs = [reference.course_module("doc").Doc(i, text) for i, text in worked_example.DOCUMENTS]
    subject = Subject(TrustedStage(), tmp_path)
    assert not JUDGES["hand"](
        subject, {"docs": docs, "bloom_bytes_per_item": worked_example.BLOOM_BYTES_PER_ITEM}
    ).failing
    assert not JUDGES["budget"](subject, {"docs": docs, "bloom_bytes_per_item": 1}).failing
