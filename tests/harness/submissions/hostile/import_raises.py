# Tries: nothing hostile. The module raises while it is imported.
# Expected verdict: an "import" problem naming ZeroDivisionError; every check errors.
STATS_KEYS = ("docs_in",)
RATIO = 1 / 0
