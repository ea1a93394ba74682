"""Benchmarks and screenshot tools for developers; nothing in octui imports them."""
