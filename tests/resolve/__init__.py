"""Tests of octui.resolve: the steps of SPEC section 2 and the ranking of section 3."""
