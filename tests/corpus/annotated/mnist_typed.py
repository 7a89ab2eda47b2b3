"""An MNIST-style classifier annotated with typing_pkg dtypes (the conversion to check)."""

import jax
import jax.numpy as jnp

from typing_pkg import Array, float32, int32

Params = list[tuple[Array[float32], Array[float32]]]


def predict(params: Params, inputs: Array[float32]) -> Array[float32]:
    activations = inputs.reshape(inputs.shape[0], -1)
    for w, b in params[:-1]:
        outputs = jnp.dot(activations, w) + b
        activations = jnp.tanh(outputs)
    final_w, final_b = params[-1]
    logits: Array[float32] = jnp.dot(activations, final_w) + final_b
    return logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)


def loss(params: Params, inputs: Array[float32], targets: Array[float32]) -> Array[float32]:
    preds = predict(params, inputs)
    return -(preds * targets).sum() / inputs.shape[0]


def accuracy(params: Params, inputs: Array[float32], labels: Array[int32]) -> Array[float32]:
    predicted: Array[int32] = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted == labels)


@jax.jit
def update(params: Params, inputs: Array[float32], targets: Array[float32]) -> Params:
    grads: Params = jax.grad(loss)(params, inputs, targets)
    return [(w - 0.1 * dw, b - 0.1 * db) for (w, b), (dw, db) in zip(params, grads, strict=True)]


def main() -> None:
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    inputs: Array[float32] = jax.random.normal(k1, (64, 8 * 8)).reshape(64, 64)
    labels: Array[int32] = jax.random.randint(k2, (64,), 0, 10)
    targets: Array[float32] = jax.nn.one_hot(labels, 10)
    params: Params = [(0.1 * jax.random.normal(k3, (64, 10)), jnp.zeros(10))]
    for _ in range(20):
        params = update(params, inputs, targets)
    final_loss, final_accuracy = loss(params, inputs, targets), accuracy(params, inputs, labels)
    print(f"loss {final_loss:.3f}, accuracy {final_accuracy:.2f}")


if __name__ == "__main__":
    main()
