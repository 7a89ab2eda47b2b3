"""Train a softmax classifier whose labels were loaded as floats.

The dataset stores features and label in one float32 table, and the labels
are sliced off it without a cast: ``jnp.take_along_axis`` needs integer
indices, and JAX raises TypeError where the loss picks each example's
log-probability.
"""

import jax
import jax.numpy as jnp
import numpy as np


def load(rng, n, features, classes):
    table = rng.normal(size=(n, features + 1)).astype(np.float32)
    table[:, -1] = rng.integers(0, classes, size=n)
    return jnp.asarray(table[:, :-1]), jnp.asarray(table[:, -1])


def loss_fn(w, x, labels):
    logp = jax.nn.log_softmax(x @ w)
    picked = jnp.take_along_axis(logp, labels[:, None], axis=-1)  # BUG: float32 labels index
    return -jnp.mean(picked)


def main():
    rng = np.random.default_rng(0)
    x, labels = load(rng, 32, 5, 3)
    w = jnp.zeros((5, 3))
    for step in range(3):
        loss, grad = jax.value_and_grad(loss_fn)(w, x, labels)
        w = w - 0.1 * grad
        print(step, float(loss))


if __name__ == "__main__":
    main()
