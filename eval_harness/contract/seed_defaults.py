"""The seeds a run takes when its config names none, and the sentence that says so wherever it is
told."""

# The seeds of a config without `seeds:` (eval_harness.runner.config's docstring;
# default_seeds_words() says it for --help and the reports).
# Five for a seeded head: with three, the between-seed variance has 2 df and the mean's MDE is
# optimistic (simulated power 0.75 to 0.77 at it, 0.81 with five:
# tests/stats/test_seed_estimand_simulation.py).
DEFAULT_SEEDS = {"trained": (0, 1, 2, 3, 4), "other": (0,)}
_COUNT_WORDS = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
}


def default_seeds_words() -> str:
    """The default seeds in words, from :data:`DEFAULT_SEEDS` (the one place that sets them)."""

    def listed(seeds: tuple[int, ...]) -> str:
        count = _COUNT_WORDS.get(len(seeds), str(len(seeds)))
        return f"{count} ({', '.join(map(str, seeds))})"

    return (
        f"{listed(DEFAULT_SEEDS['trained'])} where a model is trained with a seed (a seeded "
        f"head such as mlp, or a max_train sample), {listed(DEFAULT_SEEDS['other'])} "
        "elsewhere (a deterministic head, such as the default ridge, is trained once)"
    )
