"""The smallest failing case of a failed check: shrink the check's own failing input while it still fails."""
