"""A hidden Markov model: sample sequences, score them with the forward algorithm, fit it.

Sampling runs the chain with ``lax.scan`` over split keys and
``jax.random.categorical``; the forward algorithm is a scan in log space;
fitting is gradient ascent on unconstrained logits inside ``lax.fori_loop``.
"""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def normalize_logits(logits):
    return jax.nn.log_softmax(logits, axis=-1)


@partial(jax.jit, static_argnums=(1, 2))
def random_hmm(key, num_states, num_symbols):
    a_key, b_key = jax.random.split(key)
    log_pi = jnp.zeros(num_states)
    log_a = 3.0 * jnp.eye(num_states) + 0.5 * jax.random.normal(a_key, (num_states, num_states))
    log_b = 2.0 * jax.random.normal(b_key, (num_states, num_symbols))
    return tuple(normalize_logits(p) for p in (log_pi, log_a, log_b))


@partial(jax.jit, static_argnums=(2,))
def sample(key, params, length):
    log_pi, log_a, log_b = params

    def step(state, step_key):
        obs_key, next_key = jax.random.split(step_key)
        obs = jax.random.categorical(obs_key, log_b[state])
        next_state = jax.random.categorical(next_key, log_a[state])
        return next_state, (state, obs)

    init_key, chain_key = jax.random.split(key)
    init_state = jax.random.categorical(init_key, log_pi)
    _, (states, observations) = lax.scan(step, init_state, jax.random.split(chain_key, length))
    return states, observations


def log_likelihood(params, observations):
    log_pi, log_a, log_b = (normalize_logits(p) for p in params)

    def forward(log_alpha, obs):
        log_alpha = jax.nn.logsumexp(log_alpha[:, None] + log_a, axis=0) + log_b[:, obs]
        return log_alpha, None

    first = log_pi + log_b[:, observations[0]]
    log_alpha, _ = lax.scan(forward, first, observations[1:])
    return jax.nn.logsumexp(log_alpha)


@partial(jax.jit, static_argnames=("num_steps",))
def fit(params, sequences, num_steps, learning_rate):
    def objective(p):
        per_sequence = jax.vmap(log_likelihood, in_axes=(None, 0))(p, sequences)
        return jnp.mean(per_sequence)

    def body(i, carry):
        p, history = carry
        value, grads = jax.value_and_grad(objective)(p)
        p = tuple(q + learning_rate * g for q, g in zip(p, grads, strict=True))
        history = history.at[i].set(value)
        return p, history

    history = jnp.zeros(num_steps)
    return lax.fori_loop(0, num_steps, body, (params, history))


@jax.jit
def mean_log_likelihood(params, sequences):
    return jnp.mean(jax.vmap(log_likelihood, in_axes=(None, 0))(params, sequences))


@jax.jit
def state_recovery(params, states, observations):
    """Fraction of steps where the most likely state given each observation alone is right."""
    log_pi, _, log_b = (normalize_logits(p) for p in params)
    posterior = log_pi[:, None] + log_b[:, observations]
    guess = jnp.argmax(posterior, axis=0)
    return jnp.mean(guess == states)


def main():
    num_states, num_symbols, length = 3, 5, 40
    key = jax.random.PRNGKey(42)
    key, params_key = jax.random.split(key)
    true_params = random_hmm(params_key, num_states, num_symbols)

    sequence_keys = jax.random.split(key, 8)
    states, observations = jax.vmap(sample, in_axes=(0, None, None))(
        sequence_keys, true_params, length
    )
    print("sampled observations:", observations.shape, observations.dtype)

    init = tuple(jnp.zeros_like(p) for p in true_params)
    num_steps = 30
    fitted, history = fit(init, observations, num_steps, 0.5)
    print(f"mean log-likelihood: {history[0]:.3f} -> {history[-1]:.3f}")
    true_ll = mean_log_likelihood(true_params, observations)
    print(f"under the true parameters: {true_ll:.3f}")
    emissions = jnp.exp(normalize_logits(fitted[2]))
    print("fitted emission probabilities (rows: states):")
    print(jnp.round(emissions, 2))
    accuracy = state_recovery(true_params, states[0], observations[0])
    print(f"state recovery on the first sequence (true parameters): {accuracy:.2f}")


if __name__ == "__main__":
    main()
