"""A variational autoencoder on binarised synthetic digits, with a hand-written Adam.

The encoder outputs a mean and a log-variance; the decoder outputs Bernoulli
logits.  The optimiser state is a NamedTuple of pytrees updated with
``jax.tree.map``, with an int32 step count for the bias correction.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


class AdamState(NamedTuple):
    count: jax.Array
    mu: dict
    nu: dict


def dense_init(key, n_in, n_out):
    w_key, _ = jax.random.split(key)
    w = jax.random.normal(w_key, (n_in, n_out)) * jnp.sqrt(2.0 / n_in)
    b = jnp.zeros((n_out,))
    return {"w": w, "b": b}


def init_params(key, data_dim, hidden, latent):
    keys = jax.random.split(key, 4)
    return {
        "enc_hidden": dense_init(keys[0], data_dim, hidden),
        "enc_out": dense_init(keys[1], hidden, 2 * latent),
        "dec_hidden": dense_init(keys[2], latent, hidden),
        "dec_out": dense_init(keys[3], hidden, data_dim),
    }


def dense(layer, x):
    return x @ layer["w"] + layer["b"]


def encode(params, x):
    h = jax.nn.relu(dense(params["enc_hidden"], x))
    out = dense(params["enc_out"], h)
    mean, log_var = jnp.split(out, 2, axis=-1)
    return mean, log_var


def decode(params, z):
    h = jax.nn.relu(dense(params["dec_hidden"], z))
    return dense(params["dec_out"], h)


def gaussian_kl(mean, log_var):
    return -0.5 * jnp.sum(1.0 + log_var - mean**2 - jnp.exp(log_var), axis=-1)


def bernoulli_log_likelihood(logits, x):
    return -jnp.sum(jnp.logaddexp(0.0, jnp.where(x, -1.0, 1.0) * logits), axis=-1)


def negative_elbo(params, key, batch):
    mean, log_var = encode(params, batch)
    eps = jax.random.normal(key, mean.shape)
    z = mean + jnp.exp(0.5 * log_var) * eps
    logits = decode(params, z)
    rec = bernoulli_log_likelihood(logits, batch)
    kl = gaussian_kl(mean, log_var)
    return jnp.mean(kl - rec)


def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return AdamState(count=jnp.zeros([], jnp.int32), mu=zeros, nu=zeros)


def adam_update(grads, state, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    count = state.count + 1
    mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state.mu, grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state.nu, grads)
    mu_hat_scale = 1.0 / (1 - b1**count)
    nu_hat_scale = 1.0 / (1 - b2**count)
    updates = jax.tree.map(
        lambda m, v: -lr * (m * mu_hat_scale) / (jnp.sqrt(v * nu_hat_scale) + eps), mu, nu
    )
    return updates, AdamState(count=count, mu=mu, nu=nu)


@jax.jit
def train_step(params, opt_state, key, batch):
    loss, grads = jax.value_and_grad(negative_elbo)(params, key, batch)
    updates, opt_state = adam_update(grads, opt_state)
    params = jax.tree.map(lambda p, u: p + u, params, updates)
    return params, opt_state, loss


def make_data(rng, num_examples, data_dim):
    prototypes = rng.uniform(size=(4, data_dim))
    which = rng.integers(0, 4, size=num_examples)
    return prototypes[which] + 0.1 * rng.normal(size=(num_examples, data_dim))


def main():
    data_dim, hidden, latent = 64, 32, 4
    batch_size, num_steps = 32, 40
    rng = np.random.default_rng(0)
    data = make_data(rng, 256, data_dim)

    key = jax.random.key(0)
    key, init_key = jax.random.split(key)
    params = init_params(init_key, data_dim, hidden, latent)
    opt_state = adam_init(params)

    losses = []
    for step in range(num_steps):
        idx = rng.choice(data.shape[0], size=batch_size, replace=False)
        key, binarize_key, elbo_key = jax.random.split(key, 3)
        probs = jnp.asarray(data[idx], dtype=jnp.float32)
        batch = jax.random.bernoulli(binarize_key, jnp.clip(probs, 0.0, 1.0))
        batch = batch.astype(jnp.float32)
        params, opt_state, loss = train_step(params, opt_state, elbo_key, batch)
        losses.append(float(loss))
        if step % 10 == 0:
            print(f"step {step:3d}  negative ELBO {loss:.3f}")
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    print(f"mean negative ELBO: first 10 steps {first:.3f}, last 10 steps {last:.3f}")
    print(f"optimizer steps taken: {int(opt_state.count)}")


if __name__ == "__main__":
    main()
