"""A small MLP classifier on MNIST-shaped data, trained with plain SGD.

The data are synthetic (class templates plus noise, stored as uint8 images
and int64 labels, as a NumPy loader would give them) so that the program
needs no download; the model, the loss and the update are JAX.
"""

import time

import jax
import jax.numpy as jnp
import numpy as np


def synthetic_mnist(templates, num_examples, rng):
    """Return (images, labels): uint8 images of shape (n, 784) and int64 labels."""
    labels = rng.integers(0, 10, size=num_examples)
    noise = rng.normal(0.0, 40.0, size=(num_examples, 28 * 28))
    images = np.clip(templates[labels] + noise, 0, 255).astype(np.uint8)
    return images, labels


def one_hot(labels, num_classes=10):
    return jnp.asarray(labels[:, None] == np.arange(num_classes), dtype=jnp.float32)


def init_random_params(scale, layer_sizes, key):
    params = []
    keys = jax.random.split(key, len(layer_sizes) - 1)
    for layer_key, m, n in zip(keys, layer_sizes[:-1], layer_sizes[1:], strict=True):
        w = scale * jax.random.normal(layer_key, (m, n))
        b = jnp.zeros(n)
        params.append((w, b))
    return params


def predict(params, inputs):
    activations = inputs
    for w, b in params[:-1]:
        outputs = jnp.dot(activations, w) + b
        activations = jnp.tanh(outputs)
    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


def main():
    layer_sizes = [784, 64, 32, 10]
    param_scale = 0.1
    step_size = 0.05
    num_epochs = 3
    batch_size = 64

    rng = np.random.default_rng(0)
    templates = rng.uniform(0, 255, size=(10, 28 * 28))
    train_images, train_labels = synthetic_mnist(templates, 512, rng)
    test_images, test_labels = synthetic_mnist(templates, 128, rng)
    train_x = jnp.asarray(train_images, dtype=jnp.float32) / 255.0
    test_x = jnp.asarray(test_images, dtype=jnp.float32) / 255.0
    train_y = one_hot(train_labels)
    test_y = one_hot(test_labels)

    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream():
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size : (i + 1) * batch_size]
                yield train_x[batch_idx], train_y[batch_idx]

    batches = data_stream()
    evaluate = jax.jit(accuracy)

    @jax.jit
    def update(params, batch):
        grads = jax.grad(loss)(params, batch)
        return [
            (w - step_size * dw, b - step_size * db)
            for (w, b), (dw, db) in zip(params, grads, strict=True)
        ]

    params = init_random_params(param_scale, layer_sizes, jax.random.PRNGKey(0))
    for epoch in range(num_epochs):
        start_time = time.time()
        for _ in range(num_batches):
            params = update(params, next(batches))
        epoch_time = time.time() - start_time
        train_acc = evaluate(params, (train_x, train_y))
        test_acc = evaluate(params, (test_x, test_y))
        print(f"Epoch {epoch} in {epoch_time:0.2f} sec")
        print(f"Training set accuracy {train_acc:.3f}, test set accuracy {test_acc:.3f}")


if __name__ == "__main__":
    main()
