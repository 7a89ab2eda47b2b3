"""Gaussian process regression: fit the kernel's hyperparameters by maximum marginal likelihood.

Annotated with ``jax.Array`` as library code usually is.  The kernel matrix
is built with ``vmap``; the marginal likelihood uses a Cholesky factor and
triangular solves; hyperparameters live in an unconstrained space
(``softplus``) and are fitted by gradient descent with momentum.
"""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np


def softplus(x: jax.Array) -> jax.Array:
    return jnp.logaddexp(x, 0.0)


def rbf(x: jax.Array, y: jax.Array, lengthscale: jax.Array, variance: jax.Array) -> jax.Array:
    sq = jnp.sum((x - y) ** 2)
    return variance * jnp.exp(-0.5 * sq / lengthscale**2)


def gram(xs: jax.Array, ys: jax.Array, lengthscale: jax.Array, variance: jax.Array) -> jax.Array:
    row = jax.vmap(rbf, in_axes=(None, 0, None, None))
    return jax.vmap(row, in_axes=(0, None, None, None))(xs, ys, lengthscale, variance)


def unpack(raw: dict[str, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
    return softplus(raw["lengthscale"]), softplus(raw["variance"]), softplus(raw["noise"])


def negative_log_marginal(raw: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    lengthscale, variance, noise = unpack(raw)
    n = x.shape[0]
    k = gram(x, x, lengthscale, variance) + (noise + 1e-6) * jnp.eye(n)
    chol = jnp.linalg.cholesky(k)
    alpha = jsl.cho_solve((chol, True), y)
    log_det = 2.0 * jnp.sum(jnp.log(jnp.diag(chol)))
    return 0.5 * y @ alpha + 0.5 * log_det + 0.5 * n * jnp.log(2.0 * jnp.pi)


def predict(
    raw: dict[str, jax.Array], x: jax.Array, y: jax.Array, x_new: jax.Array
) -> tuple[jax.Array, jax.Array]:
    lengthscale, variance, noise = unpack(raw)
    k = gram(x, x, lengthscale, variance) + noise * jnp.eye(x.shape[0])
    k_star = gram(x_new, x, lengthscale, variance)
    chol = jnp.linalg.cholesky(k)
    mean = k_star @ jsl.cho_solve((chol, True), y)
    v = jsl.solve_triangular(chol, k_star.T, lower=True)
    var = variance - jnp.sum(v**2, axis=0)
    return mean, jnp.maximum(var, 0.0)


@jax.jit
def step(
    raw: dict[str, jax.Array], velocity: dict[str, jax.Array], x: jax.Array, y: jax.Array
) -> tuple[dict[str, jax.Array], dict[str, jax.Array], jax.Array]:
    value, grads = jax.value_and_grad(negative_log_marginal)(raw, x, y)
    velocity = jax.tree_util.tree_map(lambda v, g: 0.9 * v - 0.01 * g, velocity, grads)
    raw = jax.tree_util.tree_map(lambda p, v: p + v, raw, velocity)
    return raw, velocity, value


def main() -> None:
    rng = np.random.default_rng(3)
    x_np = np.sort(rng.uniform(-3.0, 3.0, size=(40, 1)), axis=0)
    y_np = np.sin(2.0 * x_np[:, 0]) + 0.1 * rng.normal(size=40)
    x = jnp.asarray(x_np, dtype=jnp.float32)
    y = jnp.asarray(y_np, dtype=jnp.float32)

    raw = {"lengthscale": jnp.array(0.0), "variance": jnp.array(0.0), "noise": jnp.array(-2.0)}
    velocity = jax.tree_util.tree_map(jnp.zeros_like, raw)
    for i in range(60):
        raw, velocity, value = step(raw, velocity, x, y)
        if i % 20 == 0:
            print(f"iteration {i:2d}: negative log marginal likelihood {value:.3f}")

    lengthscale, variance, noise = unpack(raw)
    print(f"lengthscale {lengthscale:.3f}, variance {variance:.3f}, noise {noise:.4f}")
    x_test = jnp.linspace(-3.0, 3.0, 7)[:, None]
    mean, var = jax.jit(predict)(raw, x, y, x_test)
    error = jnp.max(jnp.abs(mean - jnp.sin(2.0 * x_test[:, 0])))
    print(f"max error of the posterior mean on a grid: {error:.3f}")
    print(f"largest posterior standard deviation: {jnp.sqrt(jnp.max(var)):.3f}")


if __name__ == "__main__":
    main()
