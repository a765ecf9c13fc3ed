"""monologue's benchmark suite: ``python -m benchmarks`` (or ``tox -e bench``)."""
