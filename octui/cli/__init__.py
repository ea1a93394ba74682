"""``opencontext``: the command line, one module per subcommand.

:mod:`~octui.cli.main` lists the commands (``COMMANDS``), builds the parser and catches the
user's mistakes once; :mod:`~octui.cli.args` declares the arguments commands share;
:mod:`~octui.cli.common` loads the repository a command names. Each subcommand module
(resolve, validate, history, diff, changes, synth, completion, schema, audit, verify) has
``add_parser(sub, name)`` and ``run(args)``; the work itself lives in the layers below.
"""
