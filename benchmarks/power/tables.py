"""The power run's figures: what each mutant's run came to, each check's power, and the Markdown tables of them.

Plain data in, plain data out: ``check_power.py`` runs the suite and hands the outcomes here. A check
kills a mutant only when it fails by an assertion (outcome ``failed``); a crash (``error``) or a
``timeout`` is not a kill, and a mutant whose every check crashed did not import: it is broken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dedup_harness.core.checks import BY_NAME, CHECKS

FAILED = "failed"
ERROR = "error"
SOLE_SHOWN = 4  # the per-check table names this many mutants a check alone kills, then counts the rest


@dataclass
class MutantRun:
    """One mutant's suite run: each check's outcome (a core.outcome.Outcome value)."""

    name: str
    source: str  # "extra", "lossy" (the identity check's lossy identities) or "catalogue"
    check: str  # the check it targets ("" for a catalogue mutant: its targets are its committed kill set)
    bug: str
    outcomes: dict[str, str]
    broken: str = ""  # why the run says nothing (import or collection failed), empty when it ran

    @property
    def kills(self) -> list[str]:
        return [check for check in CHECKS if self.outcomes.get(check) == FAILED]

    @property
    def crashed(self) -> list[str]:
        return [check for check in CHECKS if self.outcomes.get(check) not in (FAILED, "passed")]


def broken_reason(outcomes: Mapping[str, str], collection_errors: Sequence[str]) -> str:
    """Why a run measured nothing: collection errors, or every check crashed (the root did not import)."""
    if collection_errors:
        return "collection failed: " + "; ".join(collection_errors)[:300]
    if outcomes and all(outcome == ERROR for outcome in outcomes.values()):
        return "every check crashed (the root does not import, or the stage cannot run at all)"
    return ""


@dataclass
class CheckPower:
    """One check's power: the mutants it must kill, those it did, and its cost against the reference."""

    number: int
    check: str
    extra: list[str] = field(default_factory=list)  # extra mutants and lossy identities aimed at it
    extra_killed: list[str] = field(default_factory=list)
    survivors: dict[str, str] = field(default_factory=dict)  # name -> its outcome in this check
    catalogue: list[str] = field(default_factory=list)  # the catalogue mutants whose kill set names it
    catalogue_killed: list[str] = field(default_factory=list)
    also_kills: int = 0  # extra mutants aimed at other checks that this one kills as well
    sole: list[str] = field(default_factory=list)  # every mutant (catalogue too) that no other check kills
    cpu_seconds: float | None = None

    @property
    def targeted(self) -> int:
        return len(self.extra) + len(self.catalogue)

    @property
    def killed(self) -> int:
        return len(self.extra_killed) + len(self.catalogue_killed)

    @property
    def power(self) -> float:
        return self.killed / self.targeted if self.targeted else 1.0


def check_powers(
    runs: Sequence[MutantRun], committed: Mapping[str, Sequence[str]], cpu: Mapping[str, float]
) -> list[CheckPower]:
    """Each check's power: its extra mutants (by target) and its catalogue entries (by committed kill set)."""
    rows = []
    for check in CHECKS:
        row = CheckPower(BY_NAME[check].number, check, cpu_seconds=cpu.get(check))
        for run in runs:
            if run.kills == [check]:
                row.sole.append(run.name)
            if run.source == "catalogue":
                if check in committed.get(run.name, ()):
                    row.catalogue.append(run.name)
                    if check in run.kills:
                        row.catalogue_killed.append(run.name)
            elif run.check == check:
                row.extra.append(run.name)
                if check in run.kills:
                    row.extra_killed.append(run.name)
                else:
                    row.survivors[run.name] = "broken" if run.broken else run.outcomes.get(check, "missing")
            elif check in run.kills:
                row.also_kills += 1
        rows.append(row)
    return rows


def gaps(runs: Sequence[MutantRun]) -> list[MutantRun]:
    """The extra mutants no check kills (the broken ones are not gaps: they measured nothing)."""
    return [run for run in runs if run.source != "catalogue" and not run.broken and not run.kills]


def catalogue_drift(
    runs: Sequence[MutantRun], committed: Mapping[str, Sequence[str]]
) -> dict[str, dict[str, list[str]]]:
    """Where the measured catalogue kill sets differ from the committed ones: {mutant: {lost, gained}}."""
    drift = {}
    for run in runs:
        if run.source != "catalogue":
            continue
        want, got = set(committed.get(run.name, ())), set(run.kills)
        if want != got:
            drift[run.name] = {"lost": sorted(want - got), "gained": sorted(got - want)}
    return drift


