"""Tests of octui.cli: the command line."""
