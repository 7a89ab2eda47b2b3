"""The primer: what the mypy plugin and the JAX stubs change on public JAX projects.

In the spirit of mypy_primer, the primer runs mypy with and without the plugin
(``plugins = mypy_plugin``, ``[typing_pkg] promotion = RULES``), and
basedpyright with and without the JAX stubs (``typing-pkg stubs --jax``), over
the projects of ``tools/primer/projects.toml`` — each pinned at a commit —
and reports per project what changes.

Usage, from the checkout::

    python -m tools.primer prepare --mirrors /work/.mirror   # or: prepare (clones from GitHub)
    python -m tools.primer prepare --project jaxopt --mirror /path/to/jaxopt.git
    python -m tools.primer [--sources DIR] [--python VENV_PYTHON] [--project NAME ...]
                           [--checker mypy|basedpyright|all] [--jobs N] [--json OUT]
                           [--rules jax] [--cache DIR] [--projects FILE]
                           [--timeout S] [--run-timeout S] [--overlap-timed] [--no-warm-up]
                           [--errors-only] [--mypy-flag=FLAG] [--modes]
                           [--repeat N] [--no-coverage]

``prepare`` exports each project's ``commit`` into ``SOURCES/NAME`` with
``git archive``, from a local git directory (``--mirror DIR`` for one project,
``--mirrors ROOT`` holding one per project) or a clone URL (``--url URL``;
by default GitHub's); an existing folder is kept unless ``--force``.

The run needs the primer's environment (``--python``, default
``/work/primer/venv/bin/python``): a venv with typing_pkg installed editable
from this checkout, mypy, basedpyright and the projects' ``deps``.  The
defaults: sources ``/work/primer/src``, caches ``/work/primer/cache``, two
projects at a time (``--jobs``).  Each project's runs are sequential; across
jobs, one timed checker run goes at a time while the other jobs do their
untimed work (coverage runs, traced programs) beside it — ``--overlap-timed``
lifts that, faster and noisier; ``--jobs 1`` is the quietest.  Before the
projects, an untimed mypy run over ``import jax`` (``--no-warm-up`` skips
it) reads JAX's files once, so the first timed run does not pay for the
disk alone; and the plugin's bytecode is written where the interpreter
imports it from (as pip does on install: with ``PYTHONDONTWRITEBYTECODE``
set, each run would compile the plugin).  The exit status
is 0 whatever the figures, 2 on a usage error (a bad ``projects.toml`` entry
is reported in one line naming the entry and the key).

Per project, in ``SOURCES/NAME``, on the ``.py`` files of its ``paths``
minus those an ``exclude`` regex finds in their relative path:

* **INTERNAL ERRORs.**  mypy runs with ``--show-traceback``; a crash (mypy
  stops at the first) is reported with the file and line it was checking and
  the traceback's last lines.
* **Errors added by the plugin.**  mypy runs in the project's folder with a
  configuration with the plugin and one without, both with
  ``check_untyped_defs``, ``ignore_missing_imports`` and ``follow_imports =
  silent`` (errors in the checked files only), ``--no-error-summary
  --show-error-codes``.  The errors are compared as multisets of (file, line,
  code, message): each error only the plugin's run reports is listed in full
  (``+``), and each one it no longer reports (``-``, informative); an added
  error that rewords one mypy alone reports is shown paired with it (``~``;
  ``checkers.pair_reworded``): a removed error at the same file, line and
  code (mostly ``jax.Array`` now spelt ``Array[Any]``), else a removed one at
  the same line with another code (``x += p``: ``[operator]`` alone,
  ``[arg-type]`` of ``Array.__iadd__`` with the plugin), else any error at
  the same file, line and code (mypy says a message once a line; the plugin
  spells two operands apart).  They still count among the added and the
  removed.
* **Coverage.**  The checked files, instrumented by
  ``tools/corpus_coverage.py`` (``reveal_type(name)`` after each assignment
  site) in a mirror of the project's tree, go through mypy with the plugin:
  *sites* counts the array-valued sites (the revealed type is our ``Array``,
  ``jax.Array``, a JAX-internal array or NumPy's ``ndarray``), *typed* those
  whose type names one concrete dtype.  Without a runtime nothing says
  whether the dtype is right; a project's optional ``run = ["prog.py", …]``
  key has those programs run under corpus_coverage's tracer, and the typed
  sites they execute are judged correct or wrong.
* **Why a site is untyped.**  Each array-valued site without one dtype is
  given a reason (:mod:`~tools.primer.reasons`): its value is followed back
  through the program (names to their bindings, parameters to the call sites
  or transformations that fill them, calls to the functions they call) to
  the first thing without a dtype, named in a class.  The program's own:
  ``input`` (an input no call site fixes), ``annotation`` (``jax.Array``,
  ``Float[Array, …]``, a library's declaration), ``untyped-library``,
  ``value-dependent``, ``several-dtypes``, ``numpy`` (NumPy's API, a later
  issue).  The plugin's gaps: ``call-site``, ``other-module``,
  ``transformed``, ``pytree``, ``api-gap``, ``unexplained``.  The report
  gives the count per class over the projects and per project, with the
  gap sites; the JSON each site's cause.
* **Time ratios.**  mypy's processor time (user and system, of its process
  and its descendants: ``checkers.timed_command``) with the plugin over
  without, cold (fresh cache directories) and warm (a second run on the kept
  caches), the four runs interleaved: plain cold, plugin cold, plain warm,
  plugin warm.  Processor time, because the wall clock's ratio between two
  identical runs moved by a third with other work on the machine; the wall
  seconds are shown beside it.  ``--repeat N`` runs the four N times (each
  cold pair with fresh caches) and reports the ratio of the best (least)
  times, with the range and median of the repetitions' own ratios: other work
  on the machine only adds time, so the best is the least disturbed run
  (a later repetition that reports other errors is noted); ``--no-coverage``
  leaves out the coverage run, for a timing pass.
  A warm run whose errors differ from its cold run's is noted.  Editing the
  plugin while the primer runs makes the warm runs cold: the report's header
  names the commit of the checkout the environment imports the plugin from,
  ``+changes`` when its tracked files differ.
* **Other ways of running mypy** (``--modes``), with the plugin, each
  compared with a cold run of its configuration (errors missing or extra):
  an incremental run after an edit (the cold run's cache kept, a function
  appended to the project's first file, mypy again), and dmypy (``follow_imports
  = normal``: it refuses ``silent``; against a cold mypy run with it) started,
  after the edit (its fine-grained update) and after the edit is undone.
  The edited file is restored whatever happens.  ``--mypy-flag`` gives every
  run a flag (``--num-workers=2``, ``--native-parser``).
* **basedpyright.**  The JAX stubs, generated once per run by the
  environment's ``python -m typing_pkg stubs --jax --rules RULES``, are the
  ``stubPath`` of one run and an empty directory that of the other, with a
  ``pyrightconfig.json`` written outside the project (``typeCheckingMode =
  "standard"``, ``pythonVersion = "3.11"``, the environment's interpreter);
  added and removed errors as for mypy, and the time ratio.

The report prints a line per project — name, kind, lines, INTERNAL ERRORs,
errors added under mypy and basedpyright, sites, typed, mypy's cold and warm
time ratios and basedpyright's — then each project's details: every added
and removed error, every crash, the coverage by dtype and the most frequent
types of the array sites left without a dtype, and their reasons.  ``--json OUT`` writes all of
it, every run's errors included.  The caches, mypy's configurations and the
instrumented copies stay under ``--cache DIR/NAME`` for a look afterwards.

Modules: :mod:`~tools.primer.projects` (``projects.toml``),
:mod:`~tools.primer.checkers` (running and reading mypy and basedpyright),
:mod:`~tools.primer.sites` (coverage), :mod:`~tools.primer.reasons` (why a
site is untyped), :mod:`~tools.primer.runner` (a
project's runs, projects in parallel), :mod:`~tools.primer.report` (the text
and the JSON), :mod:`~tools.primer.prepare` (``git archive``).
"""
