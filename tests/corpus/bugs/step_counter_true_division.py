"""Look up a warm-up learning rate from a table indexed by the step counter.

The counter is an int32 array; ``step / 2`` is JAX's true division and
gives float32, and a float array cannot index (``step // 2`` was meant).
"""

import jax.numpy as jnp


def warmup_table(num_entries, peak):
    return peak * jnp.linspace(0.0, 1.0, num_entries)


def learning_rate(table, step):
    idx = jnp.minimum(step / 2, table.shape[0] - 1)
    return table[idx]  # BUG: idx = step / 2 is float32 (true division); an index must be integer


def main():
    table = warmup_table(10, 0.1)
    step = jnp.zeros((), dtype=jnp.int32)
    for _ in range(5):
        lr = learning_rate(table, step)
        print(f"step {int(step)}: learning rate {lr:.4f}")
        step = step + 1


if __name__ == "__main__":
    main()
