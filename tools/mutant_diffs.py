"""The tools that keep the mutants' diffs fresh (mutant roots themselves: ``core/mutant_roots.py``).

Maintainers re-base a mutant after the reference changed with (``python tools/mutant_diffs.py``)::

    checkout s06 /tmp/s06     # a copy of impl/ with s06 applied (or the bare reference, if it no longer applies)
    # ... edit /tmp/s06/corpus/*.py until it shows the pitfall again ...
    refresh s06 /tmp/s06      # rewrite mutants/s06.diff from the edited copy, header from the catalogue
    check                     # which diffs still apply to impl/
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from dedup_harness.core import scratch_dirs
from dedup_harness.core.catalogue import CatalogueError, Mutant, load_catalogue, load_mutant
from dedup_harness.core.mutant_roots import DiffDoesNotApply, copy_root, mutant_root
from dedup_harness.core.paths import IMPL_ROOT, MUTANTS_DIR


def header(mutant: Mutant) -> str:
    """The comment lines that head a diff: patch tools skip them, people read them first."""
    return f"# {mutant.id}: {mutant.title}\n# pitfall: {mutant.pitfall}\n# caught by: {', '.join(mutant.caught_by)}\n"


def make_diff(reference: Path, edited: Path) -> tuple[str, list[str]]:
    """The unified diff from ``reference`` to ``edited`` over their corpus/*.py files, and the files it touches."""
    names = sorted({p.name for root in (reference, edited) for p in (root / "corpus").glob("*.py")})
    chunks: list[str] = []
    touched: list[str] = []
    for name in names:
        before, after = _lines(reference / "corpus" / name), _lines(edited / "corpus" / name)
        if before == after:
            continue
        rel = f"corpus/{name}"
        chunks.extend(difflib.unified_diff(before, after, f"a/{rel}", f"b/{rel}"))
        touched.append(rel)
    return "".join(chunks), touched


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True) if path.is_file() else []


def refresh(mutant: Mutant, edited: Path, reference: Path = IMPL_ROOT) -> Path:
    """Rewrite the mutant's diff from an edited copy of the reference; the files must match the catalogue."""
    diff, touched = make_diff(reference, edited)
    if not diff:
        raise ValueError(f"{edited} does not differ from the reference {reference}")
    if sorted(touched) != sorted(mutant.files):
        raise ValueError(f"mutant {mutant.id}: the edit touches {touched}, the catalogue lists {list(mutant.files)}")
    mutant.diff.write_text(header(mutant) + diff, encoding="utf-8")
    return mutant.diff


def _checkout(args: argparse.Namespace) -> int:
    mutant = load_mutant(args.id, args.mutants_dir)
    dest = Path(args.dir)
    if dest.exists():
        raise ValueError(f"{dest} already exists; name a new folder")
    try:
        mutant_root(mutant, dest, args.reference)
        print(f"{dest}: the reference with {mutant.id} applied; edit it, then `refresh {mutant.id} {dest}`")
    except DiffDoesNotApply as exc:
        shutil.rmtree(dest)
        copy_root(args.reference, dest)
        print(f"{exc}\n{dest}: the bare reference; make the edit again, then `refresh {mutant.id} {dest}`")
    return 0


def _refresh(args: argparse.Namespace) -> int:
    path = refresh(load_mutant(args.id, args.mutants_dir), Path(args.dir), args.reference)
    print(f"wrote {path}")
    return 0


def _check(args: argparse.Namespace) -> int:
    import tempfile

    stale = 0
    for mutant in load_catalogue(args.mutants_dir):
        with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("check")) as scratch:
            try:
                mutant_root(mutant, Path(scratch) / "root", args.reference)
                print(f"{mutant.id}: applies")
            except DiffDoesNotApply as exc:
                stale += 1
                print(exc)
    return 1 if stale else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/mutant_diffs.py", description=__doc__.split("\n")[0])
    parser.add_argument("--mutants-dir", type=Path, default=MUTANTS_DIR, help="the mutants folder")
    parser.add_argument("--reference", type=Path, default=IMPL_ROOT, help="the reference root the diffs apply to")
    sub = parser.add_subparsers(dest="action", required=True)
    checkout = sub.add_parser("checkout", help="copy the reference with one mutant applied into a new folder")
    checkout.add_argument("id")
    checkout.add_argument("dir")
    checkout.set_defaults(func=_checkout)
    again = sub.add_parser("refresh", help="rewrite a mutant's diff from an edited copy of the reference")
    again.add_argument("id")
    again.add_argument("dir")
    again.set_defaults(func=_refresh)
    sub.add_parser("check", help="say which diffs still apply to the reference").set_defaults(func=_check)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (CatalogueError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
