"""HTML pages from Jinja2 templates: one environment per capability, autoescaping on, one shared layout.

A capability keeps its templates in a ``templates/`` folder beside its modules (package data, in the
wheel); ``layout.html.j2`` here holds what every page shares: the styles, the sortable tables, and
nothing loaded from elsewhere (a page is one file that works offline).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined

from dedup_harness.core.provenance import here


def environment(package: str, *, finalize: Callable[[Any], Any] | None = None) -> Environment:
    """Templates of ``package`` (its ``templates/`` folder) and the shared layout, autoescaped.

    ``finalize`` sees every value a template writes before it is escaped (a page of untrusted text
    makes it harmless there, once for every value).
    """
    loader = ChoiceLoader([PackageLoader(package, "templates"), PackageLoader(__package__ or "", "templates")])
    env = Environment(
        loader=loader,
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=finalize,
    )
    env.filters["g"] = lambda value: f"{value:g}"
    env.filters["percent"] = lambda value: f"{100 * value:.0f}%"
    return env


def render(env: Environment, template: str, **context: Any) -> str:
    """``template`` filled with ``context``; the layout's footer names what wrote the page (``made_by``)."""
    return env.get_template(template).render(made_by=here().line(), **context)
