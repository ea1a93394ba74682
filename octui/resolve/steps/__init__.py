"""The eight steps of resolution (SPEC §2), one module each, in the specification's order."""
