"""Files to objects: reading a working tree or a git revision, parsing, the parse cache."""
