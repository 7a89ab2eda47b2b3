"""A character-level recurrent network: train on a short text, then sample from it.

Text bytes are read with NumPy as uint8 and mapped to int32 token ids; the
recurrence is a ``lax.scan``; gradients are clipped by their global norm
with ``jax.tree_util``; sampling rebinds ``token`` and ``state`` in a Python
loop and keeps integer positions.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

TEXT = (
    "the quick brown fox jumps over the lazy dog. "
    "a journey of a thousand miles begins with a single step. "
) * 4


def build_vocab(text):
    raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    chars = np.unique(raw)
    lookup = np.zeros(256, dtype=np.int32)
    lookup[chars] = np.arange(len(chars), dtype=np.int32)
    return lookup[raw], chars


def init_params(key, vocab_size, hidden):
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "embed": 0.1 * jax.random.normal(k1, (vocab_size, hidden)),
        "w_hh": jnp.eye(hidden) * 0.5 + 0.05 * jax.random.normal(k2, (hidden, hidden)),
        "b_h": jnp.zeros(hidden),
        "w_out": 0.1 * jax.random.normal(k3, (hidden, vocab_size)),
        "b_out": jnp.zeros(vocab_size),
    }


def rnn_cell(params, state, token):
    x = params["embed"][token]
    state = jnp.tanh(x + state @ params["w_hh"] + params["b_h"])
    logits = state @ params["w_out"] + params["b_out"]
    return state, logits


def sequence_loss(params, inputs, targets):
    state0 = jnp.zeros(params["w_hh"].shape[0])
    _, logits = lax.scan(lambda s, t: rnn_cell(params, s, t), state0, inputs)
    log_probs = jax.nn.log_softmax(logits)
    picked = jnp.take_along_axis(log_probs, targets[:, None], axis=1)
    return -jnp.mean(picked)


def clip_by_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in leaves))
    factor = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    return jax.tree_util.tree_map(lambda g: g * factor, grads), norm


@jax.jit
def train_step(params, inputs, targets, lr):
    loss, grads = jax.value_and_grad(sequence_loss)(params, inputs, targets)
    grads, norm = clip_by_global_norm(grads, 1.0)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss, norm


@jax.jit
def sample_step(params, state, token, key, temperature):
    state, logits = rnn_cell(params, state, token)
    next_token = jax.random.categorical(key, logits / temperature)
    return state, next_token


def main():
    tokens, chars = build_vocab(TEXT)
    vocab_size, hidden, window = len(chars), 32, 24
    key = jax.random.PRNGKey(0)
    key, init_key = jax.random.split(key)
    params = init_params(init_key, vocab_size, hidden)
    data = jnp.asarray(tokens)

    pos = 0
    for step in range(80):
        inputs = lax.dynamic_slice_in_dim(data, pos, window)
        targets = lax.dynamic_slice_in_dim(data, pos + 1, window)
        params, loss, norm = train_step(params, inputs, targets, 0.5)
        pos = (pos + window) % (len(tokens) - window - 1)
        if step % 20 == 0:
            print(f"step {step:2d} loss {loss:.3f} grad norm {norm:.2f}")

    state = jnp.zeros(hidden)
    token = data[0]
    generated = [int(token)]
    for _ in range(40):
        key, sample_key = jax.random.split(key)
        state, token = sample_step(params, state, token, sample_key, 0.5)
        generated.append(int(token))
    text = bytes(chars[np.asarray(generated)]).decode("ascii")
    print("sample:", repr(text))


if __name__ == "__main__":
    main()
