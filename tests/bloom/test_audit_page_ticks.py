"""The audit page's plots label every axis with distinct, non-empty ticks that never run into each other.

The page is drawn from the recorded run (every library's real results), with the side-by-side
plots and with a single target. The page's SVG keeps tick labels as text, so the labels are read
back from it; whether two labels touch is measured on the same figures with matplotlib's own text
extents (the fonts the SVG names first).
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator

import pytest
from markupsafe import Markup
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dedup_harness.bloom_audit import html, plot_axes
from dedup_harness.core import svg

from . import recorded_run

NS = "{http://www.w3.org/2000/svg}"


def all_targets() -> str:
    return html.render(recorded_run.reports(), None, recorded_run.speeds())


def one_target() -> str:
    (datatrove,) = [r for r in recorded_run.reports() if r.target == "datatrove"]
    return html.render([datatrove], None, ())


def axes_of(page: str) -> Iterator[tuple[str, list[str]]]:
    """Each axis of each plot on the page: the plot's label with the axis's id, and its tick labels' text."""
    for element in re.findall(r"<svg .*?</svg>", page, flags=re.S):
        root = ET.fromstring(element)
        for axis in root.iter(f"{NS}g"):
            if not re.fullmatch(r"matplotlib\.axis_\d+", axis.get("id", "")):
                continue
            ticks = [g for g in axis if re.fullmatch(r"[xy]tick_\d+", g.get("id", ""))]
            texts = [list(tick.iter(f"{NS}text")) for tick in ticks]
            labels = ["\n".join("".join(line.itertext()) for line in lines) for lines in texts if lines]
            yield f"{root.get('aria-label')} {axis.get('id')}", labels


PAGES = pytest.mark.parametrize("page", [all_targets, one_target], ids=["all targets", "one target"])


@PAGES
def test_every_axis_on_the_page_labels_at_least_two_ticks_each_once_and_none_blank(page: Callable[[], str]) -> None:
    axes = dict(axes_of(page()))
    assert len(axes) >= 4
    for axis, labels in axes.items():
        assert len(labels) >= 2, (axis, labels)
        assert all(label.strip() for label in labels), (axis, labels)
        assert len(set(labels)) == len(labels), (axis, labels)


def test_the_high_rate_cases_of_one_size_read_apart_under_the_plot() -> None:
    labels = dict(axes_of(one_target()))["datatrove promised against delivered rate matplotlib.axis_1"]
    assert "datatrove's\nown test\n1,023\nn=866\nk=7" in labels
    rates = dict(axes_of(all_targets()))["every library delivered over promised rate matplotlib.axis_1"]
    assert [label for label in rates if label.startswith("high rate\n3,000")] == [
        "high rate\n3,000\nn=1,071\np=0.26",
        "high rate\n3,000\nn=1,807\np=0.45",
        "high rate\n3,000\nn=2,830\np=0.601",
    ]


def drawn_figures(monkeypatch: pytest.MonkeyPatch, page: Callable[[], str]) -> list[Figure]:
    figures: list[Figure] = []
    to_svg = svg.to_svg

    def keep(fig: Figure, *, label: str) -> Markup:
        figures.append(fig)
        return to_svg(fig, label=label)

    monkeypatch.setattr(svg, "to_svg", keep)
    assert page()
    return figures


def touching(axis: Axis, renderer: object) -> list[tuple[str, str]]:
    """The pairs of the axis's drawn tick labels whose boxes overlap on the page."""
    low, high = sorted(axis.get_view_interval())
    shown = [t.label1 for t in axis.get_major_ticks() if low <= t.get_loc() <= high and t.label1.get_text()]
    boxes = [(label.get_text(), label.get_window_extent(renderer)) for label in shown]  # type: ignore[arg-type]
    return [
        (a, b)
        for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2)
        if min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0) > 0.5
        and min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0) > 0.5
    ]


@PAGES
def test_no_two_tick_labels_of_an_axis_overlap(monkeypatch: pytest.MonkeyPatch, page: Callable[[], str]) -> None:
    figures = drawn_figures(monkeypatch, page)
    assert len(figures) >= 2
    for fig in figures:
        renderer = FigureCanvasAgg(fig).get_renderer()
        with svg.plotting():
            fig.draw(renderer)
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                assert touching(axis, renderer) == [], ax.get_title()


@pytest.mark.parametrize(
    ("low", "high"),
    [(0.6, 3.0), (1e-29, 1.0), (2e4, 4e7), (0.009, 0.015), (1.0, 15.0), (0.0004, 0.7)],
)
@pytest.mark.parametrize("which", ["x", "y"])
def test_a_log_axis_gets_distinct_round_labels_inside_its_range(low: float, high: float, which: str) -> None:
    with svg.plotting():
        fig = svg.figure(6.0, 3.0)
        ax = fig.subplots()
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        (ax.set_xlim if which == "x" else ax.set_ylim)(low, high)
        plot_axes.label_log_axis(fig, ax, which)
    axis = ax.xaxis if which == "x" else ax.yaxis
    ticks, labels = list(axis.get_ticklocs()), [t.get_text() for t in axis.get_ticklabels()]
    assert len(ticks) >= 2 and all(low <= t <= high for t in ticks)
    assert len(set(labels)) == len(labels) and all(labels)
    assert [float(label) for label in labels] == ticks


def test_numbers_are_written_plainly() -> None:
    assert [plot_axes.plain(v) for v in (0.01, 1.5, 1e-28, 300.0)] == ["0.01", "1.5", "1e-28", "300"]
