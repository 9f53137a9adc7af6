"""`dedup-harness dedup IN.jsonl`: the external-sort stage (impl_external/) over a JSON Lines corpus.

Its memory is the filter plus fixed buffers, whatever the corpus's size or duplication;
``--reference`` runs the reference stage instead (the same output and stats; it holds the candidates
in memory). Reads ``{"id", "text", "meta"}`` records (``-`` is standard input), writes the
deduplicated corpus (``-o``, standard output by default) and prints the stage's stats on stderr when
it is done. A file output appears only when the run succeeds; an error or Ctrl-C leaves neither it
nor a spool behind.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.table import Table

from dedup_harness.commands.outputs import fail
from dedup_harness.commands.progress import Progress
from dedup_harness.core import jsonl, reference
from dedup_harness.core.atomic import atomic_file

HELP = "run the exact-dedup stage (the external sort; --reference for the reference) on a JSON Lines corpus"

STDIO = "-"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN.jsonl", help="the corpus, one JSON record a line; - for stdin")
    parser.add_argument("-o", "--output", metavar="OUT.jsonl", default=STDIO, help="where to write (default: stdout)")
    parser.add_argument(
        "--bloom-bytes-per-item", metavar="B", type=float, default=10.0, help="filter size per paragraph (default 10)"
    )
    parser.add_argument("--spool-dir", metavar="D", help="where the temporary spool lives (default: the temp folder)")
    parser.add_argument("--stats", metavar="FILE", help="also write the stats as JSON to FILE")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="run the reference stage (the course's, candidates in memory) instead of the external sort",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress and no stats table on stderr")


def run(args: argparse.Namespace) -> int:
    try:
        stats = _dedup(args)
        if args.stats:
            with atomic_file(args.stats) as out:
                out.write(json.dumps(stats, indent=2).encode("utf-8") + b"\n")
    except (jsonl.CorpusError, ValueError, TypeError, OSError) as exc:
        return fail("dedup", exc, 1)
    if not args.quiet:
        Console(stderr=True).print(_stats_table(stats))
    return 0


def _dedup(args: argparse.Namespace) -> dict[str, Any]:
    stage = reference.reference_stage() if args.reference else reference.external_stage()
    if args.spool_dir is not None and not Path(args.spool_dir).is_dir():
        raise ValueError(f"--spool-dir {args.spool_dir}: not a folder")
    stats: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(_open_input(args.input))
        progress = stack.enter_context(Progress("dedup", quiet=args.quiet))
        progress.phase("spooling", unit="documents read")
        records = jsonl.read_records(_counted(source, progress), source=_name(args.input))
        docs = (stage.Doc(r["id"], r["text"], r["meta"]) for r in records)
        # closing(): an error or Ctrl-C while we write still closes the stage, which removes its spool.
        kept = stack.enter_context(
            contextlib.closing(
                stage.exact_dedup(docs, args.bloom_bytes_per_item, spool_dir=args.spool_dir, stats=stats)
            )
        )
        out = stack.enter_context(_open_output(args.output))
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
    with open(path, "rb") as lines:
        yield lines


@contextlib.contextmanager
def _open_output(path: str) -> Iterator[IO[bytes]]:
    if path == STDIO:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with atomic_file(path) as out:
        yield out


def _stats_table(stats: dict[str, Any]) -> Table:
    table = Table(title="exact dedup", show_header=False)
    table.add_column("stat")
    table.add_column("value", justify="right")
    for key, value in stats.items():
        table.add_row(key, f"{value:,}")
    return table
