"""Distribution: a batch over machines (shards, the batch identity, merge's checks) and the Gradescope bundle."""
