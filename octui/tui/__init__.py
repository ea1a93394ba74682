"""``octui``: the interactive explorer over the resolver core (Textual).

Everything Textual lives in this package; the core (``octui.*``) never imports it.

Textual paints a screen on a timer of ``1 / TEXTUAL_FPS`` s (60 by default): a refresh
asked for waits for the timer's next tick, 8 ms on average and up to 17, and a key that
needs two refresh cycles (a layout, then the paint of what the layout's messages
changed) waits twice. Unless ``TEXTUAL_FPS`` says otherwise the explorer ticks at
:data:`FPS` (:func:`paint_at_explorer_rate`): a cursor move at 50k objects was shown in
23 ms instead of 39-45 (median, wall). The timer is paused while nothing is to be
painted, so an idle explorer does not tick at all.
"""

import os

FPS = 240
"""The explorer's paint timer, in ticks per second (see the module)."""


def paint_at_explorer_rate() -> None:
    """Make the screens of this process paint at :data:`FPS` unless ``TEXTUAL_FPS`` is set.

    Textual has no setting for it but the environment, read once when Textual is first
    imported into ``textual.screen.UPDATE_PERIOD``, which each screen reads when it makes
    its paint timer: that is what is set, when the explorer is made (before any of its
    screens). Setting ``TEXTUAL_FPS`` instead did nothing once anything had imported
    Textual first, and every process the explorer starts (the editor, a shell) inherited
    it."""
    if "TEXTUAL_FPS" in os.environ:
        return
    import textual.screen

    if hasattr(textual.screen, "UPDATE_PERIOD"):  # (a Textual without it: its own rate)
        setattr(textual.screen, "UPDATE_PERIOD", 1 / FPS)  # noqa: B010 - declared Final
