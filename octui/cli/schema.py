"""``opencontext schema NAME``: the JSON Schema of opencontext.yaml, an object or a bundle,
for editors. The schemas are those of :mod:`octui.bundle.schema`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from octui.bundle.schema import SCHEMAS, dumps_schema
from octui.core.enums import ExitCode


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    names = ", ".join(SCHEMAS)
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="print a JSON Schema for opencontext.yaml, an object or a bundle",
        description="Print the JSON Schema (draft 2020-12) of NAME: config (opencontext.yaml), "
        "object (an object's front matter) or bundle (what resolve --format json prints).",
        epilog="examples:\n"
        "  opencontext schema config > opencontext.schema.json\n"
        "  # then, as the first line of opencontext.yaml:\n"
        "  # yaml-language-server: $schema=opencontext.schema.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", choices=list(SCHEMAS), metavar="NAME", help=names)
    return p


def run(args: argparse.Namespace) -> ExitCode:
    sys.stdout.write(dumps_schema(args.name))
    return ExitCode.OK
