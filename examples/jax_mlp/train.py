"""A small classifier trained the way JAX programs are written: keys, jit, grad.

The parameters are kept in float32 (the "master" copy) and the forward pass
runs in bfloat16, as mixed-precision training on accelerators does.  Nothing
here is annotated with typing_pkg: ``jax.Array`` and plain inference only.
Run it (``python examples/jax_mlp/train.py``) to see it learn; type-check it
(``python examples/check.py``) to see the dtype mypy infers for each array.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp

if TYPE_CHECKING:
    from typing import reveal_type


class Params(NamedTuple):
    w1: jax.Array
    b1: jax.Array
    w2: jax.Array
    b2: jax.Array


def init_params(key: jax.Array, n_in: int, n_hidden: int, n_out: int) -> Params:
    """Draw float32 weights with a scaled normal initialiser."""
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (n_in, n_hidden)) * jnp.sqrt(2.0 / n_in)
    w2 = jax.random.normal(k2, (n_hidden, n_out)) * jnp.sqrt(2.0 / n_hidden)
    if TYPE_CHECKING:
        reveal_type(w1)
    return Params(w1, jnp.zeros(n_hidden), w2, jnp.zeros(n_out))


def forward(params: Params, x: jax.Array) -> jax.Array:
    """Run the layers in bfloat16 and return float32 logits."""
    h = x.astype(jnp.bfloat16) @ params.w1.astype(jnp.bfloat16)
    h = jax.nn.relu(h + params.b1.astype(jnp.bfloat16))
    logits = h @ params.w2.astype(jnp.bfloat16)
    if TYPE_CHECKING:
        reveal_type(h)
        reveal_type(logits)
    return logits.astype(jnp.float32) + params.b2


def loss_fn(params: Params, x: jax.Array, labels: jax.Array) -> jax.Array:
    """Mean cross-entropy of the logits against integer labels."""
    logits = forward(params, x)
    log_probs = jax.nn.log_softmax(logits)
    picked = jnp.take_along_axis(log_probs, labels[:, None], axis=1)
    return -jnp.mean(picked)


@jax.jit
def update(params: Params, x: jax.Array, labels: jax.Array, lr: float) -> Params:
    """One step of gradient descent on the float32 master parameters."""
    grads = jax.grad(loss_fn)(params, x, labels)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


@jax.jit
def accuracy(params: Params, x: jax.Array, labels: jax.Array) -> jax.Array:
    """The fraction of the batch classified correctly."""
    predicted = jnp.argmax(forward(params, x), axis=-1)
    correct = predicted == labels
    if TYPE_CHECKING:
        reveal_type(predicted)
        reveal_type(correct)
    return jnp.mean(correct)


def make_data(key: jax.Array, n: int, n_in: int, n_out: int) -> tuple[jax.Array, jax.Array]:
    """Points around one centre per class, with their integer labels."""
    k_centres, k_labels, k_noise = jax.random.split(key, 3)
    centres = jax.random.normal(k_centres, (n_out, n_in)) * 3.0
    labels = jax.random.randint(k_labels, (n,), 0, n_out)
    x = centres[labels] + jax.random.normal(k_noise, (n, n_in))
    if TYPE_CHECKING:
        reveal_type(labels)
        reveal_type(x)
    return x, labels


def main() -> None:
    key = jax.random.key(0)
    k_data, k_init = jax.random.split(key)
    x, labels = make_data(k_data, 512, 8, 4)
    params = init_params(k_init, 8, 32, 4)
    for step in range(201):
        params = update(params, x, labels, 0.1)
        if step % 50 == 0:
            loss = float(loss_fn(params, x, labels))
            correct = float(accuracy(params, x, labels))
            print(f"step {step:3d}  loss {loss:.3f}  accuracy {correct:.2f}")
    print("dtypes:", {name: str(p.dtype) for name, p in params._asdict().items()})


if __name__ == "__main__":
    main()
