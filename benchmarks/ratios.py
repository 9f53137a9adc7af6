"""The ratio table of the benchmarks (each goal judged where it is set), and every target's own figures.

Issue 7: the reference against the oracle at 1M paragraphs (5% repeats): at most 2x the wall time and
1/5 of the memory per paragraph; the Bloom batch path at least 1/3 of rbloom's inserts per second.
Issue 16 (README.md here, "The goals"): the external stage against a set of SHA-256 digests at 5% and
50% repeats, at most 2x the wall time and 1/4 of the peak memory, flat from 1M to 10M paragraphs (the
reference printed beside it); `dedup-harness dedup` against a plain script on 200k documents, at most 2x
the time and 1/4 of the memory; its progress display under 1% of its time.
"""

from __future__ import annotations

from typing import Any

# Issue 7, at 1M paragraphs and for the filter.
TIME_GOAL = 2.0  # reference wall time / oracle wall time, at most
MEMORY_GOAL = 0.2  # reference bytes per paragraph / oracle bytes per paragraph, at most
BLOOM_GOAL = 1 / 3  # batch inserts per second / rbloom's, at least
# Issue 16.
EXTERNAL_TIME_GOAL = 2.0  # external wall time / digests wall time, at most
EXTERNAL_MEMORY_GOAL = 0.25  # external peak above its imports / the digests', at most
FLAT_GOAL = 1.0  # external bytes per paragraph at 10M / at 1M, at most
COMMAND_TIME_GOAL = 2.0  # dedup -q wall time / plain script's, at most
COMMAND_MEMORY_GOAL = 0.25  # dedup -q peak above its imports / plain script's, at most
PROGRESS_GOAL = 0.01  # what the progress display adds, as a share of the command's time, at most

Row = dict[str, Any]
Results = dict[str, dict[str, Any]]


def ratio_rows(results: Results) -> list[Row]:
    """One row per measured pair, with the ratio and whether it meets its goal (where one is set)."""
    return [*_stage_rows(results), *_flat_rows(results), *_command_rows(results), *_bloom_rows(results)]


def _cases(results: Results, kind: str) -> list[tuple[int, float]]:
    return sorted({(r["paragraphs"], r["repeat_rate"]) for key, r in results.items() if key.startswith(kind + ":")})


def _stage_rows(results: Results) -> list[Row]:
    rows: list[Row] = []
    for n, rate in _cases(results, "stage"):
        run = {t: results.get(f"stage:{t}:{n}:{rate:g}") for t in ("reference", "oracle", "external", "digests")}
        at = f"{n:,} paragraphs, {rate:.0%} repeats"
        issue_7 = n >= 1_000_000 and rate == 0.05
        for ours, theirs, time_goal, memory_goal in (
            ("reference", "oracle", TIME_GOAL if issue_7 else None, MEMORY_GOAL if issue_7 else None),
            ("external", "digests", EXTERNAL_TIME_GOAL, EXTERNAL_MEMORY_GOAL),
            ("reference", "digests", None, None),
        ):
            a, b = run[ours], run[theirs]
            if not (a and b):
                continue
            pair = f"{ours} / {theirs}"
            rows.append(_row(f"{pair}, wall time, {at}", a["seconds"], b["seconds"], "s", time_goal))
            rows.append(_row(f"{pair}, CPU time, {at}", a["cpu_seconds"], b["cpu_seconds"], "s", None))
            rows.append(
                _row(
                    f"{pair}, peak memory per paragraph, {at}",
                    a["bytes_per_paragraph"],
                    b["bytes_per_paragraph"],
                    "B",
                    memory_goal,
                )
            )
            what = f"{pair}, whole process: peak resident size (interpreter and imports included), {at}"
            rows.append(_row(what, a["process_peak"], b["process_peak"], "MB", None))
    return rows


def _flat_rows(results: Results) -> list[Row]:
    rows = []
    for n, rate in _cases(results, "stage"):
        small, large = results.get(f"stage:external:1000000:{rate:g}"), results.get(f"stage:external:{n}:{rate:g}")
        if n > 1_000_000 and small and large:
            what = f"external, peak memory per paragraph, {n:,} / 1,000,000 paragraphs, {rate:.0%} repeats"
            rows.append(_row(what, large["bytes_per_paragraph"], small["bytes_per_paragraph"], "B", FLAT_GOAL))
    return rows


