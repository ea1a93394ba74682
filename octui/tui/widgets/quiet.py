"""Updating a ``Static`` without a layout of the whole screen when its size stays the same.

``Static.update`` asks for a layout by default, and a layout places every widget on the
screen again (10–40 ms of the UI thread at 50k objects, most of a key's budget). A box
whose width does not depend on its content keeps its size when the new content has the
height of the old at that width: then a repaint of the box is enough.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


def show_text(box: Static, content: VisualType) -> None:
    """Show ``content`` in ``box`` (whose width must not depend on its content): nothing
    when it shows that already, a layout only when its height changes."""
    if content == box.content:
        return
    width, size = box.content_region.width, box.size
    if width <= 0:  # not laid out yet (or not shown): nothing to keep
        box.update(content)
        return
    before = box.get_content_height(size, size, width)
    box.update(content, layout=False)
    if box.get_content_height(size, size, width) != before:
        box.refresh(layout=True)


__all__ = ["show_text"]
