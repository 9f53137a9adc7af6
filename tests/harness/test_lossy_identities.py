"""Every paragraph identity that is not injective on strings fails test_paragraph_identity_is_the_exact_text.

Each root is the reference with one lossy key in place of the paragraph's exact text where the stage
hashes it: case, white space, truncation, Unicode normalization, and the text encoded with a narrow
codec whose errors are replaced or ignored. Only that check runs, under the grading profile (the
examples a submission meets when it is graded), and it must fail by an assertion for every one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.core.runner import run_suites
from dedup_harness.verify.engine import VERIFY_PYTEST_ARGS

CHECK = "test_paragraph_identity_is_the_exact_text"
EXACT = "digests = [paragraph_hash(p) for p in paragraphs(doc.text)]"
NARROW_CODECS = ("ascii", "latin-1", "cp1252", "iso8859-15", "cp437", "mac-roman", "koi8-r")


def hashed(key: str) -> str:
    """The line that hashes ``key`` (an expression in p, giving bytes) instead of the paragraph's UTF-8."""
    return f"digests = [hashlib.sha256({key}).digest() for p in paragraphs(doc.text)]"


LOSSY = {
    "lower-cased": "digests = [paragraph_hash(p.lower()) for p in paragraphs(doc.text)]",
    "case-folded": "digests = [paragraph_hash(p.casefold()) for p in paragraphs(doc.text)]",
    "whitespace collapsed": 'digests = [paragraph_hash(" ".join(p.split())) for p in paragraphs(doc.text)]',
    "whitespace removed": 'digests = [paragraph_hash("".join(p.split())) for p in paragraphs(doc.text)]',
    "an 80-character prefix": "digests = [paragraph_hash(p[:80]) for p in paragraphs(doc.text)]",
    "a 1,000-character prefix": "digests = [paragraph_hash(p[:1000]) for p in paragraphs(doc.text)]",
    **{
        f"{form}-normalized": hashed(f'unicodedata.normalize("{form}", p).encode()')
        for form in ("NFC", "NFD", "NFKC", "NFKD")
    },
    **{
        f"{codec} with errors={errors}": hashed(f'p.encode("{codec}", errors="{errors}")')
        for codec in NARROW_CODECS
        for errors in ("replace", "ignore")
    },
}


def lossy_root(tmp_path: Path, name: str) -> Path:
    root = copy_root(IMPL_ROOT, tmp_path / name.replace(" ", "-"))
    source = root / "corpus" / "dedup.py"
    text = source.read_text(encoding="utf-8")
    assert text.count(EXACT) == 1, "the reference no longer hashes paragraphs where this test expects"
    future = "from __future__ import annotations\n"
    text = text.replace(future, future + "import unicodedata\n").replace(EXACT, LOSSY[name])
    source.write_text(text, encoding="utf-8")
    return root


def test_every_lossy_identity_fails_the_identity_check_by_an_assertion(tmp_path: Path) -> None:
    names = list(LOSSY)
    results = run_suites(
        [lossy_root(tmp_path, name) for name in names],
        profile="grading",
        extra_args=[*VERIFY_PYTEST_ARGS, "-k", CHECK],
        checks=[CHECK],
    )
    outcomes = {name: result.outcomes[CHECK] for name, result in zip(names, results, strict=True)}
    assert outcomes == dict.fromkeys(names, Outcome.FAILED)


@pytest.mark.parametrize("name", list(LOSSY))
def test_each_lossy_root_differs_from_the_reference_only_in_its_key(tmp_path: Path, name: str) -> None:
    """The roots above are the reference but for the one line: a failure there is the key's."""
    changed = lossy_root(tmp_path, name) / "corpus" / "dedup.py"
    reference = (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8").splitlines()
    lines = [line for line in changed.read_text(encoding="utf-8").splitlines() if line != "import unicodedata"]
    assert [(a.strip(), b.strip()) for a, b in zip(reference, lines, strict=True) if a != b] == [(EXACT, LOSSY[name])]
