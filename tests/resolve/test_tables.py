"""The per-object tables a resolution cache prepares answer as what they stand for: scope
codes as the role's patterns, and a cached resolution after any other, of any role and
instant, as a resolution computed afresh — the same entries, records, order and details."""

from __future__ import annotations

import gc
import sys
import tempfile
import threading
from dataclasses import replace
from itertools import compress
from pathlib import Path
from typing import Any

import pytest
import repo_builder
from conftest import SAMPLE_REPO
from hypothesis import given
from hypothesis import strategies as st
from properties.test_properties import (
    AS_OFS,
    DATES,
    QUERIES,
    ROLE_NAMES,
    SETTINGS,
    Spec,
    specs,
    write,
)
from repo_builder import resolve_at

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject
from octui.core.timeutil import parse_instant
from octui.core.tokens import END
from octui.load.config import RoleConfig, ScopeConfig
from octui.load.loader import load_repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.fixed import StageTables, in_order, masks_of, picked, rank_bases
from octui.resolve.index import RepoIndex
from octui.resolve.prepared import Prepared
from octui.resolve.result import Included, Query, Resolution
from octui.resolve.steps import s4_scope
from octui.resolve.steps.base import Reader, excluded_for
from octui.resolve.steps.s1_authorization import _denied, _grouped, authorization
from octui.resolve.steps.s2_approval import approval
from octui.resolve.steps.s3_temporal import _DETAILS
from octui.resolve.steps.s4_scope import _verdict
from octui.resolve.steps.s7_conflicts import conflicts
from octui.resolve.steps.s8_relevance import fixed_order, standing_order, token_masks
from octui.resolve.steps.tables import (
    EXPIRED,
    IN_SCOPE,
    NOT_YET_VALID,
    VALID,
    Access,
    Records,
    ScopeIds,
    Spans,
    scope_exclusion,
)

R = ExclusionReason
DENIALS = [R.PERMISSION_DENIED, R.CLASSIFICATION_DENIED]

PARTS = ["a", "ab", "b", "a.b", "x[", "é", ".", "*", "\U0010ffff"]
GLOBS = ["*", "a*", "a.*", "ab", "a?", "*b", "a.*.b", "[ab]*", "x[", "é*", "", "a[!b]*", "b.*"]
GLOBS += ["a\U0010ffff*", "\U0010ffff*", "a\U0010ffff\U0010ffff*", "a\U0010ffff?"]


def _object(object_id: str, uid: int) -> ContextObject:
    obj = ContextObject.__new__(ContextObject)
    obj.id, obj.uid = object_id, uid
    return obj


@SETTINGS
@given(
    ids=st.lists(st.lists(st.sampled_from(PARTS), min_size=1, max_size=3).map("".join), max_size=9),
    include=st.none() | st.lists(st.sampled_from([g for g in GLOBS if g]), max_size=3),
    exclude=st.lists(st.sampled_from([g for g in GLOBS if g]), max_size=3),
)
def test_scope_codes_agree_with_the_role_patterns(
    ids: list[str], include: list[str] | None, exclude: list[str]
) -> None:
    role = RoleConfig(scope=ScopeConfig(include=include, exclude=exclude))  # type: ignore[arg-type]
    objects = [_object(i, uid) for uid, i in enumerate(ids)]
    codes = ScopeIds(objects).codes(role)
    assert codes is not None
    for obj in objects:
        expected = _verdict(role, obj.id)
        code = codes[obj.uid]
        assert (None if code == IN_SCOPE else scope_exclusion(role, obj, code)) == expected


def test_a_prefix_ending_in_the_last_code_point_picks_only_the_ids_that_start_with_it() -> None:
    """A glob's prefix range cannot be closed by raising a last code point: the ids after
    it that do not start with the prefix must stay out of it."""
    objects = [_object(i, uid) for uid, i in enumerate(["a.x", "b.y", "c.z", "a\U0010ffffq"])]
    pattern = ["a\U0010ffff*"]
    for scope in ({"exclude": pattern}, {"include": pattern}):
        role = RoleConfig(scope=ScopeConfig(**scope))  # type: ignore[arg-type]
        codes = ScopeIds(objects).codes(role)
        assert codes is not None
        got = [
            None if c == IN_SCOPE else scope_exclusion(role, o, c)
            for o, c in zip(objects, codes, strict=True)
        ]
        assert got == [_verdict(role, o.id) for o in objects]


_MANY = [f"x{k}" for k in range(298)] + ["b.*", "a*"]
"""More exclude patterns than a byte can number: ``b.*`` is pattern 298, ``a*`` 299."""


