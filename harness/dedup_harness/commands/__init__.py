"""The subcommands of ``dedup-harness``: argument parsing and orchestration, one module each."""
