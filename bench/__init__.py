"""Benchmarks of Sammy Desktop: ``make bench`` runs ``bench/run.py`` (see docs/benchmarks.md)."""
