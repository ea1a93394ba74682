"""Synthetic organizations for benchmarks and demos: a deterministic repository of N objects
(``opencontext synth`` writes one). Needs nothing of octui."""
