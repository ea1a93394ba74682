"""YAML parsing with PyYAML's C loader, rejecting what would otherwise pass silently.

``CSafeLoader`` keeps the last of duplicate keys without a word; a typo'd
repeat of ``authority:`` must instead fail the file. Aliases are allowed, but a
document whose expansion is huge or cyclic (an alias bomb) is rejected before
anything walks it.
"""

from __future__ import annotations

from typing import Any

import yaml

try:
    _BaseLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader

MAX_NODES = 100_000
MAX_DEPTH = 64


class YamlError(ValueError):
    """A YAML document that cannot be accepted; the message is one line. ``line`` is the
    1-based line of the problem in the text parsed, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class _StrictLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                if key in seen:
                    line = key_node.start_mark.line + 1
                    raise YamlError(f"duplicate key {key!r} (line {line})", line)
                seen.add(key)
            except TypeError:
                line = key_node.start_mark.line + 1
                raise YamlError(f"unhashable mapping key (line {line})", line) from None
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        # A constructor failing on a bad value (``!!timestamp nope``, ``2026-02-30``,
        # ``!!int x``) raises whatever Python raises; name the value and its line instead.
        try:
            return super().construct_object(node, deep=deep)
        except (YamlError, yaml.YAMLError, RecursionError, MemoryError):
            raise
        except Exception as exc:
            kind = str(node.tag).rsplit(":", 1)[-1].lstrip("!") or "value"
            value = f" {node.value!r}" if isinstance(node, yaml.ScalarNode) else ""
            why = f": {exc}" if isinstance(exc, ValueError) and str(exc) else ""
            line = node.start_mark.line + 1
            raise YamlError(f"invalid {kind}{value} (line {line}){why}", line) from None


def _check_size(data: Any) -> None:
    """Reject documents whose expansion is cyclic, deeper than MAX_DEPTH or over MAX_NODES."""
    budget = MAX_NODES
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise YamlError("document expands to too many values (an alias bomb?)")
        if depth > MAX_DEPTH:
            raise YamlError("document is nested too deeply (or refers to itself)")
        if isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _line_of(exc: yaml.YAMLError) -> int | None:
    mark = getattr(exc, "problem_mark", None)
    return None if mark is None else int(mark.line) + 1


def _one_line(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)  # "expected a single document in the stream"
    if context and str(context).startswith("expected"):
        problem = f"{context} {problem}"
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return f"invalid YAML: {problem}{where}"


def load_yaml(text: str | bytes) -> Any:
    """Parse one YAML document; raises :class:`YamlError` with a one-line message."""
    if isinstance(text, bytes):
        text = decode_text(text)
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except YamlError:
        raise
    except yaml.YAMLError as exc:
        raise YamlError(_one_line(exc), _line_of(exc)) from None
    except (RecursionError, MemoryError):
        raise YamlError("document is nested too deeply") from None
    except Exception as exc:  # a constructor's own failure; never a traceback
        raise YamlError(f"invalid YAML value: {exc}") from None
    _check_size(data)
    return data


def decode_text(raw: bytes) -> str:
    """UTF-8 (a leading BOM is dropped); line endings normalised to ``\\n``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlError(f"not valid UTF-8 (byte {exc.start})") from None
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
