"""mutation: how strong the suite is, measured by mutmut over the reference in a scratch copy."""
