"""Plots as inline SVG: a matplotlib figure drawn by its svg backend, ready to sit inside an HTML page.

No pyplot (no global figure state, no GUI backend): each plot is a ``Figure`` of its own. The output
is the same bytes for the same figure (a fixed hash salt for the element ids, no date in the
metadata), and text stays text (``svg.fonttype: none``), which keeps a page small and searchable and
needs no font file: the browser draws it with a local sans-serif font.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib
from markupsafe import Markup
from matplotlib.figure import Figure

SETTINGS: dict[str, Any] = {
    "svg.hashsalt": "dedup-harness",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@contextmanager
def plotting() -> Iterator[None]:
    """The settings every plot of the reports is drawn under."""
    with matplotlib.rc_context(SETTINGS):  # type: ignore[arg-type]  # its stub types the keys as literals
        yield


def figure(width: float, height: float, *, left: float = 0.7, bottom: float = 0.55, top: float = 0.35) -> Figure:
    """A new figure, ``width`` by ``height`` inches, with margins in inches for the labels.

    Fixed margins rather than a layout engine: constrained layout draws every figure twice and made
    a 200-submission page take more than twice as long. ``text_width`` sizes a margin for labels.
    """
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(left=left / width, right=1 - 0.25 / width, bottom=bottom / height, top=1 - top / height)
    return fig


def text_width(labels: Iterable[str], size: float = SETTINGS["font.size"]) -> float:
    """About how many inches the longest of ``labels`` takes at ``size`` points (a sans-serif average)."""
    return max((len(label) for label in labels), default=0) * size * 0.55 / 72 + 0.15


def to_svg(fig: Figure, *, label: str) -> Markup:
    """The figure as an ``<svg>`` element (no XML prolog), labelled for screen readers and tests."""
    out = io.StringIO()
    with plotting():
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    text = out.getvalue()
    svg = text[text.index("<svg") :]
    # matplotlib escapes the label for XML; Markup keeps Jinja from escaping the element itself.
    named = svg.replace("<svg ", f'<svg role="img" aria-label="{_attribute(label)}" class="plot" ', 1)
    return Markup(named)


def _attribute(text: str) -> str:
    return str(Markup.escape(text))
