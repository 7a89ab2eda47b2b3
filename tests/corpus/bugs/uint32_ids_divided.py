"""Count how many hashed ids fall in each shard.

The ids are uint32 hashes; ``ids / shard_size`` is true division and gives
float32 shard numbers, which ``jnp.bincount`` rejects (``ids // shard_size``
was meant).
"""

import jax.numpy as jnp
import numpy as np


def hash_ids(raw):
    h = jnp.asarray(raw, dtype=jnp.uint32) * np.uint32(0x9E3779B1)
    return h ^ (h >> 16)


def shard_histogram(ids, num_shards):
    shard_size = 2**32 // num_shards
    shards = ids / shard_size
    return jnp.bincount(shards, length=num_shards)  # BUG: shards = ids / shard_size is float32


def main():
    raw = np.arange(1000, dtype=np.uint32)
    ids = hash_ids(raw)
    counts = shard_histogram(ids, 8)
    print("ids per shard:", counts.tolist())


if __name__ == "__main__":
    main()