def test_scope_codes_of_a_role_with_more_exclude_patterns_than_a_byte_agree() -> None:
    ids = ["x0", "x297", "x298", "b.c", "a.b", "ab", "c", "b"]
    objects = [_object(i, uid) for uid, i in enumerate(ids)]
    for include in (None, ["b*", "x*"]):
        role = RoleConfig(scope=ScopeConfig(include=include, exclude=_MANY))  # type: ignore[arg-type]
        codes = ScopeIds(objects).codes(role)
        got = [
            None if c == IN_SCOPE else scope_exclusion(role, o, c)
            for o, c in zip(objects, codes, strict=True)
        ]
        assert got == [_verdict(role, o.id) for o in objects]
        assert got[3] == (R.SCOPE_EXCLUSION, 'excluded by "b.*"')


def test_a_role_with_many_exclude_patterns_is_matched_once_per_role_not_per_instant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prepared scope codes serve a role with more exclude patterns than a byte can
    number too: no instant matches the ids against the role's patterns again."""
    files = {
        f"{i}.md": repo_builder.obj(i, valid_from=start)
        for i, start in [("x5", "2025-01-01"), ("b.c", "2025-01-01"), ("c", "2026-05-01")]
    }
    scope = {"include": ["b*", "c", "x*"], "exclude": _MANY}
    config = {"roles": {"reader": {"clearance": "restricted", "scope": scope}}}
    repo = load_repository(repo_builder.make_repo(tmp_path, files, config))
    cache = ResolutionCache(repo)
    matched: list[str] = []
    excluded_by = RoleConfig.excluded_by

    def counted(role: RoleConfig, object_id: str) -> str | None:
        matched.append(object_id)
        return excluded_by(role, object_id)

    monkeypatch.setattr(RoleConfig, "excluded_by", counted)
    for day in ("2026-01-01", "2026-06-01", "2026-07-01"):
        cached = resolve_at(repo, as_of=day, cache=cache)
        assert matched == []
        assert _shape(cached) == _shape(resolve_at(repo, as_of=day))  # matches each id
        matched.clear()
        reasons = {e.id: (e.reason, e.detail) for e in cached.exclusions}
        assert reasons["b.c"] == (R.SCOPE_EXCLUSION, 'excluded by "b.*"')
        assert reasons["x5"] == (R.SCOPE_EXCLUSION, 'excluded by "x5"')


def _shape(res: Resolution) -> Any:
    """Everything a resolution answers, in order (fates too, with their order)."""

    def fate(f: Any) -> Any:
        if isinstance(f, Included):
            return (f.obj.uid, f.lifecycle, f.stale, f.score, f.matched)
        return f

    return (
        [fate(i) for i in res.included],
        res.exclusions,
        res.warnings,
        [(uid, fate(f)) for uid, f in res.fates.items()],
        res.graph.edges,
        res.graph.cycle_edges,
    )


