"""Tests of octui.load: files to objects."""
