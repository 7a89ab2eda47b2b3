"""Differentially private SGD for a two-layer network on synthetic tabular data.

Per-example gradients come from ``vmap(grad(...))``; each is clipped to a
maximum L2 norm, they are summed, Gaussian noise is added with a key folded
in with the step number, and the average updates the parameters.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree


def init_mlp(key, sizes):
    params = []
    layer_keys = jax.random.split(key, len(sizes) - 1)
    for layer_key, (n_in, n_out) in zip(layer_keys, itertools.pairwise(sizes), strict=True):
        w = jax.random.normal(layer_key, (n_in, n_out)) / jnp.sqrt(n_in)
        params.append({"w": w, "b": jnp.zeros(n_out)})
    return params


def mlp(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    last = params[-1]
    return x @ last["w"] + last["b"]


def example_loss(params, x, y):
    logits = mlp(params, x[None, :])[0]
    return -jax.nn.log_softmax(logits)[y]


def clipped_noisy_grad(params, xs, ys, key, l2_clip, noise_multiplier):
    per_example = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, xs, ys)
    flat, unravel = ravel_pytree(jax.tree.map(lambda g: g[0], per_example))
    del flat

    def clip_one(grads):
        vector, _ = ravel_pytree(grads)
        norm = jnp.linalg.norm(vector)
        return vector / jnp.maximum(1.0, norm / l2_clip)

    clipped = jax.vmap(clip_one)(per_example)
    total = jnp.sum(clipped, axis=0)
    noise = noise_multiplier * l2_clip * jax.random.normal(key, total.shape)
    return unravel((total + noise) / xs.shape[0])


@jax.jit
def dp_step(params, xs, ys, key, step, lr=0.5, l2_clip=1.0, noise_multiplier=0.5):
    step_key = jax.random.fold_in(key, step)
    grads = clipped_noisy_grad(params, xs, ys, step_key, l2_clip, noise_multiplier)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


@jax.jit
def accuracy(params, xs, ys):
    predictions = jnp.argmax(mlp(params, xs), axis=-1)
    return jnp.mean(predictions == ys)


def main():
    rng = np.random.default_rng(9)
    n, d, classes = 400, 6, 3
    centers = rng.normal(scale=2.0, size=(classes, d))
    labels = rng.integers(0, classes, size=n)
    features = centers[labels] + rng.normal(size=(n, d))
    xs = jnp.asarray(features, dtype=jnp.float32)
    ys = jnp.asarray(labels, dtype=jnp.int32)

    params = init_mlp(jax.random.PRNGKey(0), [d, 16, classes])
    noise_key = jax.random.PRNGKey(1)
    batch_size = 50
    steps_per_epoch = n // batch_size
    step = 0
    for epoch in range(3):
        perm = rng.permutation(n)
        for b in range(steps_per_epoch):
            idx = perm[b * batch_size : (b + 1) * batch_size]
            params = dp_step(params, xs[idx], ys[idx], noise_key, step)
            step += 1
        print(f"epoch {epoch}: accuracy {accuracy(params, xs, ys):.3f} after {step} steps")
    sampling_rate = batch_size / n
    print(f"sampling rate {sampling_rate:.3f}, noise multiplier 0.5, steps {step}")


if __name__ == "__main__":
    main()
