"""The README's tier table and docs/isolation.md, written from the tiers' words (``tiers.toml``), never by hand.

``python tools/tier_docs.py README.md docs/isolation.md`` rewrites the README's
table (between its two marker comments) and the whole page; ``--check`` only says whether either
differs from what the table gives (exit 1), as ``tests/harness/test_tier_docs.py`` does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from dedup_harness.grade.sandbox.tiers import STRONGEST_FIRST, TIERS, TierRow, how_to_isolate

BEGIN = "<!-- the tier table: written by python tools/tier_docs.py from sandbox/tiers.toml -->"
END = "<!-- end of the tier table -->"
COLUMNS = (
    ("tier", lambda r: f"`{r.tier}`"),
    ("what it needs", lambda r: r.needs),
    ("what stops the network", lambda r: r.network),
    ("what hides the harness's files (the reference)", lambda r: r.harness_files),
    ("what stops signals to the grader", lambda r: r.signals),
    ("what keeps classmates apart", lambda r: r.classmates),
    ("whose disk it writes", lambda r: r.disk),
)


# The README's is what a TA needs to get a tier running; docs/isolation.md has what each one protects.
README_COLUMNS = (
    COLUMNS[0],
    COLUMNS[1],
    ("how to get it", lambda r: r.remedy or "pass it to grade without isolation"),
)


def table(columns: tuple[tuple[str, Callable[[TierRow], str]], ...] = COLUMNS) -> str:
    """The tiers at a glance, one row each, strongest first."""
    lines = ["| " + " | ".join(name for name, _ in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row) for _, cell in columns) + " |" for row in TIERS]
    return "\n".join(lines)


def readme_section() -> str:
    return f"{BEGIN}\n{table(README_COLUMNS)}\n{END}"


INTRO = """\
# Isolation: the tiers

Every submission's functions run in a worker process of their own, behind a proxy; the checks run in
a trusted pytest process and believe nothing the worker says. How the worker is kept from the
network, the harness's files, the grader's processes and the submissions graded beside it depends on
what the machine offers: the tiers below, strongest first ({order}).
This page is written from the tiers' words in
`harness/dedup_harness/grade/sandbox/tiers.toml` (`python tools/tier_docs.py README.md
docs/isolation.md`); the reports and the preflight say the same words, read from the same
file.

## Which tier runs

`grade` detects the tiers strongest first and takes the first that runs here (`--tier` names one; a
tier that cannot run is an error). Each submission's report lists what was in force, one line per
layer, and under `missing` each stronger tier that was passed over and why. Before any submission the
preflight grades the reference and the canary through the very same worker path and tries, from
inside the reference's worker, to read the harness's files, reach the grader over TCP and UDP and
signal it. A tier chosen automatically whose preflight fails or lets something through gives way to
the next that runs here (a harness in a private folder, say, that a tier cannot cover), and the
preflight's lines name every tier passed over, for either reason, and why. If no tier holds, `grade`
stops and says how to isolate the worker:

> {advice}

## In every tier

- The worker confines itself before any submission code runs: Landlock (files, TCP, signal and
  abstract-socket scopes) where the kernel has it, and seccomp (no sockets, no new processes or
  programs, no pipes, no namespaces, mounts or tracing, no memory outside the process: memfd,
  System V and POSIX IPC, which no measurement of the worker's memory would show and System V's
  would outlive it; no fallocate); its audit hook then refuses network, new processes and signals
  to other processes, and each refused attempt is listed in the report. In the seccomp tier, which
  has no Landlock, every call that opens, makes or removes a file is the grader's to decide: it does
  the call itself beneath the worker's folders, as the worker, and refuses the rest. Where seccomp is
  installed, every call its filter refuses, made through Python or libc, is reported to the grader by
  the kernel (seccomp user notification), which the submission cannot silence; what Landlock and the
  namespaces refuse (files) and the rest are the audit hook's notes, marked "worker's hook", which
  the submission can silence. Where no filter reports, the report says the list is the hook's own
  and may be incomplete.
- As root the worker runs as a uid of its own (one per sandbox), without capabilities or new
  privileges; resource limits (memory, CPU, file size, open files, processes) are set before it
  starts; its environment is scrubbed; its output is drained and cut.
- Its session folder (its code, its home, the grader's shared folder where the checks' spool folders
  live) is closed to everyone but the grader and the worker: 0750 with the worker's group as root,
  0700 otherwise.
- A submission that fills its disk gets its own verdict, "disk full", never a harness error, and
  never costs the submission graded beside it a point. In the tiers with namespaces its session is a
  tmpfs of its own (at most 65,536 files and folders), mounted in the namespace of the process that
  grades it; in the others a watch stops the worker once its files pass the limit or those 65,536
  entries, or fill the temp folder: every 10 ms it reads the disk's free blocks and inodes, and only
  when their change could have taken the worker past a limit does it walk what the worker wrote,
  holding it still meanwhile; between calls the worker is paused, and a batch grades only as many at
  a time as the free space holds, each with its limit and the room beside it for what it can write
  between two looks (four writes of the file size limit).
- Where nothing but file modes would keep the workers apart (a non-root grader in the seccomp or
  none tier: its workers share its uid), or a worker from its classmates' originals (the seccomp
  tier on a kernel before 5.14), the batch grades one submission at a time, and says so.
- Nothing of a worker outlives the batch: where it could write outside its session (the none tier,
  the seccomp tier before Linux 5.14), what a root grader's worker uid left in the world-writable
  folders and in System V IPC is removed after it.
- The packages a course allows (`grade --allow`) are a copy of the grader's, made once per run and
  shown read-only, last on the worker's path; nothing else of the grader's packages is on it. A
  worker that shares the grader's uid with no namespace (a non-root grader's landlock, seccomp or
  none tier) gets a copy of its own in its session: Landlock does not stop an owner's chmod.

## The tiers at a glance

{table}
"""


def section(row: TierRow) -> str:
    """One tier in full."""
    said = "\n".join(f"  - {line}" for line in row.in_force)
    return f"""
## `{row.tier}`

- **Needs:** {row.needs}.
- **Detected:** {row.detected}.
- **Started:** {row.started}.
- **Network:** {row.network}.
- **The harness's files:** {row.harness_files}.
- **Signals to the grader:** {row.signals}.
- **Classmates:** {row.classmates}.
- **Disk:** {row.disk}.
- **The report's first lines:**
{said}
"""


def page() -> str:
    """docs/isolation.md."""
    order = ", ".join(f"`{tier}`" for tier in STRONGEST_FIRST)
    return INTRO.format(order=order, advice=how_to_isolate(), table=table()) + "".join(map(section, TIERS))


def with_readme_section(readme: str) -> str:
    """``readme`` with the text between the markers replaced by the table."""
    start, end = readme.index(BEGIN), readme.index(END) + len(END)
    return readme[:start] + readme_section() + readme[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readme", type=Path)
    parser.add_argument("page", type=Path)
    parser.add_argument("--check", action="store_true", help="only say whether either file differs (exit 1)")
    args = parser.parse_args(argv)
    wanted = {args.readme: with_readme_section(args.readme.read_text(encoding="utf-8")), args.page: page()}
    stale = [path for path, text in wanted.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path} differs from grade/sandbox/tiers.py: rewrite it with {sys.argv[0]}", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
