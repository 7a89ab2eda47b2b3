"""Multi-armed Bernoulli bandits: an epsilon-greedy agent and a Gaussian Thompson-sampling agent.

Agents are small classes whose array attributes (``self.q``, ``self.counts``)
are reassigned at every step, the way an environment loop is written
outside ``jit``.  Counts are int32; value estimates are float32.
"""

import jax
import jax.numpy as jnp


@jax.jit
def bernoulli_reward(key, probs, arm):
    reward = jax.random.bernoulli(key, probs[arm])
    return reward.astype(jnp.float32)


@jax.jit
def thompson_arm(key, successes, pulls):
    """Sample each arm's mean from a Gaussian approximation of its posterior; take the best."""
    mean = (successes + 1.0) / (pulls + 2.0)
    std = jnp.sqrt(mean * (1.0 - mean) / (pulls + 3.0))
    samples = mean + std * jax.random.normal(key, mean.shape)
    return jnp.argmax(samples)


class BernoulliBandit:
    def __init__(self, key, num_arms):
        self.probs = jax.random.uniform(key, (num_arms,), minval=0.1, maxval=0.9)
        self.best = jnp.argmax(self.probs)

    def pull(self, key, arm):
        return bernoulli_reward(key, self.probs, arm)


@jax.jit
def epsilon_greedy_arm(key, q, epsilon):
    explore_key, arm_key = jax.random.split(key)
    explore = jax.random.uniform(explore_key) < epsilon
    random_arm = jax.random.randint(arm_key, (), 0, q.shape[0])
    return jnp.where(explore, random_arm, jnp.argmax(q))


@jax.jit
def incremental_mean(q, counts, arm, reward):
    counts = counts.at[arm].add(1)
    step_size = 1.0 / counts[arm]
    q = q.at[arm].add(step_size * (reward - q[arm]))
    return q, counts


class EpsilonGreedy:
    def __init__(self, num_arms, epsilon=0.1):
        self.epsilon = epsilon
        self.q = jnp.zeros(num_arms)
        self.counts = jnp.zeros(num_arms, dtype=jnp.int32)
        self.last_arm: jax.Array | None = None

    def act(self, key):
        arm = epsilon_greedy_arm(key, self.q, self.epsilon)
        self.last_arm = arm
        return arm

    def update(self, reward):
        if self.last_arm is None:
            return
        self.q, self.counts = incremental_mean(self.q, self.counts, self.last_arm, reward)


class ThompsonSampling:
    def __init__(self, num_arms):
        self.successes = jnp.zeros(num_arms)
        self.pulls = jnp.zeros(num_arms, dtype=jnp.int32)

    def act(self, key):
        return thompson_arm(key, self.successes, self.pulls)

    def update(self, arm, reward):
        self.successes = self.successes.at[arm].add(reward)
        self.pulls = self.pulls.at[arm].add(1)


def softmax_policy(q, temperature, key):
    """Pick an arm from a Boltzmann distribution over the value estimates."""
    logits = q / temperature
    return jax.random.categorical(key, logits)


def run_epsilon_greedy(num_steps=60, num_arms=5, seed=0):
    key = jax.random.key(seed)
    key, env_key = jax.random.split(key)
    bandit = BernoulliBandit(env_key, num_arms)
    agent = EpsilonGreedy(num_arms)
    total_reward = jnp.zeros(())
    best_pulls = 0
    for _ in range(num_steps):
        key, act_key, env_key = jax.random.split(key, 3)
        arm = agent.act(act_key)
        reward = bandit.pull(env_key, arm)
        agent.update(reward)
        total_reward = total_reward + reward
        best_pulls += int(arm == bandit.best)
    regret = num_steps * jnp.max(bandit.probs) - total_reward
    return total_reward, regret, best_pulls


def run_thompson(num_steps=60, num_arms=5, seed=0):
    key = jax.random.key(seed)
    key, env_key = jax.random.split(key)
    bandit = BernoulliBandit(env_key, num_arms)
    agent = ThompsonSampling(num_arms)
    rewards = []
    for _ in range(num_steps):
        key, act_key, env_key = jax.random.split(key, 3)
        arm = agent.act(act_key)
        reward = bandit.pull(env_key, arm)
        agent.update(arm, reward)
        rewards.append(reward)
    total_reward = jnp.sum(jnp.stack(rewards))
    regret = num_steps * jnp.max(bandit.probs) - total_reward
    return total_reward, regret, int(agent.pulls[bandit.best])


def main():
    for name, run in (("epsilon-greedy", run_epsilon_greedy), ("thompson", run_thompson)):
        total_reward, regret, best_pulls = run()
        print(f"{name:15s} reward {total_reward:5.0f}  regret {regret:6.2f}  best arm {best_pulls}")
    key = jax.random.key(7)
    q = jnp.array([0.1, 0.5, 0.2])
    picks = jax.vmap(softmax_policy, in_axes=(None, None, 0))(q, 0.1, jax.random.split(key, 200))
    frequencies = jnp.bincount(picks, length=3) / picks.shape[0]
    print("softmax policy frequencies:", frequencies)


if __name__ == "__main__":
    main()
