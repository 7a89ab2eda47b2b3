"""This project's own promotion rules: "option 0" of JAX's design note.

Integers and floats never mix implicitly (an explicit ``astype`` is needed),
Python scalars still adapt to any array, and nothing is ever promoted to 64
bits.  Use it with ``promotion = mixed_precision.rules:OPTION0`` in the mypy
configuration, or ``rules="mixed_precision.rules:OPTION0"`` at run time.
"""

from __future__ import annotations

from typing_pkg.rules.custom import LatticeRules

OPTION0 = LatticeRules(
    "option0",
    {
        "bool_": ["weak_int"],
        "weak_int": ["uint8", "int8", "weak_float"],
        "uint8": ["uint16", "int16"],
        "uint16": ["uint32", "int32"],
        "uint32": [],
        "int8": ["int16"],
        "int16": ["int32"],
        "int32": [],
        "weak_float": ["bfloat16", "float16", "weak_complex"],
        "bfloat16": ["float32"],
        "float16": ["float32"],
        "float32": ["complex64"],
        "weak_complex": ["complex64"],
        "complex64": [],
    },
    title="integers and floats never mix; nothing becomes 64-bit",
)
