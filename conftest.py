"""Test settings for the whole checkout.

Its presence at the root puts the checkout on ``sys.path``, so tests import
the tooling package ``tools`` (truth recording and comparison) as well as
``typing_pkg``.

``pytest -m "not slow" -n 2`` is the quick day-to-day subset (under a
minute on two cores); ``.ci/run`` runs everything.  A test is ``slow`` when it runs a type
checker over a large generated program, observes a live library, builds a
package or the docs: the modules below are marked as a whole (one place to
see what the quick subset leaves out), and a single test can be marked with
``@pytest.mark.slow`` where it stands.
"""

from __future__ import annotations

import fcntl
import functools
import importlib.util
import os
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parent
ALL_LIBRARIES: Final = "TYPING_PKG_ALL_LIBRARIES"
"""Set by ``.ci/run``, which installs every library: a missing one is then an error, not a skip."""


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.requires("torch")``: skip the test when the library is not installed
    (the quick subset needs only ``.[test,jax]``); under ``.ci/run`` (:data:`ALL_LIBRARIES`
    set) fail instead, so that no test of the full suite is skipped for want of an install."""
    for mark in item.iter_markers("requires"):
        for library in mark.args:
            if importlib.util.find_spec(library) is not None:
                continue
            if os.environ.get(ALL_LIBRARIES):
                pytest.fail(f"{library} is not installed, and .ci/run installs it")
            pytest.skip(f"{library} is not installed (pip install -e '.[libraries]')")


SLOW_MODULES: Final = frozenset(
    {
        "tests/conformance/test_live_libraries.py",  # each library observed afresh
        "tests/plugin/test_plugin_conformance.py",  # mypy over every truth cell
        "tests/plugin/test_plugin_function_conformance.py",  # mypy over every function cell
        "tests/plugin/test_plugin_fuzz.py",  # thousands of random statements
        "tests/plugin/test_plugin_type_shapes.py",  # random programs over every type shape
        "tests/plugin/test_plugin_config.py",  # mypy and dmypy runs per configuration
        "tests/stubs/test_conformance.py",  # basedpyright and pyrefly over every cell
        "tests/stubs/test_unknown_dtypes.py",  # basedpyright and mypy, line by line
        "tests/stubs/test_rule_choice.py",  # stubs of other rule sets in typings/, basedpyright
        "tests/stubs/test_jax_stubs.py",  # generates the JAX stubs, runs basedpyright
        "tests/stubs/test_jax_stubs_lsp.py",  # the JAX stubs in basedpyright-langserver
        "tests/stubs/test_jax_stubs_function_conformance.py",  # the JAX stubs vs the function truth
        "tests/stubs/test_packaging.py",  # builds and installs the wheel
        "tests/packaging/test_build.py",  # builds the sdist and wheels
        "tests/packaging/test_installed.py",  # installs the wheel in a new environment
        "tests/packaging/test_editable.py",  # an editable install, mypy and basedpyright
        "tests/typing/test_static.py",  # mypy --strict and basedpyright strict runs
        "tests/docs/test_plugin_examples.py",  # mypy on the examples and docstrings
        "tests/docs/test_jax_code_page.py",  # mypy on the JAX page's program
        "tests/corpus/test_plugin_on_corpus.py",  # the corpus run and mypy over it
        "tests/docs/test_docs_doctest.py",  # a Sphinx doctest build
        "tests/docs/test_docs_pages.py",  # a Sphinx HTML build
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of a slow module (YAML cases of pytest-mypy-plugins included)."""
    for item in items:
        path = item.path.relative_to(ROOT).as_posix() if item.path.is_relative_to(ROOT) else ""
        if path in SLOW_MODULES or path.endswith(".yml"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _jax_stubs_generated_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The JAX stubs of a rule set are generated once a session, not once a worker.

    Generating them takes about 20 s of processor time a rule set, and each
    ``pytest-xdist`` worker needs the same ones: the first worker to ask for a
    rule set's stubs (over the installed JAX) generates them and stores them in
    the session's temporary root, under a lock; the others read them.  What
    the tests see is the generator's own answer (``_generate``'s), whichever
    worker computed it.  A test generating over another JAX tree, or a
    subprocess (the primer's ``typing-pkg stubs --jax``), generates as before.
    """
    if "typing_pkg.stubgen.jax.package" not in sys.modules:  # no collected test generates them
        yield
        return
    from typing_pkg.stubgen.jax import package
    from typing_pkg.stubgen.jax.installed import jax_dir

    base = tmp_path_factory.getbasetemp()
    store = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    generate = package._generate
    installed = str(jax_dir())

    @functools.cache
    def shared(rules_name: str, root: str) -> tuple[dict[str, str], dict[str, str]]:
        if root != installed:
            return generate(rules_name, root)
        path = store / f"jax-stubs-{rules_name}.pickle"
        with (store / "jax-stubs.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if path.is_file():
                made: tuple[dict[str, str], dict[str, str]] = pickle.loads(path.read_bytes())
                return made
            made = generate(rules_name, root)
            path.write_bytes(pickle.dumps(made))
            return made

    package._generate = shared
    try:
        yield
    finally:
        package._generate = generate
