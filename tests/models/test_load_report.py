"""transformers' load report: a pooler missing from the checkpoint (never read: xbias pools hidden
states) is said at DEBUG in xbias's log; any other missing, unexpected or mismatched weight keeps
the report as transformers logged it. The real case (e5 as AutoModel) is checked on the packaged
model."""

import logging

import pytest

from eval_harness.models.loading import (
    TRANSFORMERS_LOADER_LOG,
    _load_report_held,
    _pass_load_report,
    load_pretrained,
)


class Records(logging.Handler):
    """The records of the loader's and xbias's loggers, wherever they propagate (transformers stops
    its own)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def logged():
    handler = Records()
    loggers = [
        logging.getLogger(TRANSFORMERS_LOADER_LOG),
        logging.getLogger("eval_harness.models.loading"),
    ]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    yield handler.records
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)


def report(missing, unexpected=()):
    with _load_report_held() as held:
        logging.getLogger(TRANSFORMERS_LOADER_LOG).warning(
            "BertModel LOAD REPORT from: folder\n..."
        )
        logging.getLogger(TRANSFORMERS_LOADER_LOG).warning("another line")
    assert len(held) == 1  # the report alone is held back
    _pass_load_report(
        held, {"missing_keys": list(missing), "unexpected_keys": list(unexpected)}, "folder"
    )


def test_a_missing_pooler_alone_is_said_at_debug(logged):
    report(["pooler.dense.weight", "pooler.dense.bias"])
    assert not [
        r for r in logged if r.name == TRANSFORMERS_LOADER_LOG and "LOAD REPORT" in r.getMessage()
    ]
    (said,) = [r for r in logged if r.name == "eval_harness.models.loading"]
    assert (
        said.levelno == logging.DEBUG
        and "pooler.dense.bias, pooler.dense.weight" in said.getMessage()
    )


@pytest.mark.parametrize(
    ("missing", "unexpected"),
    [
        (["classifier.weight"], []),
        (["pooler.dense.weight", "encoder.layer.0.output.dense.weight"], []),
        (["pooler.dense.weight"], ["cls.predictions.bias"]),
    ],  # fmt: skip
)
def test_any_other_report_stays_a_warning(logged, missing, unexpected):
    report(missing, unexpected)
    (kept,) = [r for r in logged if "LOAD REPORT" in r.getMessage()]
    assert kept.levelno == logging.WARNING and kept.name == TRANSFORMERS_LOADER_LOG
    assert not [r for r in logged if r.name == "eval_harness.models.loading"]


@pytest.mark.slow
def test_the_packaged_e5_loads_without_a_report_on_stderr(capfd):
    from eval_harness.models.packaged import resolve_source

    folder = resolve_source("pypi:multilingual-e5-small")
    capfd.readouterr()
    load_pretrained(folder)
    err = capfd.readouterr().err
    assert "LOAD REPORT" not in err and "MISSING" not in err, err
