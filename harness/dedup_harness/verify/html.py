"""``verify --html FILE``: the kill matrix as a heat map on one self-contained page.

One row per target (the reference, extra roots, every mutant), one column per check; a cell's colour
is its outcome, its letter the terminal table's (``K`` killed, ``.`` passed, ``E`` error, ``T``
timeout), and a black frame marks an expected killer (a check the mutant's catalogue entry names). A
breach is framed in red. Below: how many mutants each check kills, the targets' verdicts and the
findings the terminal prints.
"""

from __future__ import annotations

from markupsafe import Markup
from matplotlib.colors import ListedColormap
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from dedup_harness.core import pages, svg
from dedup_harness.core.outcome import Outcome
from dedup_harness.verify.matrix import Matrix, Row
from dedup_harness.verify.report import SYMBOL, findings, shown_rows, verdict
from dedup_harness.verify.targets import Kind

# Colour index per outcome: never ran, passed, failed (an assertion: kills a mutant), error, timeout.
CODES: dict[Outcome | None, int] = {None: 0, Outcome.PASSED: 1, Outcome.FAILED: 2, Outcome.ERROR: 3, Outcome.TIMEOUT: 4}
COLOURS = ("#ffffff", "#dbe7f3", "#1f6f3f", "#a3238e", "#d97706")
LEGEND = "dark green K: killed (an assertion failed); pale . passed; purple E error; orange T timeout"


def render(matrix: Matrix) -> str:
    rows = shown_rows(matrix)
    with svg.plotting():
        plots = {"heatmap": heat_map(matrix, rows), "kills": kill_counts(matrix)}
    return pages.render(
        pages.environment(__package__ or ""),
        "verify.html.j2",
        title="dedup-harness verify: the kill matrix",
        matrix=matrix,
        rows=[(row, verdict(row), _expected(row)) for row in rows],
        counts=matrix.kill_counts(),
        findings=findings(matrix),
        plots=plots,
        legend=LEGEND,
    )


def _expected(row: Row) -> list[str]:
    return list(row.target.expected) if row.target.kind is Kind.MUTANT else []


def heat_map(matrix: Matrix, rows: list[Row]) -> Markup:
    checks = matrix.checks
    grid = [[CODES[row.outcome(check)] for check in checks] for row in rows]
    left = svg.text_width(row.target.name for row in rows)
    fig = svg.figure(0.42 * len(checks) + left + 0.4, 0.3 * len(rows) + 1.1, left=left, bottom=0.45, top=0.45)
    ax = fig.subplots()
    ax.imshow(grid, cmap=ListedColormap(COLOURS), vmin=0, vmax=len(COLOURS) - 1, aspect="auto")
    for y, row in enumerate(rows):
        for x, check in enumerate(checks):
            outcome = row.outcome(check)
            text = " " if outcome is None else SYMBOL[outcome]
            dark = outcome in (Outcome.FAILED, Outcome.ERROR)
            ax.text(x, y, text, ha="center", va="center", color="white" if dark else "#1f2328", fontsize=8)
            frame = _frame(row, check)
            if frame:
                ax.add_patch(Rectangle((x - 0.45, y - 0.45), 0.9, 0.9, fill=False, edgecolor=frame, linewidth=1.6))
    ax.set_xticks(range(len(checks)), [str(n) for n in range(1, len(checks) + 1)])
    ax.set_yticks(range(len(rows)), [row.target.name for row in rows])
    ax.xaxis.tick_top()
    ax.set_xlabel("check (numbers as in the table below); framed: the expected killer, red frame: a breach")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return svg.to_svg(fig, label="kill matrix heat map")


def _frame(row: Row, check: str) -> str:
    """The frame of a cell: black for an expected killer that failed, red for a breach, none otherwise."""
    outcome = row.outcome(check)
    if row.target.kind is Kind.REFERENCE:
        return "#cf222e" if row.result is not None and outcome is not Outcome.PASSED else ""
    if row.target.kind is Kind.MUTANT and check in row.target.expected:
        return "#000000" if outcome is Outcome.FAILED else "#cf222e"
    return ""


def kill_counts(matrix: Matrix) -> Markup:
    counts = matrix.kill_counts()
    numbers = [str(n) for n in range(1, len(matrix.checks) + 1)]
    values = [counts[check] for check in matrix.checks]
    fig = svg.figure(7, 2.6, bottom=0.6)
    ax = fig.subplots()
    bars = ax.bar(numbers, values, color=["#cf222e" if v == 0 else "#1f6f3f" for v in values])
    ax.bar_label(bars, padding=2, fontsize=8)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("check")
    ax.set_ylabel("mutants killed")
    ax.set_title("kill counts per check (red: kills no mutant)", loc="left")
    return svg.to_svg(fig, label="kill counts per check")
