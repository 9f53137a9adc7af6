"""The checks of the suite (SPEC 5). A package, so that an installed wheel runs it with ``pytest --pyargs``."""
