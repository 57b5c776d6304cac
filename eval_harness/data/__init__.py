"""Loaders and builders for the project's datasets (filled in by the datasets work)."""

DATASETS: dict = {}


def build_datasets(names=None, out_dir=None, source_dir=None):
    raise NotImplementedError
