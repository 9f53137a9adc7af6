"""``grade --markdown FILE``: the batch summary in GitHub-flavoured Markdown, for a CI job's summary page.

The counts, then the class by what went wrong (``summary.groups``), largest group first. Appended to
FILE, as every command of a CI step appends to ``$GITHUB_STEP_SUMMARY``. Every cell a submission can
reach (its name, the words of its zero's cause) is made harmless and its Markdown escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dedup_harness.grade.reports import harmless

NAMES_SHOWN = 10  # students listed per group; the CSV and the HTML page have them all


def render(summary: Mapping[str, Any]) -> str:
    lines = [f"## dedup-harness grade: {summary['submissions']} submission(s)", ""]
    lines += ["| graded | harness errors | full marks | mean score |", "|---:|---:|---:|---:|"]
    mean = f"{summary['mean_score']:g} / {summary['max_score']:g}"
    lines += [f"| {summary['graded']} | {summary['harness_errors']} | {summary['full_marks']} | {mean} |", ""]
    lines += ["### The class by what went wrong", "", "| students | what went wrong | who |", "|---:|---|---|"]
    for group in summary.get("groups", []):
        names = [harmless.markdown(name) for name in group["submissions"]]
        more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
        lines.append(
            f"| {group['count']} | {harmless.markdown(group['words'])} | {', '.join(names[:NAMES_SHOWN])}{more} |"
        )
    return "\n".join(lines) + "\n"
