"""The lattice laws, checked by hypothesis on every rule set whose promotion is a lattice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from typing_pkg.lattice import Lattice, LatticeError, verify
from typing_pkg.rules import get_rules, names

LATTICE_RULES = [n for n in names() if isinstance(get_rules(n).promotion, Lattice)]


def test_the_jax_rule_sets_are_lattices() -> None:
    assert {"jax", "jax-x64", "jax-strict"} <= set(LATTICE_RULES)


@pytest.mark.parametrize("rules", LATTICE_RULES)
def test_laws_hold_on_random_triples(rules: str) -> None:
    lattice = get_rules(rules).promotion
    assert isinstance(lattice, Lattice)
    types = st.sampled_from(lattice.types)

    @settings(max_examples=400, deadline=None)
    @given(types, types, types)
    def laws(a: str, b: str, c: str) -> None:
        join = lattice.join
        assert join(a, a) == a
        assert join(a, b) == join(b, a)
        ab, bc = join(a, b), join(b, c)
        left = None if ab is None else join(ab, c)
        right = None if bc is None else join(a, bc)
        assert left == right
        if ab is not None:  # the join is an upper bound, and the least one
            assert lattice.leq(a, ab) and lattice.leq(b, ab)
            for upper in lattice.upper_bounds[a] & lattice.upper_bounds[b]:
                assert lattice.leq(ab, upper)

    laws()


@pytest.mark.parametrize("rules", LATTICE_RULES)
def test_verify_checks_every_triple(rules: str) -> None:
    report = verify(get_rules(rules).promotion)
    assert report.ok, report
    assert report.types == len(get_rules(rules).promotion.types)


def test_a_cycle_is_rejected_naming_a_pair() -> None:
    with pytest.raises(LatticeError, match=r"a and b lie on a cycle \(a -> b -> a\)"):
        Lattice({"a": ["b"], "b": ["a"]})


def test_two_minimal_upper_bounds_are_rejected_naming_the_pair() -> None:
    # a and b are both below c and d, which are incomparable: no least upper bound.
    with pytest.raises(LatticeError, match=r"a and b have no least upper bound.*c, d"):
        Lattice({"a": ["c", "d"], "b": ["c", "d"], "c": ["top"], "d": ["top"]})


def test_types_without_common_upper_bound_have_no_join() -> None:
    lattice = Lattice({"a": ["c"], "b": [], "c": []})
    assert lattice.join("a", "b") is None
    assert lattice.join("a", "c") == "c"
    assert lattice.join_all(["a", "c", "a"]) == "c"
    assert lattice.join_all(["a", "b"]) is None


def test_verify_finds_a_non_associative_table() -> None:
    from typing_pkg.lattice import PromotionTable

    # (x∨w)∨y = w∨y = y but x∨(w∨y) = x∨y = z: the kind of table NumPy's scalars give.
    table = {
        ("x", "x"): "x", ("y", "y"): "y", ("z", "z"): "z", ("w", "w"): "w",
        ("x", "y"): "z", ("y", "x"): "z", ("y", "w"): "y", ("w", "y"): "y",
        ("z", "w"): "z", ("w", "z"): "z", ("x", "w"): "w", ("w", "x"): "w",
        ("x", "z"): "z", ("z", "x"): "z", ("y", "z"): "z", ("z", "y"): "z",
    }  # fmt: skip
    report = verify(PromotionTable(("x", "y", "z", "w"), table))
    assert not report.ok
    assert ("x", "w", "y") in report.not_associative
