"""The ratio table of the benchmarks: the reference against the oracle, the Bloom batch path against rbloom."""

from __future__ import annotations

from typing import Any

# The goals of issue 7, at 1M paragraphs and for the filter.
TIME_GOAL = 2.0  # reference wall time / oracle wall time, at most
MEMORY_GOAL = 0.2  # reference bytes per paragraph / oracle bytes per paragraph, at most
BLOOM_GOAL = 1 / 3  # batch inserts per second / rbloom's, at least

Row = dict[str, Any]


def ratio_rows(results: dict[str, dict[str, Any]]) -> list[Row]:
    """One row per measured pair, with the ratio and whether it meets its goal (where one is set)."""
    rows: list[Row] = []
    sizes = sorted({r["paragraphs"] for key, r in results.items() if key.startswith("stage:")})
    for n in sizes:
        ref, ora = results.get(f"stage:reference:{n}"), results.get(f"stage:oracle:{n}")
        if not (ref and ora):
            continue
        at_scale = n >= 1_000_000
        rows.append(_row(f"wall time, {n:,} paragraphs", ref["seconds"], ora["seconds"], "s", TIME_GOAL, at_scale))
        rows.append(_row(f"CPU time, {n:,} paragraphs", ref["cpu_seconds"], ora["cpu_seconds"], "s", None))
        rows.append(
            _row(
                f"peak memory per paragraph, {n:,} paragraphs",
                ref["bytes_per_paragraph"],
                ora["bytes_per_paragraph"],
                "B",
                MEMORY_GOAL,
                at_scale,
            )
        )
    for op in ("inserts", "queries"):
        ours, theirs = results.get(f"bloom:{op}:batch"), results.get(f"bloom:{op}:rbloom")
        if ours and theirs:
            rows.append(_row(f"Bloom {op} per second vs rbloom", ours["per_second"], theirs["per_second"], "/s", None))
            if op == "inserts":
                rows[-1]["goal"] = f">= {BLOOM_GOAL:.2f}"
                rows[-1]["met"] = rows[-1]["ratio"] >= BLOOM_GOAL
    return rows


def _row(what: str, ours: float, theirs: float, unit: str, goal: float | None, judged: bool = True) -> Row:
    ratio = ours / theirs if theirs else float("inf")
    row: Row = {"what": what, "reference": ours, "other": theirs, "unit": unit, "ratio": ratio}
    if goal is not None and judged:
        row["goal"] = f"<= {goal:.2f}"
        row["met"] = ratio <= goal
    return row


def markdown_table(rows: list[Row]) -> str:
    lines = ["| measure | reference | oracle / rbloom | ratio | goal | met |", "|---|---:|---:|---:|---|---|"]
    for r in rows:
        met = "" if "met" not in r else ("yes" if r["met"] else "NO")
        lines.append(
            f"| {r['what']} | {_fmt(r['reference'], r['unit'])} | {_fmt(r['other'], r['unit'])} "
            f"| {r['ratio']:.3f} | {r.get('goal', '')} | {met} |"
        )
    return "\n".join(lines)


def _fmt(value: float, unit: str) -> str:
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:.1f} B"
