"""``opencontext resolve``: the bundle for a role, a task and an instant, explained or as JSON.

Exits 1 with ``--strict`` when the bundle carries a warning of severity error (the bundle is
still printed); the one line on stderr counts the errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from octui.bundle.bundle import digest, resolution_json_utf8
from octui.cli.args import (
    add_format_arg,
    add_repo_args,
    add_source_args,
    add_task_arg,
    examples,
    non_negative_int,
    number,
    query_from,
)
from octui.cli.common import emit, keep, load_for, source_of, write_utf8
from octui.core.enums import ExitCode
from octui.load.heap import gc_paused
from octui.render.explain import explain
from octui.resolve.engine import resolve


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="resolve the bundle for a role, task and instant",
        description="Resolve the repository for a role, task and instant: what the role is "
        "given, what was left out and why, what is wrong, and the digest.",
        epilog=examples(
            "opencontext resolve sample-repo --role support --task refund --explain",
            "opencontext resolve sample-repo --role support --task refund --as-of 2026-03-15",
            "opencontext resolve sample-repo --role sales --include-historical --format json",
            "opencontext resolve sample-repo --role support --task refund --limit 5 --strict",
        ),
    )
    add_repo_args(p, role_required=True)
    add_task_arg(p)
    p.add_argument(
        "--include-historical",
        action="store_true",
        help="include superseded and expired objects, marked, after current ones",
    )
    p.add_argument(
        "--limit",
        type=non_negative_int,
        metavar="N",
        help="keep the N best-ranked objects that are not L0/L1",
    )
    p.add_argument(
        "--min-relevance",
        type=number,
        metavar="S",
        help="drop objects (not L0/L1) scoring below S",
    )
    p.add_argument(
        "--strict", action="store_true", help="exit 1 when any warning of severity error is present"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--explain", action="store_true", help="print the human layout (the default)")
    add_format_arg(out, "json: print the bundle and nothing else")
    add_source_args(p)
    return p


def run(args: argparse.Namespace) -> ExitCode:
    repo = load_for(args)
    resolution = resolve(repo, query_from(args, strict=args.strict))
    keep(args, resolution)
    with gc_paused():  # the bundle is tens of MB of short-lived containers at 50k objects
        if args.format == "json":
            write_utf8(resolution_json_utf8(resolution))
        else:
            emit(args, explain(resolution, digest(resolution), source=source_of(args, repo)))
    if resolution.strict_failed:
        errors = resolution.error_count
        print(
            f"opencontext: strict: {errors} error{'s' if errors != 1 else ''} in the bundle",
            file=sys.stderr,
        )
        return ExitCode.FAILED
    return ExitCode.OK
