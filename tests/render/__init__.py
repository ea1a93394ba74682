"""Tests of octui.render."""
