"""The power instrument: extra mutants kept out of the catalogue, and the tables of what each check kills."""
