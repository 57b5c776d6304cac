"""Fixtures of the metric tests."""

import sys

import pytest


@pytest.fixture(scope="module")
def named(load_metric_elsewhere):
    """eec_bias's own renaming of the library's dict (each statistic also named z or t, the
    covariance's parameter names), checked on its own in test_eec_bias_metric.py: the other tests
    compare the library's numbers through it."""
    return sys.modules[type(load_metric_elsewhere("eec_bias")).__module__].named_for_distribution
