"""Typed JAX stubs for pyright: the installed JAX's own stubs, rewritten from the function table.

``python -m typing_pkg stubs --jax --out DIR`` writes ``DIR/jax-stubs``, a
*partial* PEP 561 stub package (``py.typed`` says ``partial``), and beside it
``DIR/typing_pkg-stubs`` for the same rule set (the JAX stubs use its rule
protocols, so the two must come from one rule set).  ``DIR`` is the project's
``typings/`` (pyright's default ``stubPath``) or any directory on the search
path (``site-packages``).

How pyright reads it
====================

pyright maps a partial stub package over the installed package's directory
(its ``PartialStubService``): every ``.pyi`` file of ``jax-stubs`` replaces
the file of the same path in ``jax/``, and the installed package's ``.py``
files stay visible; but the installed package's *own* ``.pyi`` files are
hidden by the mapping, so the package carries a rewritten copy of each of
them (``jax/numpy/__init__.pyi``, ``jax/nn/__init__.pyi``,
``jax/_src/basearray.pyi``), a stub for each module that re-exports
functions of JAX's private modules (``jax/random.pyi``,
``jax/lax/__init__.pyi``, ``jax/numpy/linalg.pyi``, ``jax/numpy/fft.pyi``:
every import of the module, then the functions of the table declared again
from their source), and ``jax/__init__.pyi`` (``jax/__init__.py``'s imports
and assignments, with a typed ``jit``).  A plain ``typings/jax/``
directory does not work: pyright then takes ``typings/jax`` for the whole
``jax`` package and ``jax.jit``, ``jax.random`` are unknown.

What the files say
==================

* ``jax._src.basearray.Array`` (``jax.Array``) is generic in a dtype marker
  that defaults to ``Any`` (a bare ``jax.Array`` stays valid) and subclasses
  ``typing_pkg.Array``, so a JAX array is accepted where an ``Array[float32]``
  is expected.  Its operators are the overloads of ``typing_pkg``'s stubs
  (the rule protocols, under the same rule set), returning ``jax.Array``,
  each followed by JAX's own signature as a last overload.
* ``jnp.float32``, ``jnp.bfloat16``, … (``Any`` in JAX's stubs) are
  ``_ScalarMeta[float32]`` objects: a ``dtype=`` / ``astype`` argument that
  names its dtype, a ``np.dtype`` (where programs annotate ``jnp.dtype``),
  and callable (``jnp.float32(2.0)`` is an ``InferredArray[float32]``);
  ``jnp.float64`` is ``_ScalarMeta[float32]`` with x64 off, as JAX
  canonicalises it.
* ``InferredArray`` (``jax/_src/inferred.pyi``, a module of the stubs only,
  its class named ``Array`` so that it reads as one) is an array of a known
  dtype where JAX's types say ``Any``: deriving from ``Any``, it is accepted
  wherever ``Any`` is (``EnvState(time=jnp.int32(0))`` with ``time: int``),
  as the mypy plugin's ``typing_pkg.typing.InferredArray`` is.
* Each function of the table (:func:`typing_pkg.api.table`) with at most one
  array parameter whose dtype matters gets overloads computed by asking the
  table (:func:`typing_pkg.result_dtype`) for every dtype: one per result
  for the array parameter (the dtypes a function keeps share one overload
  through a type variable), one per Python scalar kind, then
  those of its dtype option (``dtype=``, ``new_dtype=``, ``index_dtype=``)
  in each form JAX reads — a scalar type object, a ``typing_pkg`` marker, a
  dtype name (``"float32"``), a NumPy or a Python type — each for the
  dtypes of the array parameter it holds for, and JAX's own signature last,
  so that everything JAX accepts stays accepted (with an ``Array`` of
  unknown dtype).  The overloads without the dtype option say it is
  ``None``; ``promote_integers=False`` has its own; an optional array
  parameter absent has its own first; a parameter the table checks but
  does not read (``ldexp``'s integer ``y``) takes the dtypes that change no
  result.
* A function of two arrays whose table equals an operator family's
  (``maximum``, ``where``, ``dot``, ``matmul``, ``divide``… : the table is
  asked for every pair of dtypes and compared with ``typing_pkg``'s
  families) gets that operator's overloads (its rule protocols,
  ``y: Array[AddRule[Left, Result]]``) and its Python-scalar ones, both ways
  round when the table is symmetric; a ufunc object (``jnp.maximum``) gets
  them as its ``__call__`` and keeps its methods.  Another function of two
  arrays (``lax.add``, ``jnp.arctan2``) gets overloads for two arrays of one
  dtype (a constrained type variable), for a few pairs of dtypes and for
  Python scalars (beside an array, or two of them).  A
  function of one sequence of arrays that keeps the dtype (``concatenate``,
  ``stack``) gets a constrained type variable over the strong dtypes.
  Other functions of several arrays keep JAX's signature.
  :func:`coverage` says which of these each function of the table gets
  (:data:`COVERAGE`).
* The members of ``jax.Array`` that keep the dtype in ``typing_pkg``'s
  ``Array`` (``x[i]``, ``x.T``, ``x.mT``) say so, iterating gives what
  ``x[0]`` gives (JAX's ``Any`` where the dtype is unknown: what is unpacked
  from a value declared ``jax.Array`` may be no array), and ``x.at[i]`` is
  generic in the dtype: its methods that
  keep every dtype in the table (``set``, ``add``, ``min``…) return it.
  Its other properties of the table (``x.real``, ``x.imag``) are
  descriptors whose ``__get__`` has the overloads by ``x``'s dtype (a
  property has none).
* ``jax.jit(f)`` is a ``JitWrapped`` called with anything, as JAX declares
  it; its result is ``f``'s array with its dtype (an ``InferredArray``,
  accepted wherever JAX's ``Any`` is) or ``Any`` (``vmap`` keeps the
  signature in JAX's own annotations); ``grad`` keeps JAX's signature.  A
  function of the table that JAX's source jits (``jnp.linalg.norm``: JAX's
  types say ``JitWrapped``) takes anything where no overload depends on it
  (``ord=jnp.inf``), returns ``InferredArray`` arrays, and its last overload is
  JAX's: anything in, ``Any`` out.
* ``jax.Array``'s parameters JAX leaves unannotated (``__getitem__``'s key)
  are ``Any``: pyright would give them the annotations of ``typing_pkg``'s
  ``Array``, which refuse keys JAX takes (a float, a string).

``stubs --jax --out DIR --check`` (:func:`check`) fails when ``DIR``'s files
differ from a fresh generation for the installed JAX.
"""

from __future__ import annotations

from typing_pkg.stubgen.jax.functions import COVERAGE
from typing_pkg.stubgen.jax.installed import TESTED_JAX, jax_dir, jax_version
from typing_pkg.stubgen.jax.package import PACKAGE, check, coverage, generate, write

__all__ = [
    "COVERAGE",
    "PACKAGE",
    "TESTED_JAX",
    "check",
    "coverage",
    "generate",
    "jax_dir",
    "jax_version",
    "write",
]
