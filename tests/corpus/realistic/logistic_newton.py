"""Logistic regression fitted by Newton's method, with NumPy data loading.

The features come from NumPy as float64 and are standardised in NumPy;
``jnp.asarray`` brings them into JAX (float32, x64 being off).  Written with
``jnp.ndarray`` annotations, as older JAX code is.
"""

import jax
import jax.numpy as jnp
import numpy as np


def load_data(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(n, d)) * np.array([1.0, 5.0, 0.2, 2.0])[:d]
    true_w = np.linspace(-1.0, 1.0, d)
    logits = features @ true_w / features.std(axis=0).mean()
    labels = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-logits))).astype(np.int64)
    return features, labels


def standardise(features: np.ndarray) -> np.ndarray:
    mean = features.mean(axis=0)
    std = features.std(axis=0)
    return (features - mean) / std


def add_intercept(x: jnp.ndarray) -> jnp.ndarray:
    ones = jnp.ones((x.shape[0], 1), dtype=x.dtype)
    return jnp.concatenate([ones, x], axis=1)


def negative_log_likelihood(w: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
    logits = x @ w
    log_p = jax.nn.log_sigmoid(logits)
    log_not_p = jax.nn.log_sigmoid(-logits)
    penalty = 0.5 * 1e-3 * jnp.sum(w[1:] ** 2)
    return -jnp.sum(y * log_p + (1 - y) * log_not_p) + penalty


@jax.jit
def newton_step(w: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    g = jax.grad(negative_log_likelihood)(w, x, y)
    h = jax.hessian(negative_log_likelihood)(w, x, y)
    delta = jnp.linalg.solve(h, g)
    w = w - delta
    decrement = jnp.sqrt(g @ delta)
    return w, decrement


@jax.jit
def training_accuracy(w: jnp.ndarray, x: jnp.ndarray, labels: jnp.ndarray) -> jnp.ndarray:
    probs = jax.nn.sigmoid(x @ w)
    predictions = (probs > 0.5).astype(jnp.int32)
    return jnp.mean(predictions == labels)


@jax.jit
def wald_z_scores(w: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
    covariance = jnp.linalg.inv(jax.hessian(negative_log_likelihood)(w, x, y))
    std_errors = jnp.sqrt(jnp.diag(covariance))
    return w / std_errors


def fit(x: jnp.ndarray, y: jnp.ndarray, tol: float = 1e-4, max_iter: int = 20) -> jnp.ndarray:
    w = jnp.zeros(x.shape[1])
    for iteration in range(max_iter):
        w, decrement = newton_step(w, x, y)
        print(f"  iteration {iteration}: Newton decrement {decrement:.2e}")
        if decrement < tol:
            break
    return w


def main() -> None:
    features, labels = load_data(seed=11, n=300, d=4)
    features = standardise(features)
    x = add_intercept(jnp.asarray(features))
    y = jnp.asarray(labels).astype(jnp.float32)
    print("features:", features.dtype, "->", x.dtype, "labels:", labels.dtype, "->", y.dtype)

    w = fit(x, y)
    accuracy = training_accuracy(w, x, jnp.asarray(labels))
    print("weights:", np.round(np.asarray(w), 3))
    print(f"training accuracy: {accuracy:.3f}")

    z_scores = wald_z_scores(w, x, y)
    print("z-scores:", np.round(np.asarray(z_scores), 2))


if __name__ == "__main__":
    main()