@SETTINGS
@given(
    spec=specs(),
    queries=st.lists(st.tuples(st.sampled_from(ROLE_NAMES), QUERIES), min_size=2, max_size=6),
)
def test_a_cached_role_or_instant_after_another_is_a_fresh_resolution(
    spec: Spec, queries: list[tuple[str | None, dict[str, Any]]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = write(spec, Path(tmp) / "repo")
        repo = load_repository(root)
        cache = ResolutionCache(repo)
        for role, query in [*queries, *reversed(queries)]:
            cached = resolve_at(repo, role=role, cache=cache, **query)
            fresh = resolve_at(repo, role=role, **query)
            assert _shape(cached) == _shape(fresh)


@SETTINGS
@given(spec=specs())
def test_temporal_codes_follow_each_objects_window(spec: Spec) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        spans = Spans(repo.objects)
        for day in [*AS_OFS, *DATES]:
            if day is None:
                continue
            as_of = parse_instant(day)
            codes = spans.codes(as_of)
            for o in repo.objects:
                if as_of < o.effective_start:
                    assert codes[o.uid] == NOT_YET_VALID
                elif o.valid_until is not None and as_of >= o.valid_until:
                    assert codes[o.uid] == EXPIRED
                else:
                    assert codes[o.uid] == VALID


@SETTINGS
@given(spec=specs(), query=QUERIES, role=st.sampled_from(ROLE_NAMES))
def test_a_stage_order_picked_from_the_fixed_order_is_the_sorted_one(
    spec: Spec, query: dict[str, Any], role: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        cache = ResolutionCache(repo)
        resolve_at(repo, role=role, cache=cache, **query)
        (stage,) = [value for _, value in cache.stages.items()]
        index, fixed = cache.index(), cache.prepared().fixed
        standing = stage.current + stage.past
        sorted_order = standing_order(index, standing, stage.historical)
        picked = fixed_order(fixed, stage.current, stage.past)
        assert picked.objects == sorted_order.objects
        assert picked.floor_layer == sorted_order.floor_layer
        assert picked.rank_base == sorted_order.rank_base
        # a token new to every object standing is matched over their tables, joined
        for token in ("refund", "policy", "team", "nothing", "tokennotasked"):
            assert token_masks(picked, token, joined=True) == token_masks(sorted_order, token)
        assert fixed.joined_tables(picked.picks) is fixed.joined_tables(picked.picks)
        for token in ("refund", "policy", "team", "nothing", "tokennotasked"):  # as kept
            assert token_masks(picked, token) == token_masks(sorted_order, token)


_WORDS = ["api", "credit", "invoice", "outage", "policy", "refund", "team"]


@given(
    lists=st.lists(st.lists(st.sampled_from(_WORDS), unique=True), max_size=6),
    token=st.sampled_from([*_WORDS, "a", "zzz", "invoic"]),
)
def test_stage_tables_match_each_table_as_it_is_matched_alone(
    lists: list[list[str]], token: str
) -> None:
    tables = [
        (
            (*sorted(words), END),
            bytes([1 + (len(w) + i) % 127 for i, w in enumerate(words)]) + b"\0",
        )
        for words in lists
    ]
    joined = StageTables(list(range(len(tables))), tables)
    alone = masks_of([t[0] for t in tables], [t[1] for t in tables], token)
    assert joined.masks_of(token) == alone
    assert list(joined.positions) == list(range(len(tables)))


@SETTINGS
@given(spec=specs(), role=st.sampled_from(ROLE_NAMES))
def test_an_empty_part_picks_what_a_mask_of_zeros_picks(spec: Spec, role: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        cache = ResolutionCache(repo)
        resolve_at(repo, role=role, cache=cache, as_of=AS_OFS[-1])
        fixed = cache.prepared().fixed
        current = [o for o in repo.objects if o.uid % 2 == 0]
        picks = fixed.pick(current, [])
        assert picks[1] == b""
        zeros = (picks[0], bytes(len(fixed.uids)))
        assert (
            in_order(fixed, picks)
            == in_order(fixed, zeros)
            == sorted(current, key=fixed.objects.index)
        )
        assert picked(fixed.floor, picks) == picked(fixed.floor, zeros)
        assert rank_bases(fixed, picks) == rank_bases(fixed, zeros)
        for token in ("refund", "policy", "nothing"):
            assert fixed.token_masks(token, picks) == fixed.token_masks(token, zeros)


@SETTINGS
@given(spec=specs(), role=st.sampled_from([r for r in ROLE_NAMES if r is not None]))
def test_steps_1_2_and_4_from_the_prepared_tables_are_the_steps_object_by_object(
    spec: Spec, role: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        index, prepared = RepoIndex(repo), ResolutionCache(repo).prepared()
        objects, config = index.objects, repo.config.roles[role]
        reader, query = Reader(role, config), Query(role=role, as_of=parse_instant("2026-01-01"))
        s1 = authorization(index, reader, query, objects, prepared)
        alone = authorization(index, reader, query, objects)
        assert s1.mask is not None and list(compress(objects, s1.mask)) == s1.standing
        assert s1.standing == alone.standing and list(s1.exclusions.items()) == list(
            alone.exclusions.items()
        )
        s2 = approval(index, reader, query, s1.standing, prepared, s1.mask)
        listed = approval(index, reader, query, s1.standing, prepared)
        alone = approval(index, reader, query, s1.standing)
        assert s2.mask is not None and list(compress(objects, s2.mask)) == s2.standing
        for other in (listed, alone):
            assert s2.standing == other.standing
            assert list(s2.exclusions.items()) == list(other.exclusions.items())
        verdicts = s4_scope.scope_verdicts(config, prepared, s2.mask)
        alone = s4_scope.scope(index, reader, query, s2.standing)
        if verdicts is not None:  # the records of step 4 made with the verdicts, once per role
            nis = [u for u, e in alone.exclusions.items() if e.reason is R.NOT_IN_SCOPE]
            assert all(verdicts.not_in_scope[u] is not None for u in nis)
        for coded in (verdicts, s4_scope.scope_verdicts(config, prepared)):
            s4 = s4_scope.scope(index, replace(reader, out_of_scope=coded), query, s2.standing)
            assert s4.standing == alone.standing
            assert list(s4.exclusions.items()) == list(alone.exclusions.items())


def _full(object_id: str, uid: int, version: int = 1) -> ContextObject:
    obj = _object(object_id, uid)
    obj.version, obj.path = version, f"{object_id}-{uid}.md"
    obj.valid_from = obj.created = obj.valid_until = obj.access_roles = None
    obj.classification = "internal"
    return obj


@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(DENIALS)), max_size=12))
def test_denial_entries_in_bulk_are_one_per_id_and_grouped_as_one_by_one(
    pairs: list[tuple[str, R]],
) -> None:
    objects = [_full(i, n) for n, (i, _) in enumerate(pairs)]
    reasons = [r for _, r in pairs]
    access = Access(objects)
    grouped = _grouped(objects, reasons, access)
    alone = _denied([], zip(objects, reasons, strict=True), access.record).exclusions
    assert list(grouped.items()) == list(alone.items())  # the same records, in the same order
    assert all(grouped[u] is alone[u] for u in alone)


@SETTINGS
@given(spec=specs())
def test_temporal_records_in_bulk_equal_those_made_one_by_one_and_are_carried(
    spec: Spec,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        spans, records = Spans(repo.objects), Records(len(repo.objects))
        objects, uids = repo.objects, [o.uid for o in repo.objects]
        made: dict[tuple[int, ExclusionReason], Any] = {}
        for day in [d for d in [*AS_OFS, *DATES] if d is not None]:
            codes = bytes(spans.codes(parse_instant(day)))
            bulk = records.temporal(objects, uids, codes, _DETAILS)
            assert list(bulk) == [u for u, c in zip(uids, codes, strict=True) if c != VALID]
            for uid, record in bulk.items():
                reason = R.NOT_YET_VALID if codes[uid] == NOT_YET_VALID else R.EXPIRED
                assert record == excluded_for(objects[uid], reason, _DETAILS[reason])
                assert made.setdefault((uid, reason), record) is record  # handed out again
        replaced = uids[::2]
        carried = records.carried(replaced)
        for (uid, reason), record in made.items():
            code = NOT_YET_VALID if reason is R.NOT_YET_VALID else EXPIRED
            kept = carried.temporal([objects[uid]], [uid], bytes([code]), _DETAILS)
            assert kept[uid] == record
            assert (kept[uid] is record) is (uid not in replaced)


def test_records_are_carried_while_another_thread_makes_superseded_records(
    tmp_path: Path,
) -> None:
    # The explorer reloads while its resolver thread may still run step 5 on the old
    # repository, which adds to the superseded records being carried: carrying must not
    # iterate a table that another thread is growing ("dictionary changed size").
    made = load_repository(
        repo_builder.make_repo(tmp_path / "repo", {"a.md": repo_builder.obj("a")})
    ).objects[0]
    records = Records(1)
    for i in range(20_000):
        records.superseded(made, (f"k{i}@1",))
    stop = threading.Event()

    def step_5() -> None:
        i = 10**6
        while not stop.is_set():
            records.superseded(made, (f"k{i}@1",))
            i += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    worker = threading.Thread(target=step_5)
    worker.start()
    try:
        carried = [records.carried([]) for _ in range(50)]
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
    assert all(len(c._superseded) >= 20_000 for c in carried)
    assert not records.carried([made.uid])._superseded  # the replaced object's are dropped


@SETTINGS
@given(spec=specs(), as_of=st.sampled_from([d for d in AS_OFS if d is not None]))
def test_step_7_over_the_prepared_tables_is_the_step_without(spec: Spec, as_of: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        index = ResolutionCache(repo).index()
        prepared = Prepared(index)
        reader, query = Reader(None, None), Query(role=None, as_of=parse_instant(as_of))
        objects = repo.objects
        with_tables = conflicts(index, reader, query, objects, prepared)
        assert with_tables == conflicts(index, reader, query, objects)
        assert list(with_tables.exclusions) == list(
            conflicts(index, reader, query, objects).exclusions
        )


def test_the_joined_token_tables_of_one_stage_are_kept_not_one_per_stage() -> None:
    """Each stage that meets a new task's tokens joins its objects' token tables (10–20 MB
    at 50,000 objects): only the last stage's are kept, however many stages the cache
    holds, and the answers stay those of the objects' own tables."""
    repo = load_repository(SAMPLE_REPO)
    cache = ResolutionCache(repo)
    asked = [("support", "refund policy"), ("sales", "pricing discount"), (None, "release")]
    for role, task in asked:
        cached = resolve_at(repo, role=role, task=task, cache=cache)
        assert cached.included == resolve_at(repo, role=role, task=task).included
    assert len(cache.stages.entries) == len(asked)
    gc.collect()
    assert sum(isinstance(o, StageTables) for o in gc.get_objects()) == 1
