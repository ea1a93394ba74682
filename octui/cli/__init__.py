"""``opencontext``: the command line, one module per subcommand."""
