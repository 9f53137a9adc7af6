"""audit-bloom: the Bloom sizing regression checks, against the reference and real third-party filters."""
