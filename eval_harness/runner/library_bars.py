"""The progress bars the libraries a run uses draw on their own (``datasets``' "Generating train
split", huggingface_hub's downloads, transformers' weight loading, evaluate's), off while a quiet
run (``xbias run -q``, ``--no-progress``, ``run_sweep(progress=False)``) works."""

from collections.abc import Iterator
from contextlib import contextmanager


def progress_switches() -> list[tuple]:
    """Each library's own switch for its progress bars (``datasets``' "Generating train split",
    huggingface_hub's downloads, transformers' weight loading, evaluate's): "are they on?", turn
    off, turn on. Imported here, so that only a run that hides them pays for the imports."""
    import evaluate.utils.logging as evaluate_bars
    import huggingface_hub.utils as hub_bars
    import transformers.utils.logging as transformers_bars
    from datasets import (
        utils as datasets_bars,
    )  # (datasets.utils.tqdm is also the name of its tqdm class)

    return [
        (
            lambda: not datasets_bars.are_progress_bars_disabled(),
            datasets_bars.disable_progress_bars,
            datasets_bars.enable_progress_bars,
        ),
        (
            lambda: not hub_bars.are_progress_bars_disabled(),
            hub_bars.disable_progress_bars,
            hub_bars.enable_progress_bars,
        ),
        (
            transformers_bars.is_progress_bar_enabled,
            transformers_bars.disable_progress_bar,
            transformers_bars.enable_progress_bar,
        ),
        (
            evaluate_bars.is_progress_bar_enabled,
            evaluate_bars.disable_progress_bar,
            evaluate_bars.enable_progress_bar,
        ),
    ]


@contextmanager
def library_progress_bars(shown: bool) -> Iterator[None]:
    """With ``shown`` False (``-q``, ``--no-progress``) every library's progress bars are off while
    the block runs, and those that were on are turned on again after it (a caller's own settings
    stay as they were)."""
    turn_on_again = []
    if not shown:
        for is_on, disable, enable in progress_switches():
            if is_on():
                disable()
                turn_on_again.append(enable)
    try:
        yield
    finally:
        for enable in turn_on_again:
            enable()
