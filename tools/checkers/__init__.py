"""Type checkers for the tests, the tools and the benchmarks: one way to run each, one reader
of each report.

* :mod:`tools.checkers.run`: mypy's and basedpyright's commands, run and timed;
* :mod:`tools.checkers.output`: what a report says (mypy's messages, basedpyright's
  JSON report, pyrefly's);
* :mod:`tools.checkers.seeds`: warm mypy caches, JAX's modules analysed once.
"""
