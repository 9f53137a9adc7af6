"""What the capabilities share: the checks registry, running the suite, outcomes, data and generators."""