def _command_rows(results: Results) -> list[Row]:
    rows: list[Row] = []
    for docs in sorted({r["docs"] for key, r in results.items() if key.startswith("command:")}):
        run = {key.split(":")[1]: r for key, r in results.items() if key.startswith("command:") and r["docs"] == docs}
        quiet, plain = run.get("command"), run.get("plain")
        at = f"{docs:,} documents"
        if quiet and plain:
            pair = "dedup -q / plain script"
            rows += [
                _row(f"{pair}, wall time, {at}", quiet["seconds"], plain["seconds"], "s", COMMAND_TIME_GOAL),
                _row(f"{pair}, CPU time, {at}", quiet["cpu_seconds"], plain["cpu_seconds"], "s", None),
                _row(
                    f"{pair}, peak memory above the imports, {at}",
                    quiet["peak_growth"],
                    plain["peak_growth"],
                    "MB",
                    COMMAND_MEMORY_GOAL,
                ),
                _row(
                    f"{pair}, whole process: wall time, start and imports included, {at}",
                    quiet["process_seconds"],
                    plain["process_seconds"],
                    "s",
                    None,
                ),
                _row(
                    f"{pair}, whole process: peak resident size, {at}",
                    quiet["process_peak"],
                    plain["process_peak"],
                    "MB",
                    None,
                ),
            ]
        if run.get("command-reference") and plain:
            ref, pair = run["command-reference"], "dedup --reference -q / plain script"
            rows += [
                _row(f"{pair}, wall time, {at}", ref["seconds"], plain["seconds"], "s", None),
                _row(
                    f"{pair}, peak memory above the imports, {at}", ref["peak_growth"], plain["peak_growth"], "MB", None
                ),
            ]
        for shown, hidden, what in (
            ("command-log", "command", "progress lines (no -q) / -q"),
            ("command-bar", "command", "rich's bar (no -q, a terminal) / -q"),
            ("command", "command-bare", "-q / progress taken out"),
        ):
            a, b = run.get(shown), run.get(hidden)
            if a and b:
                rows.append(_row(f"dedup {what}, wall time, {at}", a["seconds"], b["seconds"], "s", None))
                # No goal here: whole runs swing by more than the 1 % the goal allows; the rows below
                # judge it on the progress display's cost timed alone.
                rows.append(_row(f"dedup {what}, CPU time, {at}", a["cpu_seconds"], b["cpu_seconds"], "s", None))
        alone = results.get(f"progress:alone:{docs}")
        if alone and quiet:
            for mode in ("quiet", "log", "bar"):
                what = f"progress counting timed alone ({mode}) / dedup -q CPU time, {at}"
                rows.append(_row(what, alone[f"{mode}_seconds"], quiet["cpu_seconds"], "s", PROGRESS_GOAL))
            what = "rich's bar, its redrawing thread alone: CPU seconds per second shown"
            rows.append(_row(what, alone["bar_idle_cpu_per_second"], 1.0, "s", PROGRESS_GOAL))
    return rows


def _bloom_rows(results: Results) -> list[Row]:
    rows = []
    for op in ("inserts", "queries"):
        ours, theirs = results.get(f"bloom:{op}:batch"), results.get(f"bloom:{op}:rbloom")
        if ours and theirs:
            rows.append(_row(f"Bloom {op} per second vs rbloom", ours["per_second"], theirs["per_second"], "/s", None))
            if op == "inserts":
                rows[-1]["goal"] = f">= {BLOOM_GOAL:.2f}"
                rows[-1]["met"] = rows[-1]["ratio"] >= BLOOM_GOAL
    return rows


def _row(what: str, ours: float, theirs: float, unit: str, goal: float | None) -> Row:
    ratio = ours / theirs if theirs else float("inf")
    row: Row = {"what": what, "measured": ours, "baseline": theirs, "unit": unit, "ratio": ratio}
    if goal is not None:
        row["goal"] = f"<= {goal:.2f}"
        row["met"] = ratio <= goal
    return row


def markdown_table(rows: list[Row]) -> str:
    lines = ["| measure | measured | baseline | ratio | goal | met |", "|---|---:|---:|---:|---|---|"]
    for r in rows:
        met = "" if "met" not in r else ("yes" if r["met"] else "NO")
        lines.append(
            f"| {r['what']} | {_fmt(r['measured'], r['unit'])} | {_fmt(r['baseline'], r['unit'])} "
            f"| {r['ratio']:.3f} | {r.get('goal', '')} | {met} |"
        )
    return "\n".join(lines)


def figures_table(results: Results) -> str:
    """Every target's own figures (best of its rounds), with the load average as each round began."""
    lines = [
        "| corpus | target | wall (best) | wall (median) | CPU | whole process wall | peak above imports "
        "| per paragraph | whole process peak | rounds | load average |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for key, r in results.items():
        kind, which = key.split(":")[:2]
        if kind not in ("stage", "command"):
            continue
        corpus = (
            f"{r['docs']:,} documents ({r['paragraphs']:,} paragraphs)"
            if kind == "command"
            else f"{r['paragraphs']:,} paragraphs, {r['repeat_rate']:.0%} repeats"
        )
        loads = f"{min(r['loads']):.1f} to {max(r['loads']):.1f}"
        lines.append(
            f"| {corpus} | {which} | {r['seconds']:.2f} s | {r['median_seconds']:.2f} s | {r['cpu_seconds']:.2f} s "
            f"| {r['process_seconds']:.2f} s | {_fmt(r['peak_growth'], 'MB')} | {r['bytes_per_paragraph']:.1f} B "
            f"| {_fmt(r['process_peak'], 'MB')} | {r['rounds']} | {loads} |"
        )
    return "\n".join(lines)


def _fmt(value: float, unit: str) -> str:
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "MB":
        return f"{value / 1e6:.1f} MB"
    return f"{value:.1f} B"