def lost_kills(before: Mapping[str, Any], runs: Sequence[MutantRun]) -> dict[str, list[str]]:
    """Per check, the mutants that an earlier run (its ``--json`` file) saw it kill and this run did not.

    A mutant this run measured that the earlier one did not (a new one) has no kills to lose; one the
    earlier run measured that this one did not (renamed, removed) is listed under ``"not measured now"``.
    """
    earlier = {m["name"]: set(m["kills"]) for m in before["mutants"]}
    now = {run.name: set(run.kills) for run in runs}
    lost: dict[str, list[str]] = {}
    for name, kills in earlier.items():
        if name not in now:
            lost.setdefault("not measured now", []).append(name)
            continue
        for check in sorted(kills - now[name], key=CHECKS.index):
            lost.setdefault(check, []).append(name)
    return lost


def _short(check: str) -> str:
    return f"{BY_NAME[check].number}"


def power_table(rows: Sequence[CheckPower]) -> str:
    """The per-check table, in Markdown."""
    lines = [
        "| # | check | extra killed | catalogue killed | power | survivors (outcome) | also kills | sole killer of "
        "| CPU s |",
        "|---:|---|---:|---:|---:|---|---:|---|---:|",
    ]
    for r in rows:
        survivors = ", ".join(f"`{name}` ({outcome})" for name, outcome in r.survivors.items()) or "none"
        sole = ", ".join(r.sole[:SOLE_SHOWN]) + (
            f" and {len(r.sole) - SOLE_SHOWN} more" if len(r.sole) > SOLE_SHOWN else ""
        )
        cpu = "" if r.cpu_seconds is None else f"{r.cpu_seconds:.3f}"
        lines.append(
            f"| {r.number} | `{r.check}` | {len(r.extra_killed)}/{len(r.extra)} | "
            f"{len(r.catalogue_killed)}/{len(r.catalogue)} | {r.killed}/{r.targeted} = {r.power:.2f} | "
            f"{survivors} | {r.also_kills} | {sole or 'none'} | {cpu} |"
        )
    return "\n".join(lines)


def mutant_table(runs: Sequence[MutantRun]) -> str:
    """One line per mutant: its target, whether the target killed it, every check that did (by number)."""
    lines = [
        "| mutant | targets | target's outcome | killed by checks | crashed in checks | bug |",
        "|---|---:|---|---|---|---|",
    ]
    for run in runs:
        target = _short(run.check) if run.check else "kill set"
        outcome = "broken" if run.broken else (run.outcomes.get(run.check, "") if run.check else "")
        killed = ", ".join(_short(c) for c in run.kills) or "none"
        crashed = ", ".join(_short(c) for c in run.crashed) or ""
        lines.append(f"| `{run.name}` | {target} | {outcome} | {killed} | {crashed} | {run.bug} |")
    return "\n".join(lines)


def figures(
    runs: Sequence[MutantRun],
    rows: Sequence[CheckPower],
    committed: Mapping[str, Sequence[str]],
    about: Mapping[str, Any],
) -> dict[str, Any]:
    """Everything the run measured, as JSON-ready data."""
    return {
        **about,
        "checks": [
            {
                "number": r.number,
                "check": r.check,
                "extra": r.extra,
                "extra_killed": r.extra_killed,
                "survivors": r.survivors,
                "catalogue": r.catalogue,
                "catalogue_killed": r.catalogue_killed,
                "power": round(r.power, 4),
                "also_kills": r.also_kills,
                "sole_killer_of": r.sole,
                "cpu_seconds": r.cpu_seconds,
            }
            for r in rows
        ],
        "mutants": [
            {
                "name": run.name,
                "source": run.source,
                "targets": run.check,
                "bug": run.bug,
                "kills": run.kills,
                "outcomes": run.outcomes,
                "broken": run.broken,
            }
            for run in runs
        ],
        "gaps": [run.name for run in gaps(runs)],
        "catalogue_drift": catalogue_drift(runs, committed),
    }


def markdown(
    runs: Sequence[MutantRun],
    rows: Sequence[CheckPower],
    committed: Mapping[str, Sequence[str]],
    about: Mapping[str, Any],
) -> str:
    """The report: what was measured, the per-check table, the gaps, the drift, the per-mutant table."""
    head = ", ".join(f"{key} {value}" for key, value in about.items())
    found_gaps = gaps(runs)
    gap_lines = [f"- `{run.name}` (aimed at {_short(run.check)}): {run.bug}" for run in found_gaps] or ["- none"]
    drift = catalogue_drift(runs, committed)
    drift_lines = [f"- {name}: lost {d['lost']}, gained {d['gained']}" for name, d in drift.items()] or [
        "- none: every catalogue mutant's measured kill set is its committed one"
    ]
    broken = [f"- `{run.name}`: {run.broken}" for run in runs if run.broken]
    parts = [
        f"Measured: {head}.",
        power_table(rows),
        "Extra mutants no check kills (gaps):\n\n" + "\n".join(gap_lines),
        "Catalogue kill sets against mutants/kill_matrix.json:\n\n" + "\n".join(drift_lines),
    ]
    if broken:
        parts.append("Broken mutants (they measured nothing; fix them):\n\n" + "\n".join(broken))
    parts.append(mutant_table(runs))
    return "\n\n".join(parts) + "\n"
