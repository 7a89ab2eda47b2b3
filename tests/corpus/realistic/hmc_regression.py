"""Bayesian linear regression sampled with Hamiltonian Monte Carlo.

The leapfrog integrator is a ``lax.fori_loop``; the chain is a ``lax.scan``
over split keys; the Metropolis correction uses ``jax.random.uniform`` and
``lax.cond``; accepted proposals are counted in an int32 counter.  Several
chains run at once with ``vmap``.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class ChainState(NamedTuple):
    position: jax.Array
    log_prob: jax.Array
    accepted: jax.Array


def make_log_posterior(x, y, prior_scale=5.0):
    def log_posterior(theta):
        weights, log_sigma = theta[:-1], theta[-1]
        sigma = jnp.exp(log_sigma)
        residuals = y - x @ weights
        log_lik = -0.5 * jnp.sum((residuals / sigma) ** 2) - y.shape[0] * log_sigma
        log_prior = -0.5 * jnp.sum((theta / prior_scale) ** 2)
        return log_lik + log_prior

    return log_posterior


def leapfrog(grad_fn, position, momentum, step_size, num_steps):
    momentum = momentum + 0.5 * step_size * grad_fn(position)

    def body(_, carry):
        q, p = carry
        q = q + step_size * p
        p = p + step_size * grad_fn(q)
        return q, p

    position, momentum = lax.fori_loop(0, num_steps - 1, body, (position, momentum))
    position = position + step_size * momentum
    momentum = momentum + 0.5 * step_size * grad_fn(position)
    return position, momentum


def hmc_kernel(log_prob_fn, step_size, num_leapfrog):
    grad_fn = jax.grad(log_prob_fn)

    def kernel(state, key):
        momentum_key, accept_key = jax.random.split(key)
        momentum = jax.random.normal(momentum_key, state.position.shape)
        new_position, new_momentum = leapfrog(
            grad_fn, state.position, momentum, step_size, num_leapfrog
        )
        new_log_prob = log_prob_fn(new_position)
        log_ratio = (
            new_log_prob
            - state.log_prob
            - 0.5 * jnp.sum(new_momentum**2)
            + 0.5 * jnp.sum(momentum**2)
        )
        accept = jnp.log(jax.random.uniform(accept_key)) < log_ratio
        state = lax.cond(
            accept,
            lambda: ChainState(new_position, new_log_prob, state.accepted + 1),
            lambda: state,
        )
        return state, state.position

    return kernel


def run_chain(key, log_prob_fn, init_position, num_samples, step_size=0.02, num_leapfrog=10):
    kernel = hmc_kernel(log_prob_fn, step_size, num_leapfrog)
    init = ChainState(init_position, log_prob_fn(init_position), jnp.zeros((), jnp.int32))
    final, samples = lax.scan(kernel, init, jax.random.split(key, num_samples))
    return samples, final.accepted


def main():
    rng = np.random.default_rng(2)
    n, d = 50, 2
    x = jnp.asarray(rng.normal(size=(n, d)), dtype=jnp.float32)
    true_w = jnp.array([1.5, -0.7])
    y = x @ true_w + 0.3 * jnp.asarray(rng.normal(size=n), dtype=jnp.float32)

    log_posterior = make_log_posterior(x, y)
    num_chains, num_samples = 4, 300
    key = jax.random.key(0)
    init_key, chain_key = jax.random.split(key)
    inits = 0.1 * jax.random.normal(init_key, (num_chains, d + 1))
    sampler = jax.jit(jax.vmap(run_chain, in_axes=(0, None, 0, None)), static_argnums=(1, 3))
    samples, accepted = sampler(
        jax.random.split(chain_key, num_chains), log_posterior, inits, num_samples
    )

    burned = samples[:, num_samples // 2 :]
    posterior_mean = jnp.mean(burned.reshape(-1, d + 1), axis=0)
    acceptance_rate = accepted / num_samples
    print("acceptance rate per chain:", np.round(np.asarray(acceptance_rate), 2))
    print("posterior mean weights:", np.round(np.asarray(posterior_mean[:d]), 3))
    print(f"posterior mean noise scale: {jnp.exp(posterior_mean[-1]):.3f}")
    chain_means = jnp.mean(burned, axis=1)
    between = jnp.var(chain_means, axis=0, ddof=1)
    within = jnp.mean(jnp.var(burned, axis=1, ddof=1), axis=0)
    print("between/within variance ratio:", np.round(np.asarray(between / within), 3))


if __name__ == "__main__":
    main()
