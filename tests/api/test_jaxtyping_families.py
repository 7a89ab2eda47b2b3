"""jaxtyping's dtype families against jaxtyping itself: each maps to the marker of its dtypes.

The truth is jaxtyping's own ``dtypes`` list of each family (the test extras
install it).  A family maps to the marker whose
concrete dtypes, among those jaxtyping knows, are exactly the family's; one
mapped to ``None`` has no such marker.
"""

from __future__ import annotations

import jaxtyping
import pytest

from typing_pkg.api.jaxtyping_families import FAMILIES
from typing_pkg.dtypelike import marker_named
from typing_pkg.dtypes import BY_NAME, CONCRETE, EXTENDED


def _family_dtypes() -> dict[str, frozenset[str] | None]:
    """Each of jaxtyping's families with its dtypes (``None``: any dtype, as ``Shaped``)."""
    found: dict[str, frozenset[str] | None] = {}
    for name in dir(jaxtyping):
        dtypes = getattr(getattr(jaxtyping, name), "dtypes", None)
        if isinstance(dtypes, tuple | list):
            found[name] = frozenset(_marker(str(d)) for d in dtypes)
        elif dtypes is not None:
            found[name] = None
    return found


def _marker(dtype: str) -> str:
    """The marker's name of a dtype jaxtyping names (``bool`` is ``bool_``; a dtype no marker
    names, ``prng_key``, stays as it is)."""
    found = marker_named(dtype)
    return dtype if found is None else found.name


def _known(families: dict[str, frozenset[str] | None]) -> frozenset[str]:
    return frozenset().union(*(d for d in families.values() if d is not None))


def _members(marker: str, known: frozenset[str]) -> frozenset[str]:
    cls = BY_NAME[marker]
    return frozenset(
        m.name for m in (*CONCRETE, *EXTENDED) if issubclass(m, cls) and m.name in known
    )


def test_every_family_of_jaxtyping_is_listed() -> None:
    assert set(_family_dtypes()) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_family_maps_to_the_marker_of_its_dtypes(family: str) -> None:
    families = _family_dtypes()
    known = _known(families)
    dtypes = families[family]
    marker = FAMILIES[family]
    if marker is not None:
        assert dtypes is not None, f"{family} takes any dtype: no marker is that"
        assert _members(marker, known) == dtypes
        return
    candidates = [m for m in BY_NAME if dtypes is not None and _members(m, known) == dtypes]
    assert candidates == [], f"{family} is {candidates[0]}: map it"
