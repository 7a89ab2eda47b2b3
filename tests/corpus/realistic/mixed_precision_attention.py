"""A one-block attention model trained in mixed precision.

Master weights are float32; each step casts them to bfloat16 for the forward
and backward passes, computes the softmax and the loss in float32, and
applies the float32 gradients to the master copy.  The loss is scaled by a
dynamic loss scale, as one does for float16 training; activations are kept in
float16 for a cheap summary.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

COMPUTE_DTYPE = jnp.bfloat16


def init(key, vocab, d_model, d_ff):
    keys = jax.random.split(key, 4)
    scale = d_model**-0.5
    return {
        "embed": jax.random.normal(keys[0], (vocab, d_model)) * scale,
        "wqkv": jax.random.normal(keys[1], (d_model, 3 * d_model)) * scale,
        "w1": jax.random.normal(keys[2], (d_model, d_ff)) * scale,
        "w2": jax.random.normal(keys[3], (d_ff, d_model)) * d_ff**-0.5,
        "ln_scale": jnp.ones((d_model,)),
        "ln_bias": jnp.zeros((d_model,)),
    }


def layer_norm(x, scale, bias, eps=1e-5):
    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axis=-1, keepdims=True)
    var = jnp.var(x32, axis=-1, keepdims=True)
    normed = (x32 - mean) * jax.lax.rsqrt(var + eps)
    return (normed * scale + bias).astype(x.dtype)


def attention(q, k, v, mask):
    d = q.shape[-1]
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(d).astype(q.dtype)
    scores = scores.astype(jnp.float32)
    scores = jnp.where(mask, scores, -1e9)
    weights = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("bqk,bkd->bqd", weights.astype(v.dtype), v)


def forward(params, tokens):
    p = jax.tree.map(lambda x: x.astype(COMPUTE_DTYPE), params)
    x = p["embed"][tokens]
    seq = tokens.shape[1]
    mask = jnp.tril(jnp.ones((seq, seq), dtype=bool))[None]
    q, k, v = jnp.split(x @ p["wqkv"], 3, axis=-1)
    x = x + attention(q, k, v, mask)
    h = layer_norm(x, p["ln_scale"], p["ln_bias"])
    h = jax.nn.gelu(h @ p["w1"])
    x = x + h @ p["w2"]
    logits = x @ p["embed"].T
    return logits.astype(jnp.float32), h


def loss_fn(params, tokens, loss_scale):
    logits, hidden = forward(params, tokens[:, :-1])
    targets = tokens[:, 1:]
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    nll = -jnp.take_along_axis(log_probs, targets[..., None], axis=-1)[..., 0]
    loss = jnp.mean(nll)
    return loss * loss_scale, (loss, hidden)


@partial(jax.jit, donate_argnums=(0,))
def train_step(params, tokens, loss_scale, lr):
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (_, (loss, hidden)), grads = grad_fn(params, tokens, loss_scale)
    grads = jax.tree.map(lambda g: g.astype(jnp.float32) / loss_scale, grads)
    finite = jax.tree.reduce(jnp.logical_and, jax.tree.map(lambda g: jnp.isfinite(g).all(), grads))
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    params = jax.tree.map(lambda new, old: jnp.where(finite, new, old), new_params, params)
    loss_scale = jnp.where(finite, loss_scale, loss_scale / 2)
    activations = hidden.astype(jnp.float16)
    return params, loss, loss_scale, activations


def main():
    vocab, d_model, d_ff, seq, batch = 32, 16, 32, 12, 8
    rng = np.random.default_rng(1)
    corpus = rng.integers(0, vocab, size=(64, seq + 1)).astype(np.int32)
    corpus[:, 1::2] = (corpus[:, 0:-1:2] + 1) % vocab  # a learnable pattern

    params = init(jax.random.PRNGKey(0), vocab, d_model, d_ff)
    loss_scale = jnp.float32(2.0**10)
    lr = 0.5
    for step in range(40):
        rows = rng.integers(0, corpus.shape[0], size=batch)
        tokens = jnp.asarray(corpus[rows])
        params, loss, loss_scale, activations = train_step(params, tokens, loss_scale, lr)
        if step % 10 == 0:
            act_rms = jnp.sqrt(jnp.mean(activations.astype(jnp.float32) ** 2))
            print(f"step {step:2d} loss {loss:.3f} scale {loss_scale:.0f} act rms {act_rms:.3f}")
    print("master dtype:", params["wqkv"].dtype, "activation dtype:", activations.dtype)


if __name__ == "__main__":
    main()
