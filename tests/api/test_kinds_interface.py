"""The kinds' interface: what the plugin, the JAX stubs and the conformance tools read.

Every reader of the table goes through ``Kind``'s ``params``, ``options``,
``branches()``, ``reads()``, ``checks()`` and class-level facts, never a
kind's own fields; these tests pin what those say for entries whose
answers the stubs and the plugin depend on.
"""

from __future__ import annotations

import pytest

from typing_pkg.api import table
from typing_pkg.api.kinds import KINDS, Call, Kind, Param, UnknownOperand


@pytest.mark.parametrize(
    ("spec", "param"),
    [
        ("x", Param("x")),
        ("arrays[]", Param("arrays", sequence=True)),
        ("*args", Param("args", sequence=True, optional=True)),
        ("min?", Param("min", optional=True)),
        ("dx=py_float", Param("dx", optional=True, default="py_float")),
        ("=py_int", Param("", optional=True, default="py_int")),
        ("~condlist[]", Param("condlist", sequence=True, ignored=True)),
    ],
)
def test_a_spec_parses_to_its_param_and_back(spec: str, param: Param) -> None:
    assert Param.parse(spec) == param
    assert param.spec == spec
    assert param.constant == (spec.startswith("="))


def test_every_entry_has_its_params_parsed_once_and_written_back_alike() -> None:
    for kind in table().values():
        assert all(isinstance(p, Param) for p in kind.params)
        assert all(Param.parse(p.spec) == p for p in kind.params)
        assert kind.params is kind.params  # made with the kind, not on each read


@pytest.mark.parametrize(
    ("function", "reads", "checks", "branches"),
    [
        # ldexp checks that y is an integer; the result reads x only
        ("jax.numpy.ldexp", {"x"}, {"y"}, 0),
        # bincount(x) reads x, bincount(x, weights) weights: both, through the branches
        ("jax.numpy.bincount", {"x", "weights"}, set[str](), 2),
        ("jax.numpy.where", {"x", "y"}, set[str](), 2),
        ("jax.numpy.setdiff1d", {"ar1"}, {"ar2"}, 0),
        ("jax.Array.at.divide", {"self"}, {"values"}, 0),
        # an outputs kind gathers its outputs' parameters
        ("jax.lax.sort_key_val", {"keys", "values"}, set[str](), 0),
        ("jax.numpy.zeros", set[str](), set[str](), 0),
    ],
)
def test_what_an_entry_reads_and_checks(
    function: str, reads: set[str], checks: set[str], branches: int
) -> None:
    kind = table()[function]
    assert kind.reads() == reads
    assert kind.checks() == checks
    assert len(kind.branches()) == branches


def test_the_class_level_facts() -> None:
    entries = table()
    assert not entries["jax.numpy.float32"].returns_arrays
    assert entries["jax.numpy.add"].returns_arrays
    assert not entries["jax.numpy.apply_along_axis"].modelled
    assert not entries["jax.numpy.float32"].modelled
    assert entries["jax.numpy.array"].takes_values
    assert not entries["jax.numpy.exp"].takes_values
    assert entries["jax.numpy.maximum"].joins_operands
    assert entries["jax.lax.add"].one_dtype
    assert not entries["jax.numpy.maximum"].one_dtype


def test_every_kind_answers_the_interface() -> None:
    for kind_type in KINDS:
        assert issubclass(kind_type, Kind)
        assert kind_type.kind and kind_type.summary


def test_the_unknown_operands_travel_beside_the_arguments_not_in_the_options() -> None:
    call = Call("jax.numpy.exp", {}, {}, (UnknownOperand("x", False, "floating"),))
    assert call.options == {}
    assert call.unknown[0].category == "floating"
    assert Call("jax.numpy.exp").unknown == ()
