"""A small mixed-precision model, typed with typing_pkg: see ``examples/check.py``."""
