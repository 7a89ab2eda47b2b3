"""A small decoder-only transformer trained with mixed precision, written as JAX users write one.

Parameters are a dict of float32 arrays; the forward pass runs in bfloat16
(params cast at the top of each layer), layers are stacked and scanned over
with ``lax.scan``, the loss is per-example through ``vmap``,
``value_and_grad(has_aux=True)`` gives the gradients, and Adam is written
with ``jax.tree.map``.  Helpers are annotated in jaxtyping's style.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jaxtyping import Array, Float, Float32, Int

VOCAB = 64
D_MODEL = 32
N_HEADS = 4
N_LAYERS = 2
SEQ = 16
BATCH = 8
COMPUTE = jnp.bfloat16


def init_layer(key, d_model):
    k1, k2, k3, k4 = jax.random.split(key, 4)
    scale = 1.0 / np.sqrt(d_model)
    return {
        "wqkv": jax.random.normal(k1, (d_model, 3 * d_model)) * scale,
        "wo": jax.random.normal(k2, (d_model, d_model)) * scale,
        "w1": jax.random.normal(k3, (d_model, 4 * d_model)) * scale,
        "w2": jax.random.normal(k4, (4 * d_model, d_model)) * scale,
        "ln1": jnp.ones((d_model,)),
        "ln2": jnp.ones((d_model,)),
    }


def init(key):
    k_embed, k_layers = jax.random.split(key)
    layer_keys = jax.random.split(k_layers, N_LAYERS)
    layers = [init_layer(k, D_MODEL) for k in layer_keys]
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *layers)
    embed = jax.random.normal(k_embed, (VOCAB, D_MODEL)) * 0.02
    return {"embed": embed, "layers": stacked, "ln_f": jnp.ones((D_MODEL,))}


def rms_norm(x: Float[Array, "s d"], scale: Float32[Array, " d"]) -> Float[Array, "s d"]:
    x32 = x.astype(jnp.float32)
    var = jnp.mean(x32 * x32, axis=-1, keepdims=True)
    normed = x32 * lax.rsqrt(var + 1e-6)
    return (normed * scale).astype(x.dtype)


def attention(x, wqkv, wo):
    seq, d = x.shape
    head = d // N_HEADS
    qkv = x @ wqkv
    q, k, v = jnp.split(qkv, 3, axis=-1)
    q = q.reshape(seq, N_HEADS, head)
    k = k.reshape(seq, N_HEADS, head)
    v = v.reshape(seq, N_HEADS, head)
    logits = jnp.einsum("qhd,khd->hqk", q, k) / np.sqrt(head).astype(np.float32)
    mask = jnp.tril(jnp.ones((seq, seq), dtype=bool))
    logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
    weights = jax.nn.softmax(logits.astype(jnp.float32), axis=-1).astype(x.dtype)
    out = jnp.einsum("hqk,khd->qhd", weights, v).reshape(seq, d)
    return out @ wo


def block(x, layer):
    layer = jax.tree.map(lambda p: p.astype(COMPUTE), layer)
    h = rms_norm(x, layer["ln1"])
    x = x + attention(h, layer["wqkv"], layer["wo"])
    h = rms_norm(x, layer["ln2"])
    hidden = jax.nn.gelu(h @ layer["w1"])
    x = x + hidden @ layer["w2"]
    return x, None


def forward(params, tokens: Int[Array, " s"]):
    embed = params["embed"].astype(COMPUTE)
    x = embed[tokens]
    x, _ = lax.scan(block, x, params["layers"])
    x = rms_norm(x, params["ln_f"].astype(COMPUTE))
    logits = x @ embed.T
    return logits


def example_loss(params, tokens, targets):
    logits = forward(params, tokens).astype(jnp.float32)
    logp = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, targets[:, None], axis=-1)[:, 0]
    return -jnp.mean(picked)


def loss_fn(params, batch):
    tokens, targets = batch
    losses = jax.vmap(example_loss, in_axes=(None, 0, 0))(params, tokens, targets)
    loss = jnp.mean(losses)
    accuracy = jnp.mean(
        jnp.argmax(jax.vmap(forward, in_axes=(None, 0))(params, tokens), axis=-1) == targets
    )
    return loss, accuracy


def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return {"mu": zeros, "nu": zeros, "step": jnp.zeros((), jnp.int32)}


def adam_update(params, grads, state, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    step = state["step"] + 1
    mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["mu"], grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state["nu"], grads)
    t = step.astype(jnp.float32)
    mu_hat = jax.tree.map(lambda m: m / (1 - b1**t), mu)
    nu_hat = jax.tree.map(lambda v: v / (1 - b2**t), nu)
    new_params = jax.tree.map(
        lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, mu_hat, nu_hat
    )
    return new_params, {"mu": mu, "nu": nu, "step": step}


@jax.jit
def train_step(params, opt_state, batch):
    (loss, accuracy), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
    grad_norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    params, opt_state = adam_update(params, grads, opt_state)
    return params, opt_state, loss, accuracy, grad_norm


def make_batch(rng):
    data = rng.integers(0, VOCAB, size=(BATCH, SEQ + 1), dtype=np.int32)
    tokens = jnp.asarray(data[:, :-1])
    targets = jnp.asarray(data[:, 1:])
    return tokens, targets


def main():
    key = jax.random.key(0)
    params = init(key)
    opt_state = adam_init(params)
    rng = np.random.default_rng(0)
    for step in range(3):
        batch = make_batch(rng)
        params, opt_state, loss, accuracy, grad_norm = train_step(params, opt_state, batch)
        print(step, float(loss), float(accuracy), float(grad_norm))
    embed = params["embed"]
    print(embed.dtype, opt_state["step"])


if __name__ == "__main__":
    main()
