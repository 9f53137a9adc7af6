"""`dedup-harness dedup IN.jsonl`: the external-sort stage (impl_external/) over a JSON Lines corpus.

Its memory is the filter plus fixed buffers, whatever the corpus's size or duplication;
``--reference`` runs the reference stage instead (the same output and stats; it holds the candidates
in memory). Reads ``{"id", "text", "meta"}`` records (``-`` is standard input), writes the
deduplicated corpus (``-o``, standard output by default) and prints the stage's stats on stderr when
it is done. Every argument and output path is checked before the first line is read (``outputs``);
the files appear only when the run succeeds, together; an error or a signal leaves neither them nor
a spool behind. Exit status 0 on success, 1 when the corpus cannot be deduplicated, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.table import Table

from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.commands.progress import Progress
from dedup_harness.core import jsonl, reference, scratch_dirs

HELP = "run the exact-dedup stage (the external sort; --reference for the reference) on a JSON Lines corpus"

STDIO = "-"
OUTPUT, STATS = "-o", "--stats"
CANNOT_START = 2  # bad arguments: nothing was read or written
FAILED = 1  # the corpus could not be deduplicated (a bad line, a document the stage refuses, a full disk)


class InputRefused(Exception):
    """An argument the run cannot start with (an input that cannot be read, a spool folder that is not one)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN.jsonl", help="the corpus, one JSON record a line; - for stdin")
    parser.add_argument(OUTPUT, "--output", metavar="OUT.jsonl", default=STDIO, help="where to write (default: stdout)")
    parser.add_argument(
        "--bloom-bytes-per-item",
        metavar="B",
        type=bloom_bytes_per_item,
        default=10.0,
        help="filter size per paragraph (default 10)",
    )
    parser.add_argument("--spool-dir", metavar="D", help="where the temporary spool lives (default: the temp folder)")
    parser.add_argument(STATS, metavar="FILE", help="also write the stats as JSON to FILE")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="run the reference stage (the course's, candidates in memory) instead of the external sort",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress and no stats table on stderr")


def bloom_bytes_per_item(text: str) -> float:
    """B as the command line gives it: a number whose false-positive rate lies strictly between 0 and 1."""
    try:
        value = float(text)
        rate = reference.reference_stage().bloom_rate(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of bytes per paragraph") from None
    if rate == 0.0:
        raise argparse.ArgumentTypeError(f"{text}: too large: the false-positive rate exp(-8B(ln 2)^2) underflows to 0")
    if rate >= 1.0:
        raise argparse.ArgumentTypeError(
            f"{text}: too small: the false-positive rate exp(-8B(ln 2)^2) rounds to 1 (every paragraph a candidate)"
        )
    return value


def run(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        try:
            outputs = stack.enter_context(Outputs("dedup"))
            source = stack.enter_context(_open_input(args.input))
            outputs.file(OUTPUT, args.output)
            outputs.file(STATS, args.stats)
            spool = stack.enter_context(_spool_folder(args.spool_dir))
        except (InputRefused, OutputError) as exc:
            return fail("dedup", exc, CANNOT_START)
        try:
            stats = _dedup(args, source, outputs, spool)
            if args.stats:
                outputs.put(STATS, json.dumps(stats, indent=2) + "\n")
            outputs.commit()
        except (jsonl.CorpusError, OutputError, ValueError, TypeError, OSError) as exc:
            return fail("dedup", exc, FAILED)
    if not args.quiet:
        Console(stderr=True).print(_stats_table(stats))
    return 0


def _dedup(args: argparse.Namespace, source: IO[bytes], outputs: Outputs, spool: Path) -> dict[str, Any]:
    stage = reference.reference_stage() if args.reference else reference.external_stage()
    stats: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        progress = stack.enter_context(Progress("dedup", quiet=args.quiet))
        progress.phase("spooling", unit="documents read")
        records = jsonl.read_records(_counted(source, progress), source=_name(args.input))
        docs = (stage.Doc(r["id"], r["text"], r["meta"]) for r in records)
        # closing(): an error or a signal while we write still closes the stage, which removes its spool.
        kept = stack.enter_context(
            contextlib.closing(stage.exact_dedup(docs, args.bloom_bytes_per_item, spool_dir=spool, stats=stats))
        )
        out = stack.enter_context(outputs.stream(OUTPUT))
        for n, d in enumerate(kept):
            if n == 0:  # the first document out: the screen and confirm passes are done
                progress.phase("writing", unit="documents written")
            jsonl.write_record(out, {"id": d.id, "text": d.text, "meta": d.meta})
            progress.advance()
    return stats


def _counted(lines: IO[bytes], progress: Progress) -> Iterator[bytes]:
    for line in lines:
        progress.advance()
        yield line


def _name(path: str) -> str:
    return "<stdin>" if path == STDIO else path


@contextlib.contextmanager
def _open_input(path: str) -> Iterator[IO[bytes]]:
    if path == STDIO:
        yield sys.stdin.buffer
        return
    try:
        lines = open(path, "rb")  # noqa: SIM115 (closed by the with below; only opening is checked here)
    except OSError as exc:
        raise InputRefused(f"cannot read {path}: {exc.strerror or exc}") from None
    with lines:
        yield lines


@contextlib.contextmanager
def _spool_folder(spool_dir: str | None) -> Iterator[Path]:
    """This run's own folder for the stage's spool, in ``spool_dir`` (or the temp folder).

    It names this process, so when a run is killed outright the next run sweeps what it left.
    """
    parent = Path(spool_dir) if spool_dir is not None else Path(tempfile.gettempdir())
    if not parent.is_dir():
        raise InputRefused(f"--spool-dir {spool_dir}: not a folder")
    scratch_dirs.watch(parent)
    try:
        folder = scratch_dirs.Scratch("dedup", parent)  # the stage under test shapes what is in it
    except OSError as exc:
        raise InputRefused(f"--spool-dir {parent}: cannot make the spool there: {exc.strerror or exc}") from None
    with folder:
        yield Path(folder.name)


def _stats_table(stats: dict[str, Any]) -> Table:
    table = Table(title="exact dedup", show_header=False)
    table.add_column("stat")
    table.add_column("value", justify="right")
    for key, value in stats.items():
        table.add_row(key, f"{value:,}")
    return table
