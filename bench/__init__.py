"""Benchmarks of the Gambit Match Service (apart from the test suite): `python -m bench.run`."""
