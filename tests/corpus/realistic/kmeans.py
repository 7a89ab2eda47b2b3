"""K-means clustering with k-means++ seeding, as a small estimator class.

``fit`` runs Lloyd iterations in a ``lax.while_loop`` until the assignments
stop changing; cluster sums use ``jax.ops.segment_sum``; the seeding picks
each new centre with ``jax.random.categorical`` on the squared distances.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def pairwise_sq_dists(x, centroids):
    x_sq = jnp.sum(x**2, axis=1, keepdims=True)
    c_sq = jnp.sum(centroids**2, axis=1)
    return jnp.maximum(x_sq - 2.0 * x @ centroids.T + c_sq, 0.0)


@partial(jax.jit, static_argnums=(2,))
def kmeans_plus_plus(key, x, k):
    n = x.shape[0]
    key, first_key = jax.random.split(key)
    first = jax.random.randint(first_key, (), 0, n)
    centroids = x[first][None, :]
    for _ in range(1, k):
        key, pick_key = jax.random.split(key)
        d2 = jnp.min(pairwise_sq_dists(x, centroids), axis=1)
        idx = jax.random.categorical(pick_key, jnp.log(d2 + 1e-12))
        centroids = jnp.concatenate([centroids, x[idx][None, :]], axis=0)
    return centroids


@jax.jit
def lloyd(x, centroids, max_iter):
    k = centroids.shape[0]

    def assign(c):
        return jnp.argmin(pairwise_sq_dists(x, c), axis=1)

    def cond(state):
        i, _, changed, _ = state
        return jnp.logical_and(i < max_iter, changed)

    def body(state):
        i, c, _, labels = state
        sums = jax.ops.segment_sum(x, labels, num_segments=k)
        counts = jnp.bincount(labels, length=k)
        new_c = jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts, 1)[:, None], c)
        new_labels = assign(new_c)
        changed = jnp.any(new_labels != labels)
        return i + 1, new_c, changed, new_labels

    labels = assign(centroids)
    init = (jnp.array(0), centroids, jnp.array(True), labels)
    iterations, centroids, _, labels = lax.while_loop(cond, body, init)
    return centroids, labels, iterations


@jax.jit
def inertia(x, centroids, labels):
    one_hot = jax.nn.one_hot(labels, centroids.shape[0])
    d2 = pairwise_sq_dists(x, centroids)
    return jnp.sum(one_hot * d2)


class KMeans:
    def __init__(self, n_clusters, max_iter=50, seed=0):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.key = jax.random.PRNGKey(seed)
        self.centroids: jax.Array | None = None
        self.inertia: jax.Array | None = None
        self.n_iter = 0

    def fit(self, x):
        x = jnp.asarray(x, dtype=jnp.float32)
        self.key, init_key = jax.random.split(self.key)
        self.centroids = kmeans_plus_plus(init_key, x, self.n_clusters)
        self.centroids, labels, iterations = lloyd(x, self.centroids, self.max_iter)
        self.inertia = inertia(x, self.centroids, labels)
        self.n_iter = int(iterations)
        return self

    def predict(self, x):
        if self.centroids is None:
            raise ValueError("call fit first")
        x = jnp.asarray(x, dtype=jnp.float32)
        return jnp.argmin(pairwise_sq_dists(x, self.centroids), axis=1)


def make_blobs(rng, centers, per_cluster, spread):
    points = [c + spread * rng.normal(size=(per_cluster, centers.shape[1])) for c in centers]
    labels = np.repeat(np.arange(len(centers)), per_cluster)
    return np.concatenate(points), labels


def main():
    rng = np.random.default_rng(5)
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    x, true_labels = make_blobs(rng, centers, 50, 0.6)
    model = KMeans(n_clusters=3).fit(x)
    print(f"converged in {model.n_iter} iterations, inertia {model.inertia:.2f}")
    found = np.asarray(model.centroids)
    order = np.argsort(found[:, 0] * 10 + found[:, 1])
    print("centroids:\n", np.round(found[order], 2))
    predicted = model.predict(x)
    stacked = jnp.stack([predicted, jnp.asarray(true_labels)], axis=1)
    agreement = jnp.mean(jax.vmap(lambda row: row[0] == row[1])(stacked))
    print(f"raw label agreement (up to a permutation): {agreement:.2f}")
    sizes = jnp.bincount(predicted, length=3)
    print("cluster sizes:", sizes.tolist())


if __name__ == "__main__":
    main()
