"""Findings that depend on what stands or on who reads (SPEC §4): repeated versions after
step 5, staleness at the instant, broken references and load findings limited to what the
role may read. Each is a pure function of its arguments."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from octui.core.enums import Authority
from octui.core.enums import WarningCode as W
from octui.core.model import ContextObject, Finding, uid_of
from octui.core.timeutil import add_days
from octui.load.config import Config
from octui.resolve.graph import split_ref
from octui.resolve.index import RepoIndex


def version_findings(
    index: RepoIndex, objects: list[ContextObject], shared: bytes | None = None
) -> list[Finding]:
    """``duplicate-canonical`` and ``multiple-active-versions`` over current objects
    (``shared``: see :meth:`RepoIndex.by_shared_id`)."""
    found: list[Finding] = []
    for object_id, group in index.by_shared_id(objects, shared).items():
        if len(group) < 2:
            continue
        paths = tuple(sorted(o.path for o in group))
        canonical = [o for o in group if o.authority == Authority.CANONICAL]
        if len(canonical) >= 2:
            message, hint = _duplicate_canonical_text(object_id, canonical)
            found.append(Finding(W.DUPLICATE_CANONICAL, (object_id,), message, hint, paths))
        versions = sorted({o.version for o in group})
        if len(versions) >= 2:
            older = ", ".join(f"{object_id}@{v}" for v in versions[:-1])
            found.append(
                Finding(
                    W.MULTIPLE_ACTIVE_VERSIONS,
                    (object_id,),
                    f'{len(versions)} active versions of "{object_id}" (versions '
                    + ", ".join(map(str, versions))
                    + ")",
                    f"Add supersedes: [{older}] to the newer object.",
                    paths,
                )
            )
    return found


def _duplicate_canonical_text(object_id: str, canonical: list[ContextObject]) -> tuple[str, str]:
    """Which canonical copy is newer (by version only: nothing else is guessed) and what to
    add where to retire the older ones."""
    ordered = sorted(canonical, key=lambda o: (o.version, o.path))
    newest = ordered[-1]
    older = [o for o in ordered if o.version < newest.version]
    head = f'{len(canonical)} active canonical objects share the id "{object_id}": '
    if len(older) == len(ordered) - 1:
        names = ", ".join(f"{o.key} ({o.path})" for o in older)
        verb = "is" if len(older) == 1 else "are"
        refs = ", ".join(o.key for o in older)
        return (
            head + f"{names} {verb} older than {newest.key} ({newest.path})",
            f"Supersede the older one: add supersedes: [{refs}] to {newest.key} "
            f"({newest.path}), or lower the older one's authority to reference.",
        )
    # the highest version is held by more than one file: no copy is older than another
    copies = [o.path for o in ordered if o.version == newest.version]
    return (
        head
        + f"{newest.key} is held by {len(copies)} files ({', '.join(copies)})"
        + "".join(f", {o.key} ({o.path})" for o in older),
        f"Give one copy of {newest.key} a higher version and add supersedes: "
        f"[{', '.join(dict.fromkeys(o.key for o in ordered))}] to it, or lower the others' "
        "authority to reference.",
    )


def freshness_window(config: Config, obj: ContextObject) -> int | None:
    """Days an object stays fresh: its own ``review_every``, else its type's window."""
    if obj.review_every is not None:
        return obj.review_every
    return config.freshness_days(obj.type)


@dataclass(frozen=True)
class FreshFor:
    """How long an object stays fresh: ``days`` from its ``since`` field's date ``base``."""

    since: str
    """``"updated"``, or ``"created"`` when the object was never updated."""
    base: datetime
    days: int

    @property
    def until(self) -> datetime:
        """The instant after which the object is stale."""
        return add_days(self.base, self.days)


def fresh_for(config: Config, obj: ContextObject) -> FreshFor | None:
    """(``updated``, else ``created``) and its freshness window; None when the object never
    turns stale (no window, or neither date)."""
    window = freshness_window(config, obj)
    if window is None:
        return None
    if obj.updated is not None:
        return FreshFor("updated", obj.updated, window)
    if obj.created is not None:
        return FreshFor("created", obj.created, window)
    return None


def fresh_until(config: Config, obj: ContextObject) -> datetime | None:
    """The instant after which ``obj`` is stale (:func:`fresh_for`); None when it never is."""
    fresh = fresh_for(config, obj)
    return None if fresh is None else fresh.until


def is_stale(config: Config, obj: ContextObject, as_of: datetime) -> bool:
    """True when ``as_of`` is past :func:`fresh_until` (never without a window)."""
    until = fresh_until(config, obj)
    return until is not None and as_of > until


def stale_finding(config: Config, obj: ContextObject) -> Finding:
    """``stale``: ``obj`` is included at an instant past its freshness window."""
    return Finding(
        W.STALE,
        (obj.id,),
        stale_message(freshness_window(config, obj)),
        "Review it and update `updated`, or set review_every.",
        (obj.path,),
    )


