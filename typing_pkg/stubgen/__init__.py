"""The stub generator: ``.pyi`` files that give pyright the mypy plugin's results.

pyright, basedpyright, Pylance, pyrefly and ty have no plugins.  ``python -m
typing_pkg stubs`` writes a PEP 561 stub-only package, ``stubs/typing_pkg-stubs``,
whose ``Array`` operators are ``@overload``\\ s derived from the default rule
set (``jax``), so that those checkers infer the same ``Array[...]`` results
as the plugin and report an error where the rules leave a promotion
undefined.  ``python -m typing_pkg stubs --check`` fails when the files on disk
differ from what the rules and the runtime modules give now; CI runs it.

The encoding
============

One overload per operand pair would be hundreds per operator, which makes
mypy 5-17× and pyright 2.4-3.9× slower.  The stubs use the encoding of
numtype's ``_nep50.pyi`` instead: the rules are matched through the *other*
operand.

* Every marker class in ``dtypes.pyi`` carries one private *rule method* per
  family of equal tables (``+``, ``*``, ``@``, their in-place forms and
  ``promote_types`` are one family under ``jax``), overloaded by left
  operand::

      class int8(signedinteger):
          @overload
          def __tp_add__(self, left: Category, /) -> Any: ...        # unknown dtype
          @overload
          def __tp_add__(self, left: Kept3, /) -> Kept3: ...         # L + int8 is L
          @overload
          def __tp_add__(self, left: uint8, /) -> int16: ...
          ...

  A category (``floating``, ``DType``) answers ``Any`` for any left operand.
* ``Array.__add__`` has *one* overload for arrays,
  ``(self: Array[Left], other: Array[AddRule[Left, Result]] | NumpyArray)
  -> Array[Result]``: the checker solves ``Left`` from ``self`` and ``Result``
  from the right operand's rule method.  An undefined pair has no item, so
  nothing matches and the checker reports the operator as unsupported (then
  tries the reflected method, which takes Python scalars only).
* A NumPy array operand comes after the Python scalars (see ``_numpy_sigs``):
  one of ``self``'s own NumPy type (``Array[float32] + NDArray[np.float32]``)
  gives the rule's result, read through ``__tp_numpy__``, an attribute each
  concrete marker declares (``type[np.float32]``); any other, ``Array[Any]``
  (a comparison ``Array[bool_]``), never an error.
* Python scalars (``x + 1``, and ``1 + x`` through ``__radd__``) and unary
  operators depend on ``self``'s dtype alone: each marker has a method per
  such rule it defines, ``__tp_add_int__(self) -> <result>``, and
  ``Array.__add__`` one overload per Python scalar kind,
  ``(self: Array[AddIntRule[Result]], other: int) -> Array[Result]``.  The
  kinds come in the order ``bool``, ``int``, ``float``, ``complex``, since a
  checker accepts a ``bool`` where an ``int`` is expected and an ``int``
  where a ``float`` is; where a narrower scalar is undefined and a wider one
  is not (``Array[bool_] - True`` is an error, ``Array[bool_] - 1`` is not),
  the wider rule is a separate overload taking a protocol the narrower
  Python type does not satisfy (``_IntNotBool``, ``_FloatNotInt``,
  ``_ComplexNotFloat``).
* Unknown dtypes (``Array[Any]``, ``Array[floating]``, ``Array[T]``) give
  ``Array[Any]`` (a comparison ``Array[bool_]``, as with the plugin) and
  never an error: a category's rule methods answer ``Any``, a concrete
  marker's first item takes a left operand that is a ``Category`` (its
  ``abstract`` is ``Literal[True]``; concrete markers declare
  ``Literal[False]``, as at run time), and a last overload takes a ``self``
  of unknown dtype (``SomeDType``) with any Python scalar.  Categories give
  ``Array[Any]`` rather than the plugin's category result because pyright
  matches a type variable bounded by ``floating`` exactly as it matches
  ``floating``, and a generic function (``def f(x: Array[F]) -> Array[F]:
  return x * 2``) must not get a false error.
* A comparison gives ``bool_`` wherever it is defined, so its overloads
  check the rule (``other: Array[LtRule[Left, bool_]]``) without solving a
  type variable: less work for the checker.
* The dtypes JAX with x64 off canonicalises (``float64`` computes as
  ``float32``) are operands too, with the rules' results.

``Encoding.overloads`` counts them: 2 to 12 per operator (``+``: 9).

The run-time API
----------------

``promotion.pyi`` types ``promote_types(a, b)`` and ``result_type(a, b)`` with
the same rule methods, in a dozen overloads each rather than one per pair:
``(a: type[Left] | Array[Left], b: type[AddRule[Left, Result]] | ...) ->
type[Result]``, and a marker or array with no promotion matches nothing (an
error).  A NumPy or Python scalar type (or scalar) as the first argument is
read by a rule method of its own, ``__tp_promote_other__`` (kept out of the
operators' methods: pyright reads every item of a method it matches, NumPy's
annotations with them); a Python type or scalar as the second by one
overload per kind (``type[_FloatNotInt]`` after NumPy's types, since
``np.float64`` is a ``float``).  Anything the stubs do not read (a dtype
name, a NumPy type second, a category, ``rules="numpy"``) gives
``type[DType]``, never an error.  ``Array.astype`` has an overload per
marker name (``Literal["float32"] | type[np.float32] | np.dtype[np.float32]``),
and one per Python type, converted as the library converts it: to the dtype
a weak value of its kind takes (``RuleSet.weak_dtypes``: ``float32`` under
``jax``, as ``jnp.zeros(3).astype(float)`` is).

Names
-----

What a checker shows (hovering ``+``: ``other: Array[AddRule[Left,
Result]]``): ``Left`` is ``self``'s dtype, ``Result`` the result's; a
family's protocol is ``<Op>Rule`` (``AddRule``, ``LtRule``, named after its
first operator) with rule method ``__tp_<op>__``; a self rule's protocol is
``<Op><Kind>Rule`` (``AddFloatRule``, ``SubIntNotBoolRule``, ``NegRule``,
``ResultTypeRule``), named after the first operator that uses it, with
method ``__tp_<op>_<kind>__``; each protocol's docstring lists every use.
``Category`` is a dtype category, ``SomeDType`` a dtype the stubs cannot
name, ``Kept<n>`` the left operands a rule leaves unchanged,
``NumpyArray`` a NumPy array operand, and ``NumpyUnknown`` a NumPy scalar
type that names no marker (``np.floating``).

These stubs are for checkers without plugins; mypy does not read the
overloads (see below), so they may use what only pyright-like checkers
support (a protocol as ``Array``'s type argument).

Packaging
=========

The stubs are a stub-only package, ``typing_pkg-stubs`` (PEP 561, marked
``partial``: the modules it lacks, such as ``typing_pkg.rules``, come from the
runtime package), built into the same wheel as ``typing_pkg`` from
``stubs/``.  Installing the package puts it in ``site-packages``, where
pyright, basedpyright, Pylance, pyrefly and ty look first.

mypy looks there too, and the overloads would cost it: measured with
``benchmarks/bench_stubs.py`` on 10,000 operations, mypy with the plugin
took 2.9× as long with the stubs visible (the plugin widens every overload
item) and mypy without the plugin 4.5×.  So ``Array``'s operators and
``astype`` come twice in ``typing.pyi``, as ``promote_types`` and
``result_type`` do in ``promotion.pyi``: first the run-time module's plain
signatures under ``if MYPY:``, then the overloads, unconditionally.  mypy treats ``MYPY`` as
true and keeps the first declaration of a name (the second is a
redefinition, an error it does not report in an installed package), so it
reads the plain signatures, which the plugin refines exactly as without the
stubs; pyright takes the last declaration and pyrefly follows the class
body's flow, so both read the overloads alone.  The markers' rule methods in
``dtypes.pyi`` (most of the package) are under ``if not MYPY:``, a block
mypy skips and the other checkers read.  With the plugin, mypy then
costs the same with or without the stubs (1.01× at 10,000 operations, the
parse of the files at 1,000).

Only what the declarations need is imported: a stub keeps a literal default
and writes any other as ``...``, and the imports of the run-time module that
no declaration uses are dropped (:func:`_prune_imports`); ``__init__.pyi``
declares ``result_dtype`` instead of importing it from ``typing_pkg.api``.
So a program that imports ``typing_pkg`` makes a checker analyse the four
stub files, not the rule sets, the JAX function table or NumPy's aliases
(measured on the realistic JAX corpus with ``benchmarks/bench_mypy_corpus.py``:
the stubs as they were, with the rule methods visible to mypy and the
run-time imports kept, cost mypy with the plugin 1.26× cold in a round).

The price: mypy *without* the plugin is not precise through the stubs (it
gives the plain ``Array[Any]`` results); the plugin is mypy's precise path.
Offering it the overloads would not be enough either: mypy solves the
protocol for arrays (``Array[float32] + Array[int8]``) but not the
self-type protocols of the scalar overloads (``Array[int8] + 2`` is an
error) nor the ``Category`` test (``Array[bool_] - Array[bool_]`` is
``Array[Any]``, not an error); precision without the plugin would need an
encoding of its own for mypy.

Another rule set
================

``python -m typing_pkg stubs --rules numpy --out typings`` (or ``--config
pyproject.toml``: the rule set mypy's plugin is configured with) writes the
package of another rule set into a project's ``typings/``, pyright's default
``stubPath``.  There it is *complete* (its ``py.typed`` is empty;
:func:`is_partial`): pyright maps every partial stub package it finds, in
``stubPath`` as in ``site-packages``, over the installed package's
directory, and there the installed ``typing_pkg-stubs`` (the wheel's, for
``jax``) wins, so a partial copy in ``typings/`` would be silently ignored;
a complete one is found in ``stubPath`` before anything installed, and
pyright still reads the modules it lacks from the run-time package when they
are imported by their full name (``from typing_pkg.rules import
get_rules``; ``from typing_pkg import rules`` is not found).  Each file's
first line names the rule set it encodes (:func:`recorded_rules`).
"""

from __future__ import annotations

from typing_pkg.stubgen.encoding import PROMOTE, Encoding, Family, Group, SelfRule, encode
from typing_pkg.stubgen.package import StaleStub, check, generate, write
from typing_pkg.stubgen.paths import PACKAGE, in_checkout, is_partial, recorded_rules, stubs_dir

__all__ = [
    "PACKAGE",
    "PROMOTE",
    "Encoding",
    "Family",
    "Group",
    "SelfRule",
    "StaleStub",
    "check",
    "encode",
    "generate",
    "in_checkout",
    "is_partial",
    "recorded_rules",
    "stubs_dir",
    "write",
]
