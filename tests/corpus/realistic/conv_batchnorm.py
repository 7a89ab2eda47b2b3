"""A small convolutional classifier with batch normalisation and dropout.

Images arrive as uint8 (NHWC) and are scaled to float32 in the model; the
convolution is ``lax.conv_general_dilated``, pooling ``lax.reduce_window``;
the batch-norm running statistics live on a model object whose attributes
are reassigned after each jitted step.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def conv(x, w, b):
    y = lax.conv_general_dilated(
        x, w, window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    return y + b


def max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def batch_norm(x, scale, bias, running_mean, running_var, training, momentum=0.9, eps=1e-5):
    if training:
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.var(x, axis=(0, 1, 2))
        running_mean = momentum * running_mean + (1 - momentum) * mean
        running_var = momentum * running_var + (1 - momentum) * var
    else:
        mean, var = running_mean, running_var
    y = (x - mean) / jnp.sqrt(var + eps) * scale + bias
    return y, (running_mean, running_var)


def forward(params, stats, images, key, training):
    x = images.astype(jnp.float32) / 255.0
    x = conv(x, params["conv_w"], params["conv_b"])
    x, new_stats = batch_norm(x, params["bn_scale"], params["bn_bias"], *stats, training)
    x = jax.nn.relu(x)
    x = max_pool(x)
    x = x.reshape(x.shape[0], -1)
    if training:
        keep = jax.random.bernoulli(key, 0.8, x.shape)
        x = jnp.where(keep, x / 0.8, 0.0)
    logits = x @ params["dense_w"] + params["dense_b"]
    return logits, new_stats


def cross_entropy(params, stats, images, labels, key):
    logits, new_stats = forward(params, stats, images, key, training=True)
    one_hot = jax.nn.one_hot(labels, logits.shape[-1])
    loss = -jnp.mean(jnp.sum(one_hot * jax.nn.log_softmax(logits), axis=-1))
    return loss, new_stats


@partial(jax.jit, static_argnames=("lr",))
def train_step(params, stats, images, labels, key, lr=0.1):
    (loss, new_stats), grads = jax.value_and_grad(cross_entropy, has_aux=True)(
        params, stats, images, labels, key
    )
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, new_stats, loss


@jax.jit
def evaluate(params, stats, images, labels):
    logits, _ = forward(params, stats, images, None, training=False)
    return jnp.mean(jnp.argmax(logits, axis=-1) == labels)


class Model:
    def __init__(self, key, channels=4, size=8, classes=3):
        k1, k2 = jax.random.split(key)
        flat = channels * (size // 2) ** 2
        self.params = {
            "conv_w": 0.3 * jax.random.normal(k1, (3, 3, 1, channels)),
            "conv_b": jnp.zeros(channels),
            "bn_scale": jnp.ones(channels),
            "bn_bias": jnp.zeros(channels),
            "dense_w": 0.1 * jax.random.normal(k2, (flat, classes)),
            "dense_b": jnp.zeros(classes),
        }
        self.running_mean = jnp.zeros(channels)
        self.running_var = jnp.ones(channels)

    def fit_batch(self, images, labels, key):
        stats = (self.running_mean, self.running_var)
        self.params, stats, loss = train_step(self.params, stats, images, labels, key)
        self.running_mean, self.running_var = stats
        return loss

    def accuracy(self, images, labels):
        return evaluate(self.params, (self.running_mean, self.running_var), images, labels)


def make_images(rng, n, size=8):
    labels = rng.integers(0, 3, size=n)
    images = rng.integers(0, 60, size=(n, size, size, 1)).astype(np.uint8)
    for i, label in enumerate(labels):
        if label == 0:
            images[i, : size // 2] += 150
        elif label == 1:
            images[i, :, : size // 2] += 150
    return images, labels.astype(np.int32)


def main():
    rng = np.random.default_rng(4)
    train_images, train_labels = make_images(rng, 256)
    test_images, test_labels = make_images(rng, 64)
    model = Model(jax.random.PRNGKey(1))
    key = jax.random.PRNGKey(2)
    for step in range(30):
        idx = rng.choice(len(train_images), size=32, replace=False)
        key, dropout_key = jax.random.split(key)
        loss = model.fit_batch(train_images[idx], train_labels[idx], dropout_key)
        if step % 10 == 0:
            print(f"step {step:2d} loss {loss:.3f}")
    accuracy = model.accuracy(test_images, test_labels)
    running_mean = np.round(np.asarray(model.running_mean), 2)
    print(f"test accuracy {accuracy:.3f}; running mean {running_mean}")


if __name__ == "__main__":
    main()
