"""``octui``: the interactive explorer over the resolver core (Textual).

Everything Textual lives in this package; the core (``octui.*``) never imports it.

Textual paints a screen on a timer of ``1 / TEXTUAL_FPS`` s (60 by default), read when
Textual is first imported: a refresh asked for waits for the timer's next tick, 8 ms on
average and up to 17, and a key that needs two refresh cycles (a layout, then the paint of
what the layout's messages changed) waits twice. Unless ``TEXTUAL_FPS`` says otherwise the
explorer ticks at :data:`FPS`: a cursor move at 50k objects was shown in 23 ms instead of
39-45 (median, wall). The timer is paused while nothing is to be painted, so an idle
explorer does not tick at all.
"""

import os

FPS = 240
"""The explorer's paint timer, in ticks per second (see the module)."""

# before any module of this package imports Textual, which reads it once
os.environ.setdefault("TEXTUAL_FPS", str(FPS))