def stale_message(window: int | None) -> str:
    """The message of a ``stale`` finding, which names the object's window."""
    return f"has not been updated inside its freshness window ({window}d)"


StaleKey = tuple[tuple[str, ...], str, tuple[str, ...]]
"""Where a ``stale`` finding sorts among the others: its sort key but the code."""


def stale_sort_key(config: Config, obj: ContextObject) -> StaleKey:
    """``stale_finding(config, obj).sort_key()[1:]``, without making the finding."""
    return ((obj.id,), stale_message(freshness_window(config, obj)), (obj.path,))


BrokenReferences = dict[int, list[tuple[str, Finding]]]
"""Per uid, the ``broken-reference`` findings of one object, each with the id it names."""


def broken_references(index: RepoIndex) -> BrokenReferences:
    """Every object's broken references: a fact of the whole repository, the same for every
    role (only which of them a role sees differs), so it is found once per repository."""
    by_id = index.by_id
    return {
        o.uid: found
        for o in index.objects
        if (o.supersedes or o.superseded_by or o.conflicts_with)
        and (found := _broken_references(o, by_id))
    }


def reference_findings(
    broken: BrokenReferences, readable: list[ContextObject], denied: set[str]
) -> list[Finding]:
    """``broken-reference``: a link that names nothing in the whole repository. For a role,
    a link to an id it may not read (``denied``: some copy of it is denied) is never broken,
    whatever version it names: which versions a denied id holds is none of the role's
    business. ``broken`` is :func:`broken_references` of the repository; ``readable`` is in
    the repository's order (see :func:`held`)."""
    found: list[Finding] = []
    for uid in held(readable, sorted(broken)):
        found.extend(f for target, f in broken[uid] if target not in denied)
    return found


def held(readable: list[ContextObject], uids: Iterable[int]) -> list[int]:
    """The ``uids`` (ascending) that ``readable`` holds. ``readable`` is in the repository's
    order (ascending uids, as every step leaves it), so each is found by bisection: a role's
    findings about a few hundred objects cost no pass over the 50,000 it may read."""
    out: list[int] = []
    at, end = 0, len(readable)
    for uid in uids:
        at = bisect_left(readable, uid, at, end, key=uid_of)
        if at < end and readable[at].uid == uid:
            out.append(uid)
    return out


def _broken_references(
    obj: ContextObject, by_id: dict[str, list[ContextObject]]
) -> list[tuple[str, Finding]]:
    """``broken-reference`` findings of one object (a fact of the whole repository), each with
    the id its reference names."""
    out: list[tuple[str, Finding]] = []
    for field_name, refs in (
        ("supersedes", obj.supersedes),
        ("superseded_by", obj.superseded_by),
        ("conflicts_with", obj.conflicts_with),
    ):
        for ref in refs:
            if _names_something(ref, obj, by_id):
                continue
            message = f'{obj.key} {field_name} "{ref}", which names nothing in the repository'
            hint = "Fix or remove the reference: a broken chain silently resurrects retired policy."
            finding = Finding(
                W.BROKEN_REFERENCE, (obj.id,), message, hint, (obj.path,), key=field_name
            )
            out.append((split_ref(ref)[0], finding))
    return out


def _names_something(
    ref: str, declaring: ContextObject, by_id: dict[str, list[ContextObject]]
) -> bool:
    """Whether :func:`resolve_ref` would name an object (without listing them all)."""
    target, version = split_ref(ref)
    candidates = by_id.get(target, ())
    if version is not None:
        return any(o.version == version for o in candidates)
    return any(o is not declaring for o in candidates)


def load_findings(
    index: RepoIndex, readable: list[ContextObject], whole_repository: bool
) -> list[Finding]:
    """Findings from loading, limited to what the role may read (all of them, with each
    file's own, for the ``whole_repository``); ``readable`` is in the repository's order
    (see :func:`held`)."""
    repo = index.repo
    found: list[Finding] = []
    own = index.own_findings
    for uid in held(readable, sorted(own)):
        found.extend(own[uid])
    for (object_id, version), group in index.copies:
        uids = held(readable, sorted(o.uid for o in group))
        seen = [o for o in group if o.uid in uids]  # judged among the copies it may read
        if len(seen) > 1:
            found.append(
                Finding(
                    W.DUPLICATE_VERSION,
                    (object_id,),
                    f"{len(seen)} files hold {object_id}@{version}",
                    "Give each file its own version, or delete the copy.",
                    tuple(sorted(o.path for o in seen)),
                )
            )
    for name, problem in repo.unavailable_sources:
        found.append(
            Finding(
                W.SOURCE_UNAVAILABLE,
                (name,),
                f"source {name!r} is unavailable: {problem}",
                "Fix the path in opencontext.yaml or restore the folder.",
            )
        )
    if whole_repository:
        found.extend(repo.findings)
    elif repo.invalid_files:
        n = repo.invalid_files
        found.append(
            Finding(
                W.INVALID_OBJECT,
                (),
                f"{n} file{'s' if n != 1 else ''} failed to load",
                "Run opencontext validate to see which files and why.",
            )
        )
    return found
