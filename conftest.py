"""Test settings for the whole checkout.

Its presence at the root puts the checkout on ``sys.path``, so tests import
the tooling package ``tools`` (truth recording and comparison) as well as
``typing_pkg``.  Test groups are marked by directory: ``slow`` (runs a type
checker or an external library over large programs), so that
``pytest -m "not slow"`` is the quick day-to-day subset.
"""
