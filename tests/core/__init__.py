"""Tests of octui.core."""
