"""A user's own lattice as a rule set."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import typing_pkg as tp
from typing_pkg.lattice import LatticeError
from typing_pkg.rules import (
    Undefined,
    UnknownRulesError,
    get_rules,
    names,
    register,
    unregister,
)
from typing_pkg.rules.custom import LatticeRules

EDGES = {
    "bool_": ("weak_int",),
    "weak_int": ("int8",),
    "int8": ("int16",),
    "int16": (),
    "weak_float": ("float16",),
    "float16": ("float32",),
    "float32": ("complex64",),
    "complex64": (),
}


@pytest.fixture(autouse=True)
def _forget_custom_rules() -> Iterator[None]:
    yield
    mine = ("strict-floats", "mine", "my_rules:RULES")
    for name in mine:
        unregister(name)
    assert not set(mine) & set(names())


def test_a_custom_lattice_drives_promotion_and_operators() -> None:
    rules = LatticeRules("strict-floats", EDGES)
    register(rules)
    assert "strict-floats" in names()
    assert tp.promote_types("int8", int, rules="strict-floats") is tp.int8
    assert tp.promote_types("float16", "float32", rules="strict-floats") is tp.float32
    with pytest.raises(tp.PromotionError, match="int8 and float16 have no promotion"):
        tp.promote_types("int8", "float16", rules="strict-floats")
    assert rules.result("add", "int8", "py_int") == "int8"
    assert rules.result("lt", "float16", "float32") == "bool_"
    assert rules.result("abs", "complex64") == "float32"
    assert isinstance(rules.result("truediv", "int8", "int8"), Undefined)
    assert isinstance(rules.result("and", "float16", "float16"), Undefined)
    assert isinstance(rules.result("sub", "int8", "float16"), Undefined)


def test_true_division_can_map_integers_to_a_float() -> None:
    rules = LatticeRules("divides", EDGES, true_divide={"int8": "float16", "int16": "float32"})
    assert rules.result("truediv", "int8", "py_int") == "float16"


def test_edges_that_are_not_a_lattice_are_rejected_naming_a_pair() -> None:
    with pytest.raises(LatticeError, match="int8 and int16 lie on a cycle"):
        LatticeRules("cyclic", {"int8": ("int16",), "int16": ("int8",)})
    with pytest.raises(LatticeError, match="int8 and uint8 have no least upper bound"):
        LatticeRules(
            "ambiguous",
            {
                "int8": ("int16", "float16"),
                "uint8": ("int16", "float16"),
                "int16": (),
                "float16": (),
            },
        )
    with pytest.raises(LatticeError, match="'float99' is not a marker"):
        LatticeRules("unknown", {"int8": ("float99",)})


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        (
            [("int8", "int16")],
            "not a lattice of dtypes: the edges must be a mapping from each marker name to the "
            "names immediately above it (such as {'int8': ('int16',), 'int16': ()}), not a list",
        ),
        (
            {"int8": "int16"},
            "not a lattice of dtypes: the types above 'int8' must be a tuple or list of marker "
            "names (such as {'int8': ('int16',), 'int16': ()}), not 'int16'",
        ),
        (
            {"int8": None},
            "not a lattice of dtypes: the types above 'int8' must be a tuple or list of marker "
            "names (such as {'int8': ('int16',), 'int16': ()}), not None",
        ),
        ({8: ()}, "not a lattice of dtypes: the edges' keys must be marker names, not 8"),
        (
            {"int8": ("int16", 16)},
            "not a lattice of dtypes: the types above 'int8' must be marker names, not 16",
        ),
        (
            {"int8": ("flaot32", "int99x")},
            "not a lattice of dtypes: 'flaot32' (did you mean 'float32'?), 'int99x' are not "
            "markers",
        ),
        (
            {"int8": ("floating",)},
            "not a lattice of dtypes: 'floating': a category of dtypes cannot be a node of the "
            "lattice (name the dtypes it holds)",
        ),
    ],
)
def test_edges_of_another_shape_are_rejected_saying_what_is_expected(
    edges: object, message: str
) -> None:
    with pytest.raises(LatticeError) as raised:
        LatticeRules("shapes", edges)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_successors_may_be_any_iterable_of_names() -> None:
    rules = LatticeRules("iterables", {"int8": ["int16"], "int16": iter(["int32"])})
    assert rules.promotion.types == ("int8", "int16", "int32")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"accepts": {"truedv": "fc"}},
            "accepts: 'truedv' is not an operator (did you mean 'truediv'?); valid names: add,",
        ),
        (
            {"accepts": {"and": "bx"}},
            "accepts: the kinds 'and' accepts must be a string of the letters b, i, u, f and c",
        ),
        (
            {"true_divide": {"int8": "flaot16"}},
            "true_divide: 'flaot16' is not a type of the lattice (did you mean 'float16'?)",
        ),
        ({"true_divide": [("int8", "float16")]}, "true_divide must map a type of the lattice"),
    ],
)
def test_misspelt_options_are_rejected(options: dict[str, object], message: str) -> None:
    with pytest.raises(LatticeError) as raised:
        LatticeRules("options", {"int8": ("float16",)}, **options)  # type: ignore[arg-type]
    assert str(raised.value).startswith(message)


def test_builtin_names_cannot_be_replaced() -> None:
    with pytest.raises(ValueError, match="built-in"):
        register(LatticeRules("jax", EDGES))


def test_a_rule_set_can_be_named_by_module_and_attribute(tmp_path: Path) -> None:
    (tmp_path / "my_rules.py").write_text(
        textwrap.dedent(
            f"""
            from typing_pkg.rules.custom import LatticeRules
            RULES = LatticeRules("mine", {EDGES!r})
            NOT_RULES = 3
            """
        )
    )
    sys.path.insert(0, str(tmp_path))
    try:
        assert get_rules("my_rules:RULES").name == "mine"
        assert get_rules("mine") is get_rules("my_rules:RULES")
        with pytest.raises(UnknownRulesError, match="is a int, not a RuleSet"):
            get_rules("my_rules:NOT_RULES")
        with pytest.raises(UnknownRulesError, match="cannot load rule set 'no_such_module:X'"):
            get_rules("no_such_module:X")
        with pytest.raises(
            UnknownRulesError,
            match=r"module 'my_rules' has no attribute 'RULE' \(did you mean 'RULES'\?\)",
        ):
            get_rules("my_rules:RULE")
    finally:
        sys.path.remove(str(tmp_path))


def test_a_module_whose_rules_are_broken_raises_their_error(tmp_path: Path) -> None:
    """The module's own exception, not "cannot load": the mypy plugin and verify report it."""
    (tmp_path / "broken_rules.py").write_text(
        "from typing_pkg.rules.custom import LatticeRules\n"
        "RULES = LatticeRules('broken', {'int8': ('int16',), 'int16': ('int8',)})\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(LatticeError, match="int8 and int16 lie on a cycle"):
            get_rules("broken_rules:RULES")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("broken_rules", None)


@pytest.mark.parametrize(
    ("name", "meant"),
    [("JAX", "jax"), ("Numpy", "numpy"), ("array_api", "array-api"), ("nmpy", "numpy")],
)
def test_an_unknown_name_suggests_the_close_one(name: str, meant: str) -> None:
    with pytest.raises(UnknownRulesError) as raised:
        get_rules(name)
    assert str(raised.value).startswith(f"unknown rule set {name!r} (did you mean {meant!r}?); ")
    assert "valid names: jax" in str(raised.value)
