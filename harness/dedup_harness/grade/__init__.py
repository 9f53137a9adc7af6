"""grade: untrusted submissions run in an isolated worker while the checks run in a trusted process."""
