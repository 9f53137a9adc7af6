"""The course module data.03: exact paragraph deduplication (reference implementation)."""
