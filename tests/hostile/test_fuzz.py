"""Property tests over generated repositories and over raw bytes.

Generated repositories draw random front matter (valid and not), random supersession
and conflict graphs (cycles, self-links and dangling links included), random roles,
clearances, scopes, sources with forced authority, and random instants. For each:

- no exception escapes loading, resolving, the bundle, ``--explain`` or history;
- every object ends in exactly one place (included, or excluded with one reason);
- a denied object appears as its id and reason only, and none of its text reaches
  the role's bundle or explanation;
- the digest is deterministic: the same files listed in reverse order give the same
  bytes, and the digest can be recomputed from the bundle alone;
- a strict run fails exactly when a warning of severity ``error`` is present — through
  the real CLI entry point too (in-process, and a few runs in a subprocess under
  another time zone and locale).

Raw random bytes and random front-matter text go through the parser and the CLI:
each file either loads or becomes one single-line ``invalid-object`` finding.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml
from campaign import DERANDOMIZE, examples
from hostile_util import MemTree, cli, write_repo
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from octui.analysis.history import UnknownId, history
from octui.bundle.bundle import bundle_dict, digest, digest_from_bundle, dumps_bundle
from octui.core.enums import ExclusionReason, Severity
from octui.core.model import KNOWN_FIELDS, Exclusion
from octui.core.timeutil import parse_instant
from octui.load.config import ConfigError
from octui.load.fastpath import fast_mapping
from octui.load.frontmatter import parse_file
from octui.load.loader import Loader, load_repository
from octui.load.strict_yaml import load_yaml
from octui.render.explain import explain
from octui.resolve.engine import resolve
from octui.resolve.result import Query, Resolution

#: Examples per property per run (derandomized: the same examples on every run; see
#: ``campaign`` for a longer, random search).
EXAMPLES = {
    "repos": examples(300),
    "cli": examples(40),
    "bytes": examples(300),
    "front_matter": examples(250),
    "structured": examples(250),
    "config": examples(300),
    "cli_args": examples(60),
    "files": examples(60),
}
SAMPLE = Path(__file__).resolve().parents[2] / "sample-repo"

FUZZ = settings(
    deadline=None,
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

IDS = ["mission", "policies.refunds", "p", "a.b-c_d", "pricing.plan"]
ROLES = ["support", "sales", "ops"]
LEVELS = ["public", "internal", "confidential", "restricted"]
AUTHORITIES = ["canonical", "approved", "reference", "observed", "inferred", "historical"]
DAYS = [date(2025, 1, 1) + timedelta(days=d) for d in (0, 40, 200, 365, 500, 730)]
WORDS = ["refund", "price", "policy", "[red]x[/red]", "\x1b[31m", "ünï", "plan", "the"]
PATTERNS = ["policies.*", "mission", "p*", "*", "pricing.plan", "a.?-c_d"]


def instants() -> st.SearchStrategy[Any]:
    day = st.sampled_from(DAYS)
    return st.one_of(
        st.none(),
        day,
        day.map(lambda d: d.isoformat()),
        day.map(lambda d: datetime(d.year, d.month, d.day, 13, 30, tzinfo=UTC)),
        day.map(lambda d: f"{d.isoformat()}T08:00:00+05:30"),
    )


def refs() -> st.SearchStrategy[list[str]]:
    ref = st.one_of(
        st.sampled_from(IDS),
        st.sampled_from(IDS).flatmap(lambda i: st.integers(1, 3).map(lambda v: f"{i}@{v}")),
        st.just("ghost.gone"),
        st.just("ghost@2"),
    )
    return st.lists(ref, max_size=3)


@st.composite
def front_matters(draw: st.DrawFn, index: int) -> dict[str, Any]:
    data: dict[str, Any] = {"id": draw(st.sampled_from(IDS))}
    maybe = {
        "version": st.integers(1, 3),
        "authority": st.sampled_from(["canonical", "canonical", "approved", *AUTHORITIES, "x"]),
        "status": st.sampled_from(["active", "active", "draft"]),
        "classification": st.sampled_from(LEVELS),
        "access": st.lists(st.sampled_from(ROLES), max_size=2, unique=True).map(
            lambda r: {"roles": r}
        ),
        "created": instants(),
        "updated": instants(),
        "valid_from": instants(),
        "valid_until": instants(),
        "review_every": st.sampled_from(["30d", "12w", "6m", "1y"]),
        "confidence": st.floats(0, 1),
        "layer": st.sampled_from(["L0", "L1", "L2", "L3", "L4"]),
        "tags": st.lists(st.sampled_from(WORDS), max_size=3),
        "applies_to": st.lists(st.sampled_from(WORDS), max_size=2),
        "supersedes": refs(),
        "superseded_by": st.one_of(refs(), st.sampled_from(IDS)),
        "conflicts_with": st.lists(st.sampled_from([*IDS, "ghost.gone"]), max_size=2),
        "type": st.sampled_from(["pricing", "policy"]),
        "summary": st.sampled_from(WORDS),
        "superseeded_by": st.sampled_from(IDS),
    }
    often = {"authority", "supersedes", "superseded_by", "conflicts_with", "classification"}
    for key, strategy in maybe.items():
        if draw(st.integers(0, 9)) < (6 if key in often else 3):
            value = draw(strategy)
            if value is not None:
                data[key] = value
    # A unique, greppable token per file: it must never reach a role denied this object.
    data["title"] = f"canary{index}q " + draw(st.sampled_from(WORDS))
    data["owner"] = f"owner{index}q"
    return data


def to_bytes(rel: str, data: dict[str, Any], body: str) -> bytes:
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if rel.endswith(".md"):
        return f"---\n{text}---\n{body}".encode()
    return (text + yaml.safe_dump({"content": body}, allow_unicode=True)).encode()


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    roles = {}
    for name in ROLES:
        role: dict[str, Any] = {}
        if draw(st.booleans()):
            role["clearance"] = draw(st.sampled_from(LEVELS))
        scope: dict[str, Any] = {}
        if draw(st.booleans()):
            scope["include"] = draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3))
        if draw(st.booleans()):
            scope["exclude"] = draw(st.lists(st.sampled_from(PATTERNS), max_size=2))
        if scope:
            role["scope"] = scope
        roles[name] = role
    config: dict[str, Any] = {"spec": 1, "roles": roles}
    if draw(st.booleans()):
        config["freshness"] = {"default": draw(st.sampled_from(["30d", "1y"]))}
    if draw(st.booleans()):
        inbox = {"name": "inbox", "path": "inbox"}
        if draw(st.booleans()):
            inbox["authority"] = draw(st.sampled_from(AUTHORITIES))
        config["sources"] = [{"name": "main", "path": "."}, inbox]
        if draw(st.booleans()):
            config["sources"].append({"name": "gone", "path": "missing/folder"})
    if draw(st.booleans()):
        breakers = draw(
            st.lists(st.sampled_from(["version", "updated", "created", "confidence"]), max_size=3)
        )
        config["authority"] = {"tie_breakers": breakers}
    return config


@st.composite
def repositories(draw: st.DrawFn) -> dict[str, bytes]:
    files = {"opencontext.yaml": yaml.safe_dump(draw(configs())).encode()}
    count = draw(st.integers(0, 12))
    previous: list[dict[str, Any]] = []
    for i in range(count):
        folder = draw(st.sampled_from(["", "policies/", "inbox/", ".hidden/"]))
        rel = f"{folder}obj{i}{draw(st.sampled_from(['.md', '.yaml']))}"
        body = draw(st.sampled_from(["", f"body{i}q refund", "[bold]b[/] \x1b]52;c;aGk=\x07"]))
        data = draw(front_matters(i))
        if previous and draw(st.integers(0, 3)) == 0:  # a sibling version of an earlier object
            twin = draw(st.sampled_from(previous))
            data = {
                **twin,
                "version": twin.get("version", 1) + 1,
                "title": data["title"],
                "owner": data["owner"],
            }
        previous.append(data)
        files[rel] = to_bytes(rel, data, body)
    # Now and then a broken file among them.
    if draw(st.booleans()):
        files["policies/broken.md"] = draw(
            st.sampled_from([b"---\nid: [x\n---\n", b"---\n- a\n---\n", b"\xff\xfe", b"---\n"])
        )
    return files


@st.composite
def queries(draw: st.DrawFn) -> Query:
    return Query(
        role=draw(st.sampled_from([None, *ROLES])),
        as_of=parse_instant(draw(st.sampled_from(DAYS)).isoformat()),
        task=" ".join(draw(st.lists(st.sampled_from(WORDS), max_size=3))),
        include_historical=draw(st.booleans()),
        limit=draw(st.one_of(st.none(), st.integers(0, 3))),
        min_relevance=draw(st.one_of(st.none(), st.floats(0, 12))),
        strict=draw(st.booleans()),
    )


PINNED = {"bundle_id": "00000000-0000-4000-8000-000000000000", "generated_at": DAYS[0]}


def pinned(resolution: Resolution) -> str:
    return dumps_bundle(
        bundle_dict(
            resolution,
            bundle_id=PINNED["bundle_id"],  # type: ignore[arg-type]
            generated_at=parse_instant(PINNED["generated_at"]),
        )
    )


def check_resolution(res: Resolution) -> None:
    repo = res.repository
    included = [i.obj.uid for i in res.included]
    assert len(included) == len(set(included))
    object_exclusions = [
        e for e in res.exclusions if e.reason is not ExclusionReason.SOURCE_UNAVAILABLE
    ]
    # Every object ends in exactly one place (the copies of a denied id share one entry).
    assert set(res.fates) == {o.uid for o in repo.objects}
    denied_copies = sum(
        1 for f in res.fates.values() if isinstance(f, Exclusion) and f.reason.is_denial
    )
    denied_entries = [e for e in object_exclusions if e.reason.is_denial]
    assert len({e.id for e in denied_entries}) == len(denied_entries)
    kept = len(object_exclusions) - len(denied_entries) + denied_copies
    assert len(included) + kept == len(repo.objects)
    assert not set(included) & {u for u, f in res.fates.items() if not hasattr(f, "obj")}
    # Each object is in one step's exclusions or included, never two; one look-up finds it
    # as the whole table does (and finds nothing for a uid no object has).
    steps = [set(step) for step in res.excluded_by_uid]
    assert sum(map(len, steps)) + len(included) == len(set().union(*steps, included))
    assert list(res.included_uids) == included
    assert all(res.fate(o.uid) is res.fates[o.uid] for o in repo.objects)
    assert res.fate(len(repo.objects) + 7) is None
    assert res.trimmed == any(e.reason is ExclusionReason.NOT_RELEVANT for e in res.exclusions)
    assert res.failed == any(w.severity is Severity.ERROR for w in res.warnings)
    assert res.strict_failed == (res.query.strict and res.failed)
    if res.query.role is None:
        return
    denied = [o for o in repo.objects if getattr(res.fates[o.uid], "reason", None) in DENIALS]
    for ex in res.exclusions:
        if ex.reason.is_denial:
            assert (ex.version, ex.related, ex.detail) == (None, (), None)
    if not denied:
        return
    bundle_text = pinned(res)
    explained = explain(res, digest(res))
    for obj in denied:
        token = obj.title.split()[0] if obj.title else None
        assert token and token not in bundle_text and token not in explained
        assert obj.owner is not None and obj.owner not in bundle_text
        assert obj.path not in bundle_text


DENIALS = (ExclusionReason.PERMISSION_DENIED, ExclusionReason.CLASSIFICATION_DENIED)


@settings(FUZZ, max_examples=EXAMPLES["repos"])
@given(files=repositories(), queries=st.lists(queries(), min_size=1, max_size=3))
def test_generated_repositories(files: dict[str, bytes], queries: list[Query]) -> None:
    repo = Loader(MemTree(files), "mem").load()
    mirror = Loader(MemTree(files, reverse=True), "mem").load()
    for query in queries:
        res = resolve(repo, query)
        check_resolution(res)
        for w in {w.code.value for w in res.warnings}:
            event(f"warning {w}")
        for r in {e.reason.value for e in res.exclusions}:
            event(f"exclusion {r}")
        # Deterministic: same bytes from the reversed listing and from a second run.
        text = pinned(res)
        assert text == pinned(resolve(mirror, query)) == pinned(resolve(repo, query))
        bundle = json.loads(text)
        assert digest_from_bundle(bundle) == bundle["digest"] == digest(res)
        explain(res, bundle["digest"])
        for object_id in sorted({o.id for o in repo.objects})[:3]:
            try:
                rows = history(repo, object_id, query.role, query.as_of)
            except UnknownId:
                continue
            for row in rows:
                if row.obj is None:
                    assert set(row.to_json()) == {"id", "state"}


@settings(FUZZ, max_examples=EXAMPLES["cli"], suppress_health_check=list(HealthCheck))
@given(files=repositories(), query=queries())
def test_generated_repositories_through_the_cli(files: dict[str, bytes], query: Query) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = write_repo(Path(tmp) / "repo", files, config=None)
        as_of = query.as_of.date().isoformat()
        val = cli(["validate", str(root), "--as-of", as_of, "--format", "json"])
        assert val.err == ""
        doc = json.loads(val.out)
        assert val.code == (1 if doc["errors"] else 0)
        for role in ROLES:
            argv = ["resolve", str(root), "--role", role, "--as-of", as_of, "--strict"]
            argv += ["--task", query.task] if query.task else []
            run = cli([*argv, "--format", "json"])
            bundle = json.loads(run.out)
            errors = sum(1 for w in bundle["warnings"] if w["severity"] == "error")
            assert run.code == (1 if errors else 0)
            assert run.err == ("" if not errors else run.err)
            if errors:
                assert run.err.count("\n") == 1 and "strict" in run.err
            text = cli([*argv, "--explain"])
            assert text.code == run.code
            assert f"Digest: {bundle['digest']}" in text.out
            assert "\x1b" not in text.out and "\x07" not in text.out
        # diff, changes and history for one role: no exception, no token of a denied object.
        role = ROLES[len(files) % len(ROLES)]
        repo = load_repository(root)
        res = resolve(repo, Query(role=role, as_of=query.as_of))
        hidden = [
            o.title.split()[0]
            for o in repo.objects
            if o.title and getattr(res.fates[o.uid], "reason", None) in DENIALS
        ]
        base = [str(root), "--role", role, "--as-of", as_of]
        for argv in (
            ["diff", *base, "--against-as-of", DAYS[0].isoformat(), "--format", "json"],
            ["diff", *base, "--against-task", "refund"],
            ["changes", *base, "--since", "1y", "--until", "1y", "--format", "json"],
            *(["history", o.id, *base] for o in repo.objects[:3]),
        ):
            other = cli(argv)
            assert other.code in (0, 1), (argv, other.err)
            assert not any(token in other.out for token in hidden), argv


# -- raw bytes and random text ---------------------------------------------------------------------


def check_parsed(rel: str, raw: bytes) -> None:
    parsed = parse_file(rel, raw)
    assert (parsed.fields is None) or (parsed.error is None)
    if parsed.error is not None:
        assert "\n" not in parsed.error and parsed.error.strip()
    assert parse_file(rel, raw) == parsed  # pure


@settings(FUZZ, max_examples=EXAMPLES["bytes"])
@given(raw=st.binary(max_size=300), ext=st.sampled_from([".md", ".yaml", ".yml"]))
def test_random_bytes_never_raise(raw: bytes, ext: str) -> None:
    check_parsed("x" + ext, raw)
    check_parsed("x" + ext, b"---\n" + raw + b"\n---\n")


YAMLISH = st.text(
    alphabet=st.sampled_from([*list("abcdeiv_ :-[]{},&*!|>'\"#?%@\n\t\\0129."), "\ufeff", "\r"]),
    max_size=120,
)


@settings(FUZZ, max_examples=EXAMPLES["front_matter"])
@given(text=YAMLISH, prefix=st.sampled_from(["", "id: a\n", "id: a\nversion: "]))
def test_random_front_matter_text_never_raises(text: str, prefix: str) -> None:
    raw = f"---\n{prefix}{text}\n---\nbody\n".encode()
    check_parsed("x.md", raw)
    check_parsed("x.yaml", (prefix + text).encode())
    # The loader's fast path never answers differently from the full YAML loader.
    front = (prefix + text).replace("\r", "\n")  # what the loader hands it
    fast = fast_mapping(front)
    if fast is not None:
        assert fast == load_yaml("\n" + front)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.dates(),
    st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5))])),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(FUZZ, max_examples=EXAMPLES["structured"])
@given(
    data=st.dictionaries(
        st.sampled_from([*sorted(KNOWN_FIELDS), "access.roles", "superseeded_by"]),
        VALUES,
        max_size=6,
    ),
    keep_id=st.booleans(),
)
@example(data={"access": {"\n": None}}, keep_id=True)  # found by a longer run: a two-line error
def test_wrongly_typed_front_matter_is_one_finding(data: dict[str, Any], keep_id: bool) -> None:
    if keep_id:
        data["id"] = "policies.x"
    for ext in (".md", ".yaml"):
        raw = to_bytes("x" + ext, data, "body")
        check_parsed("x" + ext, raw)
        tree = MemTree(
            {"opencontext.yaml": b"spec: 1\nroles: {r: {clearance: restricted}}\n", "x" + ext: raw}
        )
        repo = Loader(tree, "mem").load()
        res = resolve(repo, Query(role="r", as_of=parse_instant("2026-01-01"), strict=True))
        check_resolution(res)
        whole = resolve(repo, Query(role=None, as_of=parse_instant("2026-01-01")))
        check_resolution(whole)
        assert len(repo.objects) + repo.invalid_files == 1


# -- a few real processes: another time zone, another locale, same bytes -------------------------


def test_subprocess_runs_agree_across_time_zones(tmp_path: Path) -> None:
    files = _seeded_repo(random.Random(5))
    root = write_repo(tmp_path / "repo", files, config=None)
    in_process = cli(
        [
            "resolve",
            str(root),
            "--role",
            "support",
            "--as-of",
            "2026-01-01",
            "--format",
            "json",
            "--strict",
        ]
    )
    digests = {json.loads(in_process.out)["digest"]}
    for tz, lang in (
        ("Pacific/Kiritimati", "tr_TR.UTF-8"),
        ("America/St_Johns", "C"),
        ("UTC", "POSIX"),
    ):
        env = dict(os.environ, TZ=tz, LANG=lang, LC_ALL=lang, PYTHONHASHSEED="random")
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "octui.cli.main",
                "resolve",
                str(root),
                "--role",
                "support",
                "--as-of",
                "2026-01-01",
                "--format",
                "json",
                "--strict",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in proc.stderr
        assert proc.returncode == in_process.code
        digests.add(json.loads(proc.stdout)["digest"])
        val = subprocess.run(
            [
                sys.executable,
                "-m",
                "octui.cli.main",
                "validate",
                str(root),
                "--as-of",
                "2026-01-01",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in val.stderr and val.returncode in (0, 1)
    assert len(digests) == 1


def _seeded_repo(rng: random.Random) -> dict[str, bytes]:
    """A hostile repository from a seeded generator (no hypothesis: a fixed input)."""
    files = {"opencontext.yaml": b"spec: 1\nroles:\n  support: {clearance: internal}\n"}
    for i in range(rng.randint(4, 9)):
        data: dict[str, Any] = {
            "id": rng.choice(IDS),
            "version": rng.randint(1, 3),
            "authority": rng.choice([*AUTHORITIES, "gossip"]),
            "classification": rng.choice(LEVELS),
            "title": f"canary{i}q {rng.choice(WORDS)}",
            "supersedes": rng.sample([*IDS, "ghost.gone"], rng.randint(0, 2)),
            "conflicts_with": rng.sample(IDS, rng.randint(0, 2)),
            "valid_from": rng.choice(DAYS).isoformat() + "T23:30:00-04:00",
        }
        files[f"o{i}.md"] = to_bytes("o.md", data, rng.choice(WORDS))
    return files


# -- configurations ------------------------------------------------------------------------------

CONFIG_PARTS = {
    "spec": st.one_of(st.just(1), VALUES),
    "authority": st.fixed_dictionaries(
        {},
        optional={
            "precedence": st.one_of(st.permutations(AUTHORITIES), st.lists(VALUES, max_size=7)),
            "tie_breakers": st.lists(
                st.one_of(st.sampled_from(["version", "updated", "id", "age"]), VALUES),
                max_size=4,
            ),
        },
    ),
    "classification": st.fixed_dictionaries(
        {},
        optional={
            "levels": st.one_of(st.lists(st.sampled_from([*LEVELS, "X"]), max_size=4), VALUES)
        },
    ),
    "freshness": st.fixed_dictionaries(
        {},
        optional={
            "default": st.one_of(st.sampled_from(["30d", "0d", "999999d", "-1d"]), VALUES),
            "by_type": st.dictionaries(st.text(max_size=4), st.one_of(st.just("9w"), VALUES)),
        },
    ),
    "ranking": st.fixed_dictionaries({}, optional={"floor": VALUES}),
    "sources": st.lists(
        st.fixed_dictionaries(
            {"name": st.one_of(st.sampled_from(["main", "inbox", "a b"]), VALUES)},
            optional={
                "path": st.sampled_from([".", "inbox", "../x", "/etc", "", "inbox/../.."]),
                "authority": st.one_of(st.sampled_from(AUTHORITIES), VALUES),
            },
        ),
        max_size=3,
    ),
    "roles": st.dictionaries(
        st.one_of(st.sampled_from(ROLES), st.text(max_size=6)),
        st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "clearance": st.one_of(st.sampled_from(LEVELS), VALUES),
                    "scope": st.fixed_dictionaries(
                        {},
                        optional={
                            "include": st.one_of(st.lists(st.sampled_from(PATTERNS)), VALUES),
                            "exclude": st.one_of(st.lists(st.text(max_size=5)), VALUES),
                        },
                    ),
                },
            ),
            VALUES,
        ),
        max_size=3,
    ),
    "extra": VALUES,
}


@settings(FUZZ, max_examples=EXAMPLES["config"])
@given(
    parts=st.fixed_dictionaries({}, optional=CONFIG_PARTS),
    junk=st.one_of(st.none(), YAMLISH),
    as_of=st.sampled_from(DAYS),
)
@example(parts={"authority": {"precedence": ["\n"]}}, junk=None, as_of=DAYS[0])  # a campaign's find
def test_random_configurations_are_accepted_or_one_line_errors(
    parts: dict[str, Any], junk: str | None, as_of: date
) -> None:
    raw = junk.encode() if junk is not None else yaml.safe_dump(parts).encode()
    files = {"opencontext.yaml": raw, "policies/a.md": b"---\nid: policies.a\n---\nA\n"}
    try:
        repo = Loader(MemTree(files), "mem").load()
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith("mem:opencontext.yaml: ") and "\n" not in message
        event("config error")
        return
    event("config accepted")
    for role in [None, *repo.config.roles]:
        check_resolution(resolve(repo, Query(role=role, as_of=parse_instant(as_of.isoformat()))))


@settings(FUZZ, max_examples=EXAMPLES["cli_args"])
@given(
    task=st.text(max_size=40),
    as_of=st.one_of(st.text(max_size=25), st.sampled_from(DAYS).map(str)),
    role=st.one_of(st.sampled_from(["reader", "support"]), st.text(max_size=8)),
    limit=st.one_of(st.none(), st.text(max_size=4)),
)
def test_random_command_lines_never_raise(
    task: str, as_of: str, role: str, limit: str | None
) -> None:
    argv = ["resolve", str(SAMPLE), "--role", role, "--task", task, "--as-of", as_of]
    argv += ["--limit", limit] if limit is not None else []
    run = cli(argv)
    assert run.code in (0, 1, 2)
    if run.code == 2:
        assert run.out == "" and run.err.count("\n") == 1
    else:
        assert run.out.startswith("Role: ") and "\nIncluded:\n" in run.out
    assert not any(c in run.out + run.err for c in "\x1b\x07\x9b")


@settings(FUZZ, max_examples=EXAMPLES["files"], suppress_health_check=list(HealthCheck))
@given(
    blobs=st.lists(
        st.one_of(
            st.binary(max_size=200),
            YAMLISH.map(lambda t: f"---\n{t}\n---\nbody\n".encode("utf-8", "surrogatepass")),
            st.builds(
                to_bytes,
                st.just("x.md"),
                st.dictionaries(st.sampled_from(sorted(KNOWN_FIELDS)), VALUES, max_size=4).map(
                    lambda d: {"id": "p.x", **d}
                ),
                st.text(max_size=20),
            ),
        ),
        min_size=1,
        max_size=4,
    ),
    ext=st.sampled_from([".md", ".yaml"]),
)
def test_random_files_on_disk_through_the_cli(blobs: list[bytes], ext: str) -> None:
    """Random bytes written to real files beside a valid object, through the CLI."""
    files = {f"policies/f{i}{ext}": blob for i, blob in enumerate(blobs)}
    files["policies/good.md"] = b"---\nid: policies.good\nauthority: canonical\n---\nok\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = write_repo(Path(tmp) / "repo", files)
        val = cli(["validate", str(root), "--format", "json"])
        assert val.err == "" and val.code in (0, 1)
        doc = json.loads(val.out)
        # Every file is exactly one of: an object, a file named by a finding, or not an object.
        loaded = {o.path for o in load_repository(root).objects}
        failed = {p for f in doc["findings"] if f["code"] == "invalid-object" for p in f["paths"]}
        for rel, blob in files.items():
            skipped = parse_file(rel, blob).skipped
            assert [rel in loaded, rel in failed, skipped].count(True) == 1, rel
        for f in doc["findings"]:
            assert "\n" not in f["message"]
        run = cli(["resolve", str(root), "--role", "reader", "--format", "json", "--strict"])
        bundle = json.loads(run.out)
        assert "policies.good" in {o["id"] for o in bundle["objects"]}
        errors = any(w["severity"] == "error" for w in bundle["warnings"])
        assert run.code == (1 if errors else 0)
