"""A deterministic synthetic repository at organization scale (``opencontext synth`` writes it).

The same ``--objects`` and ``--seed`` always give the same bytes: every choice
comes from one ``random.Random(seed)`` drawn in a fixed order, and nothing reads
the clock, the time zone or the locale. The distributions aim at what a real
organization accumulates over years:

- a few hundred areas (policies, procedures, pricing, decisions, notes, …), each
  with its own topics, so role scopes select realistic slices;
- about a quarter of ids carry several versions, joined by declared supersession
  (``supersedes: [id@v]`` on the newer one, or ``superseded_by`` on the older,
  sometimes a bare id), and a few rewrites nobody declared;
- declared conflicts, classifications from public to restricted, access lists,
  drafts, validity windows spread from 2021 to 2028, review windows;
- several sources, two of which force their authority (tickets, chats);
- Markdown bodies from one line to several thousand words, and some YAML files;
- a thin sprinkling of real mistakes (broken references, unknown fields, unknown
  authorities, invalid files, duplicate versions) so every code path is exercised.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from octui.synth.vocabulary import (
    AREA_WEIGHTS,
    AREAS,
    AUTHORITIES,
    AUTHORITY_WEIGHTS,
    FILLER,
    LEVEL_WEIGHTS,
    LEVELS,
    OWNERS,
    ROLES,
    TYPES,
    WORDS,
    config_text,
)

EPOCH_DAY = 738_156  # 2022-01-01 as a proleptic ordinal (date(2022, 1, 1).toordinal())
SPAN_DAYS = 365 * 5  # objects are created between 2022-01-01 and the end of 2026


@dataclass
class Obj:
    """One object to be written: its front matter and body."""

    id: str
    version: int
    path: str
    fields: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    yaml_file: bool = False
    raw: str | None = None  # an intentionally broken file


def _day(ordinal: int) -> str:
    from datetime import date

    return date.fromordinal(ordinal).isoformat()


def _instant(rng: random.Random, ordinal: int) -> str:
    """Mostly dates; one in ten a datetime, some with an offset (all parse to UTC)."""
    if rng.random() < 0.9:
        return _day(ordinal)
    hour, minute = rng.randrange(24), rng.randrange(60)
    offset = rng.choice(["Z", "+02:00", "-05:00", "+00:00"])
    return f"{_day(ordinal)}T{hour:02d}:{minute:02d}:00{offset}"


def _sentence(rng: random.Random) -> str:
    n = rng.randint(6, 18)
    words = [rng.choice(WORDS) if rng.random() < 0.45 else rng.choice(FILLER) for _ in range(n)]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def _body(rng: random.Random, title: str) -> str:
    """A Markdown body: length log-normal, from one line to several thousand words."""
    paragraphs = max(1, min(120, round(rng.lognormvariate(1.2, 0.9))))
    parts = [f"# {title}", ""]
    for i in range(paragraphs):
        if i and rng.random() < 0.2:
            parts += [f"## {rng.choice(WORDS).capitalize()} {rng.choice(WORDS)}", ""]
        if rng.random() < 0.15:
            parts += [f"- {_sentence(rng)}" for _ in range(rng.randint(2, 6))]
        else:
            parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(1, 6))))
        parts.append("")
    return "\n".join(parts)


def _family_sizes(rng: random.Random) -> Iterator[int]:
    while True:
        r = rng.random()
        yield 1 if r < 0.72 else 2 if r < 0.9 else 3 if r < 0.96 else rng.randint(4, 6)


def _floor_objects(rng: random.Random, n: int) -> list[Obj]:
    """L0 / L1 first: one mission and up to four identity objects (fewer when ``n`` is small)."""
    objects = [
        Obj(
            "mission",
            1,
            "mission.md",
            {
                "authority": "canonical",
                "title": "Mission",
                "layer": "L0",
                "classification": "public",
                "created": _day(EPOCH_DAY),
            },
            _body(rng, "Mission"),
        )
    ]
    for name in ["voice", "values", "brand", "glossary"][: max(0, min(4, n - 1))]:
        objects.append(
            Obj(
                f"identity.{name}",
                1,
                f"identity/{name}.md",
                {
                    "authority": "canonical",
                    "title": name.capitalize(),
                    "layer": "L1",
                    "classification": "public",
                    "created": _day(EPOCH_DAY + 10),
                },
                _body(rng, name.capitalize()),
            )
        )
    return objects


def _placement(rng: random.Random, area: str, topic: str, counter: int) -> tuple[str, str]:
    """``(object id, folder)`` of the ``counter``-th family: most under their area, some
    notes in the tickets and chats sources, a few in the wiki."""
    sub = ""
    if area == "policies" and rng.random() < 0.12:
        sub = rng.choice(["internal.", "public."])
    object_id = f"{area}.{sub}{topic}.{topic}-{counter:06d}"
    folder = f"{area}/{topic}/{counter // 500:03d}"
    source_kind = rng.random()
    if area == "notes" and source_kind < 0.25:
        folder = f"inbox/tickets/{counter // 500:03d}"
    elif area == "notes" and source_kind < 0.35:
        folder = f"inbox/chats/{counter // 500:03d}"
    elif source_kind < 0.06:
        folder = f"wiki/{area}/{counter // 500:03d}"
    return object_id, folder


def generate(n: int, seed: int) -> tuple[str, list[Obj]]:
    """``(opencontext.yaml text, objects)`` for ``n`` objects; deterministic in (n, seed)."""
    rng = random.Random(f"opencontext-synth:{seed}")
    objects = _floor_objects(rng, n)
    areas = sorted(AREAS)
    weights = [AREA_WEIGHTS[a] for a in areas]
    sizes = _family_sizes(rng)
    counter = 0
    all_ids: list[str] = [o.id for o in objects]
    while len(objects) < n:
        area = rng.choices(areas, weights)[0]
        topic = rng.choice(AREAS[area])
        counter += 1
        object_id, folder = _placement(rng, area, topic, counter)
        versions = min(next(sizes), n - len(objects))
        family = _family(rng, area, topic, object_id, folder, versions, all_ids)
        objects.extend(family)
        all_ids.append(object_id)
    _sprinkle_problems(rng, objects, all_ids)
    return config_text(), objects


@dataclass(frozen=True)
class _Traits:
    """What every version of one family shares."""

    title: str
    tags: list[str]
    applies_to: list[str]
    authority: str
    level: str


def _version_fields(rng: random.Random, area: str, traits: _Traits, day: int) -> dict[str, Any]:
    """The front matter of one version created on ``day``, before any declaration."""
    f: dict[str, Any] = {
        "authority": traits.authority,
        "title": traits.title if rng.random() < 0.97 else None,
        "summary": _sentence(rng) if rng.random() < 0.8 else None,
        "type": TYPES[area],
        "owner": rng.choice(OWNERS),
        "layer": rng.choice(["L2", "L3", "L4"]) if rng.random() < 0.85 else None,
        "tags": traits.tags or None,
        "applies_to": traits.applies_to or None,
        "classification": traits.level if rng.random() < 0.9 else None,
        "created": _instant(rng, day),
    }
    if rng.random() < 0.6:
        f["updated"] = _instant(rng, day + rng.randint(0, 200))
    if rng.random() < 0.05:
        f["status"] = "draft"
    if rng.random() < 0.08:
        f["access"] = {"roles": sorted(rng.sample(list(ROLES), rng.randint(1, 3)))}
    if rng.random() < 0.12:
        f["valid_from"] = _day(day + rng.randint(0, 30))
    if rng.random() < 0.12:
        f["valid_until"] = _day(day + rng.randint(60, 1500))
    if rng.random() < 0.1:
        f["review_every"] = rng.choice(["30d", "12w", "6m", "1y"])
    if rng.random() < 0.3:
        f["confidence"] = round(rng.random(), 2)
    return f


def _declare_rewrite(
    f: dict[str, Any], family: list[Obj], object_id: str, v: int, versions: int, declare: float
) -> None:
    """How version ``v`` (> 1) declares that it replaces the one before, by ``declare``."""
    prev = f"{object_id}@{v - 1}"
    if declare < 0.7:
        f["supersedes"] = [prev]
    elif declare < 0.78:
        # a bare id names every other version: only the newest may say it
        f["supersedes"] = [object_id] if v == versions else [prev]
    elif declare < 0.92:
        family[-1].fields["superseded_by"] = f"{object_id}@{v}"
    # else: a rewrite nobody declared (multiple-active-versions)


def _link_others(rng: random.Random, f: dict[str, Any], area: str, all_ids: list[str]) -> None:
    """Rarely, a decision superseding another decision, or a declared conflict."""
    if area == "decisions" and all_ids and rng.random() < 0.05:
        other = rng.choice(all_ids)
        if other.startswith("decisions."):
            f["supersedes"] = [*f.get("supersedes", []), other]
    if all_ids and rng.random() < 0.02:
        f["conflicts_with"] = [rng.choice(all_ids[-200:])]


def _family(
    rng: random.Random,
    area: str,
    topic: str,
    object_id: str,
    folder: str,
    versions: int,
    all_ids: list[str],
) -> list[Obj]:
    start = EPOCH_DAY + rng.randrange(SPAN_DAYS)
    traits = _Traits(
        title=f"{topic.replace('-', ' ').capitalize()} {rng.choice(WORDS)} {rng.choice(WORDS)}",
        tags=sorted(set(rng.sample(WORDS, rng.randint(0, 4)))),
        applies_to=sorted(set(rng.sample(list(ROLES), rng.randint(0, 2)))),
        authority=rng.choices(AUTHORITIES, AUTHORITY_WEIGHTS)[0],
        level=rng.choices(LEVELS, LEVEL_WEIGHTS)[0],
    )
    family: list[Obj] = []
    day = start
    declare = rng.random()  # how this family declares its rewrites
    for v in range(1, versions + 1):
        if v > 1:
            day += rng.randint(20, 400)
        f = _version_fields(rng, area, traits, day)
        if v > 1:
            _declare_rewrite(f, family, object_id, v, versions, declare)
        _link_others(rng, f, area, all_ids)
        name = (
            f"{object_id.rsplit('.', 1)[1]}.v{v}" if versions > 1 else object_id.rsplit(".", 1)[1]
        )
        yaml_file = rng.random() < 0.08
        path = f"{folder}/{name}.{'yaml' if yaml_file else 'md'}"
        family.append(Obj(object_id, v, path, f, _body(rng, traits.title or object_id), yaml_file))
    return family


def _sprinkle_problems(rng: random.Random, objects: list[Obj], all_ids: list[str]) -> None:
    """Real mistakes, rare: every finding code should appear at scale."""
    for obj in objects[5:]:
        r = rng.random()
        if r < 0.002:
            obj.fields["supersedes"] = [*obj.fields.get("supersedes", []), "policies.gone-missing"]
        elif r < 0.005:
            obj.fields["superseeded_by"] = obj.id + "@9"  # a typo: unknown-field
        elif r < 0.009:
            obj.fields["authority"] = rng.choice([None, "gospel"])
        elif r < 0.010:
            obj.raw = f"---\nid: {obj.id}\nversion: {obj.version}\ntitle: [unclosed\n---\nbody\n"
    # a few copies holding the same id and version (duplicate-version)
    if len(objects) > 1000:
        for i in range(max(1, len(objects) // 10000)):
            source = objects[rng.randrange(5, len(objects))]
            copy = Obj(
                source.id,
                source.version,
                source.path.rsplit(".", 1)[0] + f"-copy{i}.md",
                dict(source.fields),
                source.body,
            )
            index = rng.randrange(5, len(objects))
            if objects[index] is not source:
                objects[index] = copy
        # one supersession cycle between two decisions
        first = next((o for o in objects if o.id.startswith("decisions.")), None)
        second = next((o for o in reversed(objects) if o.id.startswith("decisions.")), None)
        if first is not None and second is not None and first.id != second.id:
            first.fields["supersedes"] = [*first.fields.get("supersedes", []), second.id]
            second.fields["supersedes"] = [*second.fields.get("supersedes", []), first.id]


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "null" if value is None else str(value).lower()
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if text and all(c.isalnum() or c in "._@-:+" for c in text) and not text[0].isdigit():
        return text if ":" not in text else f'"{text}"'
    if text and text[0].isdigit() and all(c.isdigit() or c in "-T:+Z" for c in text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _front_matter(obj: Obj) -> str:
    lines = [f"id: {obj.id}", f"version: {obj.version}"]
    for key, value in obj.fields.items():
        if value is None and key != "authority":
            continue
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key}: [{', '.join(_yaml_scalar(v) for v in value)}]")
        elif isinstance(value, dict):
            lines.append(f"{key}:")
            for k, v in value.items():
                lines.append(f"  {k}: [{', '.join(_yaml_scalar(x) for x in v)}]")
        else:
            lines.append(f"{key}: {_yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def render(obj: Obj) -> str:
    """The file text of one object."""
    if obj.raw is not None:
        return obj.raw
    front = _front_matter(obj)
    if obj.yaml_file:
        body = "".join(f"  {line}\n" if line else "\n" for line in obj.body.split("\n"))
        return front + "content: |\n" + body
    return f"---\n{front}---\n{obj.body}"


def write_repository(out: Path, n: int, seed: int) -> int:
    """Write the repository into ``out`` (absent or empty). Returns the number of files."""
    config, objects = generate(n, seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "opencontext.yaml").write_text(config, encoding="utf-8", newline="\n")
    (out / "README.md").write_text(
        f"# Synthetic repository\n\n{n} objects, seed {seed}; generated by `opencontext synth`.\n",
        encoding="utf-8",
        newline="\n",
    )
    made: set[str] = set()
    for obj in objects:
        folder = os.path.dirname(obj.path)
        if folder and folder not in made:
            (out / folder).mkdir(parents=True, exist_ok=True)
            made.add(folder)
        with open(out / obj.path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(render(obj))
    return len(objects)
