"""Benchmarks, each a script run from the repository's root as
``python3 tools/bench/<name>.py`` (most against the loopback services:
doc/source/contributor/testing.rst). They share helpers as ``bench.plan``
and ``bench.deploy``, with tools/ on sys.path."""
