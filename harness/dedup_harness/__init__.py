"""dedup-harness: property tests, mutants, grading and Bloom audits for exact paragraph dedup."""

__version__ = "0.1.0"
