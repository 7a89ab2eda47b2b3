"""Post-training quantisation of a small network: int8 and float8 weights, hashed features.

Weights are quantised per output channel to int8 (integer matmul with an
int32 accumulator) and to float8_e4m3fn (matmul accumulating in float32);
categorical features are hashed with uint32 arithmetic into embedding
buckets; outputs are returned in float16 for a downstream consumer.
"""

import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = 0x9E3779B1


def hash_ids(ids, num_buckets, seed):
    h = ids.astype(jnp.uint32) * jnp.uint32(GOLDEN) + jnp.uint32(seed)
    h = h ^ (h >> 15)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    return h % jnp.uint32(num_buckets)


def embed_features(table, ids):
    buckets = hash_ids(ids, table.shape[0], seed=17)
    return table[buckets].sum(axis=1)


def quantize_int8(w):
    scale = jnp.max(jnp.abs(w), axis=0, keepdims=True) / 127.0
    q = jnp.clip(jnp.round(w / scale), -127, 127).astype(jnp.int8)
    return q, scale


def quantize_activations(x):
    scale = jnp.max(jnp.abs(x)) / 127.0
    q = jnp.clip(jnp.round(x / scale), -127, 127).astype(jnp.int8)
    return q, scale


def int8_dense(x, w_q, w_scale, b):
    x_q, x_scale = quantize_activations(x)
    acc = jnp.matmul(x_q, w_q, preferred_element_type=jnp.int32)
    return acc.astype(jnp.float32) * (x_scale * w_scale) + b


def fp8_dense(x, w, b):
    w_scale = jnp.max(jnp.abs(w)) / 448.0
    x_scale = jnp.max(jnp.abs(x)) / 448.0
    w8 = (w / w_scale).astype(jnp.float8_e4m3fn)
    x8 = (x / x_scale).astype(jnp.float8_e4m3fn)
    y = jnp.dot(x8, w8, preferred_element_type=jnp.float32)
    return y * (x_scale * w_scale) + b


def value_range(x):
    """The smallest and largest entries, in the array's own dtype (exact for any dtype)."""
    flat = jnp.ravel(x)
    lo, hi = flat.min(), flat.max()
    return lo, hi


def reference_dense(x, w, b):
    return x @ w + b


@jax.jit
def predict_all(table, ids, w1, b1, w2, b2):
    x = embed_features(table, ids)
    h_ref = jax.nn.relu(reference_dense(x, w1, b1))
    out_ref = reference_dense(h_ref, w2, b2)

    w1_q, w1_scale = quantize_int8(w1)
    w2_q, w2_scale = quantize_int8(w2)
    h_int8 = jax.nn.relu(int8_dense(x, w1_q, w1_scale, b1))
    out_int8 = int8_dense(h_int8, w2_q, w2_scale, b2)

    h_fp8 = jax.nn.relu(fp8_dense(x, w1, b1))
    out_fp8 = fp8_dense(h_fp8, w2, b2)
    outputs = jnp.stack([out_ref, out_int8, out_fp8])
    return outputs.astype(jnp.float16)


@jax.jit
def compare(outputs):
    """Max abs error and argmax agreement of each quantised output against the reference."""
    reference = outputs[0].astype(jnp.float32)
    quantized = outputs[1:].astype(jnp.float32)
    errors = jnp.max(jnp.abs(quantized - reference), axis=(1, 2))
    agreement = jnp.mean(jnp.argmax(quantized, axis=-1) == jnp.argmax(reference, axis=-1), axis=1)
    return errors, agreement


def main():
    rng = np.random.default_rng(21)
    num_buckets, dim, hidden, classes = 64, 16, 32, 4
    key = jax.random.key(3)
    k_table, k1, k2 = jax.random.split(key, 3)
    table = 0.5 * jax.random.normal(k_table, (num_buckets, dim))
    w1 = jax.random.normal(k1, (dim, hidden)) / np.sqrt(dim)
    b1 = jnp.zeros(hidden)
    w2 = jax.random.normal(k2, (hidden, classes)) / np.sqrt(hidden)
    b2 = jnp.zeros(classes)

    raw_ids = rng.integers(0, 1_000_000, size=(128, 3), dtype=np.int64)
    ids = jnp.asarray(raw_ids % 2**31, dtype=jnp.int32)
    outputs = predict_all(table, ids, w1, b1, w2, b2)
    errors, agreement = compare(outputs)
    int8_error, fp8_error = errors
    agree_int8, agree_fp8 = agreement
    print(f"outputs {outputs.dtype} {outputs.shape}")
    print(f"int8: max error {int8_error:.4f}, argmax agreement {agree_int8:.3f}")
    print(f"fp8:  max error {fp8_error:.4f}, argmax agreement {agree_fp8:.3f}")
    buckets = hash_ids(ids[:, 0], num_buckets, seed=17)
    counts = jnp.bincount(buckets.astype(jnp.int32), length=num_buckets)
    for name, array in (("w1", w1), ("w1 int8", quantize_int8(w1)[0]), ("outputs", outputs)):
        lo, hi = value_range(array)
        print(f"{name:8s} {array.dtype!s:8s} range [{float(lo):.3f}, {float(hi):.3f}]")
    fullest = int(counts.max())
    print(f"bucket dtype {buckets.dtype}; fullest bucket holds {fullest} of {ids.shape[0]}")


if __name__ == "__main__":
    main()
