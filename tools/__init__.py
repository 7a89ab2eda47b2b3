"""Tooling that lives beside the package, never imported by it: recording and checking truth.

``tools.conformance`` observes the real array libraries and compares the rule
sets with what they record; the scripts here (``make_truth.py``, …) run it.
Nothing under ``tools/`` ships in the wheel or runs when ``typing_pkg`` is used.
"""
