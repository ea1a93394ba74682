"""``octui``: the interactive explorer over the resolver core (Textual).

Everything Textual lives in this package; the core (``octui.*``) never imports it.
"""
