"""``opencontext synth OUT``: write a deterministic synthetic repository of N objects (for
benchmarks and demos); the generator is :mod:`octui.synth.repository`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from octui.cli.args import whole_number
from octui.cli.common import UsageError
from octui.core.enums import ExitCode


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="write a synthetic repository of N objects (for benchmarks and demos)",
        description="Write a deterministic synthetic repository: versions and supersession "
        "chains, declared conflicts, classifications and access lists, validity windows across "
        "years, several sources, roles with scopes, Markdown bodies of varied length. The same "
        "--objects and --seed always write the same bytes.",
        epilog="examples:\n  opencontext synth /tmp/org10k --objects 10000 --seed 1",
    )
    p.add_argument("out", metavar="OUT", help="a new (or empty) folder to write")
    p.add_argument(
        "--objects",
        "-n",
        type=whole_number(1),
        default=1000,
        metavar="N",
        help="how many object files to write, at least 1 (default: 1000)",
    )
    p.add_argument(
        "--seed",
        type=whole_number(),
        default=0,
        metavar="S",
        help="the random seed; the same N and S always write the same bytes (default: 0)",
    )
    return p


def run(args: argparse.Namespace) -> ExitCode:
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: already exists and is not an empty folder; choose a new folder")
    from octui.synth.repository import write_repository  # imported when used

    try:
        count = write_repository(out, args.objects, args.seed)
    except OSError as exc:
        raise UsageError(f"{out}: cannot write ({exc.strerror or exc})") from None
    print(f"wrote {count} object files to {out} (seed {args.seed})")
    return ExitCode.OK
