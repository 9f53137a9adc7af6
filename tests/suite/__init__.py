"""The checks of the suite (docs/checks.md). A package, so that an installed wheel runs it with ``pytest --pyargs``."""
