"""Tests of octui.bundle: the bundle, its canonical JSON and digest, its schema."""
