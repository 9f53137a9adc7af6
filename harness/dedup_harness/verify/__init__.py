"""verify: the canary, the reference and every mutant through the suite, judged as a kill matrix."""
