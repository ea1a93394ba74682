"""Tests of octui.analysis: audit, agenda, diff, history, time travel, why-not."""
