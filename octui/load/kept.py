"""What a loader keeps of a parsed file once the file made an object: its fields read back
from the object, instead of a dictionary (and a list per list field) per file.

A :class:`~octui.load.loader.Loader` keeps every file's parse between loads, so that an
unchanged file keeps its object and a changed configuration re-makes the objects without
reading a file again. The object made from a file already holds every value its fields
hold — the very same strings, dates and numbers, the lists as tuples — except the few it
derives (a missing classification becomes the lowest level, repeated references are held
once, access becomes its roles). :class:`MadeFields` is the same mapping read from the
object, with those few values kept as parsed: a tenth of the memory of the dictionary.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from operator import attrgetter
from typing import Any

from octui.core.model import ContextObject
from octui.load.parsed import ParsedFile

_REFS = ("supersedes", "superseded_by", "conflicts_with")
"""The list fields an object holds without repeats (kept as parsed when they repeat)."""


def _listed(name: str) -> Any:
    get = attrgetter(name)
    return lambda obj: list(get(obj))


_READ: dict[str, Any] = {
    "id": attrgetter("id"),
    "version": attrgetter("version"),
    "authority": attrgetter("declared_authority"),
    "status": attrgetter("status"),
    "title": attrgetter("title"),
    "summary": attrgetter("summary"),
    "type": attrgetter("type"),
    "owner": attrgetter("owner"),
    "layer": attrgetter("layer"),
    "tags": _listed("tags"),
    "applies_to": _listed("applies_to"),
    "classification": attrgetter("classification"),
    "access": lambda obj: None,
    "created": attrgetter("created"),
    "updated": attrgetter("updated"),
    "valid_from": attrgetter("valid_from"),
    "valid_until": attrgetter("valid_until"),
    "review_every": attrgetter("review_every"),
    "confidence": attrgetter("confidence"),
    "supersedes": _listed("supersedes"),
    "superseded_by": _listed("superseded_by"),
    "conflicts_with": _listed("conflicts_with"),
    "content": attrgetter("content"),
}
"""How each field is read from the object made from it (in the order a parse gives them)."""
_NAMES = tuple(_READ)


class MadeFields(Mapping[str, Any]):
    """A parsed file's fields read from ``obj``, the object made from them (or a copy of it
    in another place), with the values the object does not hold as parsed in ``raw``.
    Equal to the parsed dictionary, key for key and in the same order."""

    __slots__ = ("obj", "raw")

    def __init__(self, obj: ContextObject, raw: dict[str, Any] | None) -> None:
        self.obj = obj
        self.raw = raw

    @classmethod
    def of(cls, fields: dict[str, Any], obj: ContextObject) -> MadeFields | None:
        """The fields ``obj`` was made from read back from it, or None when ``fields`` is not
        a parse's whole set of fields or ``obj`` not made from it."""
        if len(fields) != len(_NAMES) or fields["content"] is not obj.content:
            return None
        raw: dict[str, Any] | None = None
        if fields["access"] is not None:
            raw = {"access": fields["access"]}
        if fields["classification"] is not obj.classification:  # None: the lowest level
            raw = raw or {}
            raw["classification"] = fields["classification"]
        for name in _REFS:
            if len(fields[name]) != len(getattr(obj, name)):  # repeats were dropped
                raw = raw or {}
                raw[name] = fields[name]
        return cls(obj, raw)

    def __getitem__(self, name: str) -> Any:
        raw = self.raw
        if raw is not None and name in raw:
            return raw[name]
        return _READ[name](self.obj)

    def __iter__(self) -> Iterator[str]:
        return iter(_NAMES)

    def __len__(self) -> int:
        return len(_NAMES)

    def __repr__(self) -> str:
        return repr(dict(self))


def keep_made(parsed: ParsedFile, obj: ContextObject) -> None:
    """Keep ``parsed``, which made ``obj`` (or an object ``obj`` copies), with its fields read
    from ``obj``: a parsed dictionary becomes :class:`MadeFields` and fields already read
    from an earlier object are read from ``obj`` (so the earlier one can be freed).

    The parsed file stays what it was — its fields compare equal and read the same — so it
    is changed in place (a frozen dataclass, written as its own constructor writes it): the
    loader's tables that name it by identity stay as they are."""
    fields = parsed.fields
    if type(fields) is MadeFields:
        if fields.obj is not obj:
            object.__setattr__(parsed, "fields", MadeFields(obj, fields.raw))
    elif type(fields) is dict:
        made = MadeFields.of(fields, obj)
        if made is not None:
            object.__setattr__(parsed, "fields", made)
