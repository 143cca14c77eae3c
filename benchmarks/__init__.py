"""Benchmarks run as commands (`python -m benchmarks.<name>`), outside the default test suite."""
