"""The ``eec`` suite (Câmara et al. 2022): emotion regressors scored on Equity Evaluation Corpora.

For a model and a language, per emotion (anger, fear, joy, sadness):

1. train (or load from the cache) the model's emotion-intensity regressor on SemEval-2018
   for that language and emotion, and record its Pearson r on the validation and test splits
   (unit ``dataset="semeval2018_affect", config=<language>``);
2. score the sentences of every EEC of the language whose emotion word is of that emotion
   (``en``: the three English EECs, ``es``: the Spanish one, ``ar``: the Arabic one);
3. fit the intersectional Beta regression ``logit(E[y]) = b0 + b1 minority + b2 female +
   b3 minority female`` (:func:`eval_harness.stats.betareg.fit_intersectional`, the ``eec_bias``
   metric) per EEC x emotion (unit ``dataset="eec", config=<EEC config>``). Noun-phrase
   sentences ("my mother") carry no group and are left out of the fit, as the metric does.
   An EEC with another design (more groups or genders, such as a non-binary gender, or further
   identity factors: a corpus generated from a spec in the config, :mod:`.corpora`) gets the
   factorial fit of every main effect and interaction up to ``order``
   (:func:`eval_harness.stats.factorial.fit_factorial`): every coefficient, every conditional
   contrast against the reference, the AMEs and the interaction contrasts, each with its own test.

Standard errors: the template-clustered sandwich by default (``cov_type: cluster``, ``cluster_by``:
``[template_id]``, or ``[template_id, person]`` two-way), because EEC rows are templates crossed
with persons, not independent sentences: when templates shift the effects, model-based tests reject
a true null far above their level (tests/stats/test_betareg_cluster.py). ``cov_type: model`` reports
the paper's model-based ones (``configs/camara2022.yaml``, for parity with its tables); every
estimate and effect then also carries its template-clustered standard error and p-value. A model
whose clustered covariance is singular (it scores both groups alike within every template) keeps the
model-based fit, with a note.
Every estimate and effect carries the minimum detectable effect of its template-clustered test
(``mde``, 80 % power); every effect its equivalence margin (``equivalence_margin``, the report's
TOST "within +-delta") and, in the 2 x 2 design, the power planner's variance components
(:mod:`.planner`); and, unless ``stability_resamples: 0``, how stable it is under other templates,
names and (a zero-shot judge, ``prompt_spread``) prompt paraphrases (:mod:`.stability`).

Records: see :func:`~.records.beta_regression_records` (coefficients, effects on the intensity
scale, precision, cell means; of the paper's design or any other) and
:func:`~.records.regressor_records` (Pearson r per split). Samples: every
EEC unit keeps the score of each sentence it scored beside its unit file (:mod:`.samples`, whose
schema declares the columns), so a reader can refit it without the model.
"""

import warnings
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, cast

import numpy as np

from ...contract import Judge, Suite, SuiteContext, Task, Unit, UnitKey
from ...contract.capabilities import JudgeScores
from ...contract.suite import Shared
from ...data.catalog import EEC_CONFIGS, EEC_CONFIGS_BY_LANGUAGE, EEC_EMOTIONS
from ...errors import ConfigError, InputError
from ...stats.results import is_missing
from .corpora import (
    IDENTITY_COLUMNS,
    check_generated,
    corpus_names,
    generated_specs,
    identity_factors,
    load_corpus,
)
from .planner import EQUIVALENCE_MARGIN, planner_fields, with_margin
from .records import EEC_RECORDS, beta_regression_records, regressor_records, validity_records
from .samples import EEC_SAMPLES, eec_samples
from .stability import (
    STABILITY_RESAMPLES,
    prompt_spread,
    template_and_person_stability,
    with_stability,
)

QUALITY_DATASET = "semeval2018_affect"
# The draw of `sample:` and of the stability resamples: one for every seed, so that between-seed
# variance is training variance alone.
SAMPLE_SEED = 0


def _corpus_key(name: str) -> tuple:
    """A corpus's key in the run's shared objects: led by None, it outlives the models (every model
    and seed scores the same corpora)."""
    return (None, "eec-corpus", name)


class EECSuite(Suite):
    name = "eec"
    description = (
        "emotion regressors on the Equity Evaluation Corpora, Beta regression per EEC x emotion"
    )
    languages = tuple(EEC_CONFIGS_BY_LANGUAGE)
    datasets = ("eec", "semeval2018_affect")
    records = EEC_RECORDS
    samples = EEC_SAMPLES
    report_section = "eval_harness.suites.eec.report:SECTION"
    trains = True  # the emotion regressor, per seed
    options = {
        "emotions": list(EEC_EMOTIONS),  # which emotions to run
        "configs": [],  # EEC configs to run; a language with none listed runs all of its own
        # None: z tests for model-based standard errors (R betareg), t with G - 1 df for clustered
        # ones;
        # True: t tests (n - 4 df: the paper's wording); False: z tests.
        "use_t": None,
        # "cluster" (sandwich by cluster_by) or "model" (the paper's, for parity)
        "cov_type": "cluster",
        "cluster_by": ["template_id"],  # one or two of template_id, person
        # Stability of every finding (.stability): template and name bootstrap resamples (0: none).
        "stability_resamples": STABILITY_RESAMPLES,
        # A zero-shot judge also scores the sentences under each paraphrase of its prompt (the
        # prompt spread).
        "prompt_spread": True,
        # Rows per template x group x gender cell to score (0: every row), the same rows for every
        # seed (so that the seeds differ by their regressors' training alone). For a quick look at a
        # slow model (a demo); a sample keeps every cell of the design but fewer names per cell.
        "sample": 0,
        # Rows per cell a zero-shot judge scores (0: as `sample`): a judge is slow, so a run can
        # score every sentence with its other models and a sample with the judge.
        "judge_sample": 0,
        # Corpora generated from a spec (corpora.py): name -> generate_eec's keys (+
        # reference_gender, factors).
        "generated": {},
        # The highest order of interaction a k-level fit includes (None: every one, the saturated
        # model); the shipped 2 x 2 EECs always get the paper's saturated fit.
        "order": None,
        # The margin delta of every effect's equivalence test (TOST: "within +-delta"), on the 0-1
        # intensity scale; 0: none. The report's power planner asks what design would detect delta.
        "equivalence_margin": EQUIVALENCE_MARGIN,
    }
    limit_option = "sample"  # xbias run --limit N: N sentences per template x group x gender cell

    def validate_options(self, options: Mapping[str, Any]) -> None:
        # The fit's own checks, here before anything runs (from the light module: no pandas or
        # scipy).
        from ...stats.equivalence import INTENSITY_WIDTH, check_margin
        from ...stats.fit_options import CLUSTER_COLUMNS, MAX_BOOTSTRAP, clusters_from_columns

        if not (options["use_t"] is None or isinstance(options["use_t"], bool)):
            raise ConfigError(
                f"use_t must be true, false or null (automatic), got {options['use_t']!r}"
            )
        placeholders = dict.fromkeys(
            CLUSTER_COLUMNS, ()
        )  # every column the fit may cluster by is there
        try:
            clusters_from_columns(options["cov_type"], None, placeholders)  # cov_type
            clusters_from_columns(
                "cluster", options["cluster_by"], placeholders
            )  # cluster_by, however it is used
        except InputError as error:
            raise ConfigError(str(error)) from None
        self._emotions(options)
        for name in ("sample", "judge_sample"):
            if (
                isinstance(options[name], bool)
                or not isinstance(options[name], int)
                or options[name] < 0
            ):
                raise ConfigError(
                    f"{name} must be a whole number of rows "
                    f"per cell (0: all), got {options[name]!r}"
                )
        resamples = options["stability_resamples"]
        if isinstance(resamples, bool) or not 0 <= resamples <= MAX_BOOTSTRAP:
            raise ConfigError(
                "stability_resamples must be a whole number from "
                f"0 (none) to {MAX_BOOTSTRAP}, got {resamples!r}"
            )
        order = options["order"]
        if order is not None and (
            isinstance(order, bool) or not isinstance(order, int) or order < 1
        ):
            raise ConfigError(
                f"order must be a whole number >= 1 (null: every interaction), got {order!r}"
            )
        if options["equivalence_margin"] != 0:
            try:
                check_margin(options["equivalence_margin"], INTENSITY_WIDTH)
            except InputError as error:
                raise ConfigError(f"eec: {error} (0: no equivalence tests)") from None
        check_generated(options["generated"], self.languages)
        known = (*EEC_CONFIGS, *generated_specs(options))
        unknown = [config for config in options["configs"] if config not in known]
        if unknown:
            raise ConfigError(f"unknown EEC config(s) {unknown}; configs: {', '.join(known)}")

    def plan(self, model, language: str, options: Mapping[str, Any]) -> list[UnitKey]:
        emotions, configs = self._emotions(options), self._configs(language, options)
        return [
            UnitKey(dataset=QUALITY_DATASET, config=language, emotion=emotion)
            for emotion in emotions
        ] + [
            UnitKey(dataset="eec", config=config, emotion=emotion)
            for config in configs
            for emotion in emotions
        ]

    @staticmethod
    def _emotions(options: Mapping[str, Any]) -> list[str]:
        unknown = [emotion for emotion in options["emotions"] if emotion not in EEC_EMOTIONS]
        if unknown or not options["emotions"]:
            raise ConfigError(
                "eec: emotions must be some of "
                f"{', '.join(EEC_EMOTIONS)}; got {options['emotions']}"
            )
        return list(options["emotions"])

    @staticmethod
    def _configs(language: str, options: Mapping[str, Any]) -> list[str]:
        """The EEC configs (shipped or generated) of ``language`` listed in ``options["configs"]``
        (checked by validate_options), or all of them when none is."""
        available = corpus_names(language, options)
        return [config for config in options["configs"] if config in available] or available

    def texts_to_score(self, task: Task, shared: Shared | None = None) -> list[str]:
        """The distinct EEC sentences ``task``'s units score (each EEC x emotion, ``sample`` drawn
        as prepare draws it); ``shared``: the run's, whose corpora :meth:`prepare` reads again."""
        found: dict[str, None] = {}
        per_cell = rows_per_cell(task.options, judge="judge" in task.model.capabilities)
        units = [
            unit for unit in task.units if unit.dataset == "eec"
        ]  # not the regressor-quality units
        for name, emotion in sorted(
            {(unit.part("config"), unit.part("emotion")) for unit in units}
        ):
            read = partial(load_corpus, name, task.options)
            corpus = shared(_corpus_key(name), read) if shared is not None else read()
            rows = corpus[corpus["emotion"] == emotion]
            if per_cell:
                rows = stratified_sample(
                    rows, per_cell, SAMPLE_SEED, tuple(identity_factors(name, task.options))
                )
            found.update(dict.fromkeys(rows["sentence"].tolist()))
        return list(found)

    def prepare(self, task: Task, ctx: SuiteContext) -> dict:
        """Per emotion of the pending units: the regressor (fitted or loaded) and its scores on the
        EECs."""
        emotions = [
            e for e in self._emotions(task.options) if any(unit.emotion == e for unit in task.units)
        ]
        eec_configs = sorted({unit.part("config") for unit in task.units if unit.dataset == "eec"})
        # Read once per run (every model and seed scores the same corpora): a key led by None
        # outlives the models.
        corpora = {
            name: ctx.shared(_corpus_key(name), partial(load_corpus, name, task.options))
            for name in eec_configs
        }
        prepared: dict[str, Any] = {"options": task.options, "scores": {}, "eec": {}}
        for emotion in emotions:
            ctx.status(
                f"{task.model.name} {task.language} {emotion}: the "
                "emotion regressor (trained once, then cached)"
            )
            regressor = ctx.models.emotion_regressor(task.model, task.language, emotion, task.seed)
            prepared["scores"][emotion] = regressor.scores
            for name in eec_configs:
                if not any(unit.config == name and unit.emotion == emotion for unit in task.units):
                    continue
                rows = with_emotion_slots(corpora[name][corpora[name]["emotion"] == emotion])
                factors = identity_factors(name, task.options)
                per_cell = rows_per_cell(task.options, judge="judge" in task.model.capabilities)
                pool = pool_names = (
                    None  # the sentences and names each template x cell drew from (planner's M, P)
                )
                if per_cell:
                    pool = sentences_per_cell(rows, tuple(factors))
                    pool_names = names_per_cell(rows, tuple(factors))
                    rows = stratified_sample(rows, per_cell, SAMPLE_SEED, tuple(factors))
                texts = rows["sentence"].tolist()
                ctx.status(
                    f"{task.model.name} {task.language} {emotion}: "
                    f"scoring {len(texts)} sentences of {name}"
                )
                validity, mass, prompts = None, None, None
                if "judge" in task.model.capabilities:
                    # A zero-shot judge: how much of its answer fell on the scale's numerals, on
                    # these sentences.
                    judge = cast(Judge, regressor)  # what the capability promises (tests/contract)
                    scores = judge.score(texts)
                    y, validity, mass = scores.value, scores.validity(), scores.numeral_mass
                    if task.options["prompt_spread"]:
                        prompts = paraphrase_scores(
                            judge, texts, scores, ctx, f"{task.model.name} {name}"
                        )
                else:
                    y = regressor.predict(texts)
                prepared["eec"][name, emotion] = {
                    # the corpus rows scored (index: their positions in the config), for the samples
                    "rows": rows,
                    "numeral_mass": mass,
                    "validity": validity,
                    "prompts": prompts,
                    "y": y,
                    "factors": {factor: rows[factor].tolist() for factor in factors},
                    "references": factors,
                    "template_id": rows["template_id"].tolist(),
                    "person": rows["person"].tolist(),
                    "pool": pool,
                    "pool_names": pool_names,
                }
        return prepared

    def evaluate(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> list[dict]:
        if unit.dataset == QUALITY_DATASET:
            return regressor_records(prepared["scores"][unit.emotion])
        data, options = prepared["eec"][unit.config, unit.emotion], prepared["options"]
        fit, paper = identity_fit(data, options)

        notes = set()
        if options["cov_type"] == "cluster":
            try:
                result, fit_notes = noted_fit(fit, options["cluster_by"])
            except InputError as error:
                # A singular clustered covariance (see the except below): report the model-based
                # fit.
                notes.add(
                    f"no template-clustered standard errors: {error}; model-based ones reported"
                )
                result, fit_notes = noted_fit(fit, None)
        else:
            result, fit_notes = noted_fit(fit, None)
        notes |= fit_notes
        # The template-clustered test of every number, beside the reported one (see the module
        # docstring).
        clustered = result if result.cov_type == "cluster" else None
        if clustered is None and options["cov_type"] == "model":
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the same data: its warnings were noted above
                    clustered = fit(["template_id"])
            except InputError as error:
                # E.g. a model that scores both groups alike within every template (names unknown to
                # SVM-tfidf): no between-template variation, so the sandwich is singular. The
                # reported, model-based fit stands; the records say why they carry no clustered
                # test.
                notes.add(f"no template-clustered standard errors: {error}")
        if paper:  # the paper's 2 x 2 design
            # the same resamples for every seed, as the same sample: seeds then differ by training
            # alone
            stability = finding_stability(data, result, options, SAMPLE_SEED, notes)
            spread = judge_prompt_spread(
                data.get("prompts"), result, lambda y: fit(result.cluster_by, y), notes
            )
            planner = planner_fields(data)
        else:
            stability, spread, planner = {}, {}, {}
            if options["stability_resamples"] or data.get("prompts"):
                notes.add(
                    "no stability or prompt-spread fields: they are computed for 2 x 2 designs only"
                )
        records = beta_regression_records(
            result, note="; ".join(sorted(notes)) or None, clustered=clustered
        )
        records = with_margin(
            with_stability(records, stability, spread, planner), options["equivalence_margin"]
        )
        return records + validity_records(data["validity"], data.get("prompts"))

    def keeps_samples(self, unit: Unit) -> bool:
        """An EEC unit keeps its sentences' scores; a regressor's SemEval r keeps none."""
        return unit.dataset == "eec"

    def unit_samples(self, unit: Unit, prepared: dict, ctx: SuiteContext) -> dict | None:
        if not self.keeps_samples(unit):
            return None
        return eec_samples(unit.part("config"), prepared["eec"][unit.config, unit.emotion])

    def headline(self, records: Sequence[dict]) -> dict | None:
        """The intersection coefficient for an EEC unit (for another design: the first coefficient
        of its highest interaction, else its first group coefficient); the test-split Pearson r for
        a regressor unit."""
        for record in records:
            if record.get("term") == "group:gender" and record["metric"] == "estimate":
                return record
            if record["metric"] == "pearson_r" and record.get("split") == "test":
                return record
        estimates = [
            r
            for r in records
            if r["metric"] == "estimate" and r.get("model_term") not in (None, "intercept")
        ]
        tested = [r for r in estimates if r.get("lr_statistic") is not None]
        chosen = tested or estimates
        return chosen[0] if chosen else super().headline(records)


def noted_fit(fit, covariance) -> tuple[Any, set[str]]:
    """``fit(covariance)`` and its warnings' messages (the records' notes: a squeeze, a fit that did
    not converge, a one-way variance standing in): a fit that raises takes its warnings with it, so
    that the notes describe the fit reported, not one abandoned (the two-way fit's stand-ins on a
    unit reported with model-based standard errors)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fit(covariance)
    return result, {str(warning.message) for warning in caught}


def identity_fit(data: Mapping[str, Any], options: Mapping[str, Any]):
    """``(fit, paper)`` for one EEC x emotion: ``fit(cluster_by, y)`` fits the Beta regression
    (``cluster_by``: the cluster columns, None: model-based; ``y``: the scores, by default the
    unit's); ``paper``: whether it is the paper's 2 x 2 design.

    Two factors of two levels each (group and gender, as in the shipped EECs) get the paper's
    intersectional fit (:func:`~eval_harness.stats.betareg.fit_intersectional`: the factorial fit
    under the paper's names); any other design (more levels, more factors, or ``order`` 1) the
    factorial fit of every main effect and interaction up to ``order``
    (:func:`~eval_harness.stats.factorial.fit_factorial`). Either result's records are
    :func:`~.records.beta_regression_records`.
    """
    # Here, not at the top: statsmodels and scipy are slow to import (xbias list).
    from ...stats.betareg import fit_intersectional
    from ...stats.factorial import fit_factorial

    factors, references = data["factors"], data["references"]

    def clusters(cluster_by):
        return {name: data[name] for name in cluster_by} if cluster_by else None

    if is_two_by_two(factors) and options["order"] in (None, 2):

        def intersectional(cluster_by, y=data["y"]):
            return fit_intersectional(
                y,
                factors["group"],
                factors["gender"],
                reference_group=references["group"],
                reference_gender=references["gender"],
                use_t=options["use_t"],
                cov_type="cluster" if cluster_by else "model",
                clusters=clusters(cluster_by),
            )

        return intersectional, True

    def factorial(cluster_by, y=data["y"]):
        return fit_factorial(
            y,
            factors,
            references,
            order=None if options["order"] is None else min(options["order"], len(factors)),
            use_t=options["use_t"],
            cov_type="cluster" if cluster_by else "model",
            clusters=clusters(cluster_by),
        )

    return factorial, False


def is_two_by_two(factors: Mapping[str, list]) -> bool:
    """Whether the design is the paper's: group and gender only, each with two levels among the rows
    that have every label (the rows the fit keeps: None or NaN is a missing label)."""
    if tuple(factors) != IDENTITY_COLUMNS:
        return False
    kept = [
        labels for labels in zip(*factors.values(), strict=True) if not any(map(is_missing, labels))
    ]
    return all(len({labels[k] for labels in kept}) == 2 for k in range(len(factors)))


def paraphrase_scores(
    judge: Judge, texts: list[str], scores: JudgeScores, ctx: SuiteContext, what: str
) -> dict[str, JudgeScores] | None:
    """The judge's scores of ``texts`` under each of its prompts (paraphrase name ->
    ``PromptScores``), the reported prompt's (``scores``) first; None when the judge has a single
    prompt for the language."""
    names = judge.prompt_names()
    if len(names) < 2:
        return None
    spread = {names[0]: scores}
    for name in names[1:]:
        ctx.status(f"{what}: scoring {len(texts)} sentences with the prompt paraphrase {name!r}")
        spread[name] = judge.with_prompt(name).score(texts)
    return spread


def finding_stability(
    data: Mapping, result, options: Mapping[str, Any], seed: int, notes: set[str]
) -> dict:
    """The stability fields of the fit's findings under template and name resamples
    (:mod:`.stability`), with the reported standard errors; empty (and a note) when the resamples
    cannot be fitted."""
    if not options["stability_resamples"]:
        return {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # the same data as the reported fit: its warnings are noted
            return template_and_person_stability(
                data,
                result,
                use_t=options["use_t"],
                n_bootstrap=options["stability_resamples"],
                seed=seed,
            )
    except InputError as error:
        notes.add(f"no stability fields: {error}")
        return {}


def judge_prompt_spread(prompts: Mapping | None, result, fit, notes: set[str]) -> dict:
    """The prompt-spread fields (:func:`.stability.prompt_spread`) from one ``fit(y)`` per prompt
    paraphrase (with the reported standard errors); a paraphrase whose fit fails is left out with a
    note."""
    if not prompts:
        return {}
    reported = next(iter(prompts))
    fits = {reported: result}
    for name, scores in list(prompts.items())[1:]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits[name] = fit(scores.value)
        except InputError as error:
            notes.add(f"prompt paraphrase {name!r} left out of the prompt spread: {error}")
    return prompt_spread(fits, reported) if len(fits) > 1 else {}


def rows_per_cell(options: Mapping[str, Any], judge: bool) -> int:
    """How many rows of each template x identity cell a model scores (0: all): ``judge_sample`` for
    a zero-shot judge when it is set, else ``sample``."""
    return options["judge_sample"] if judge and options["judge_sample"] else options["sample"]


def with_emotion_slots(rows):
    """``rows`` with ``emotion_slot``: each sentence's place among its name's sentences in its
    template (0 .. W - 1, in corpus order), counted before a sample. The planner's word: the same
    slot in every identity cell even where the language inflects the emotion word by gender (Spanish
    ``enojado``/``enojada``, Arabic), so that it sees the layout as crossed and a template's own
    word effects cancel in a contrast of its cells."""
    return rows.assign(emotion_slot=rows.groupby(["template_id", "person"], sort=False).cumcount())


def sentences_per_cell(rows, factors: tuple[str, ...] = IDENTITY_COLUMNS) -> float:
    """The harmonic mean of the rows per template x identity cell (rows with every factor), before a
    sample."""
    from ...stats.design_power import (
        harmonic_mean,
    )  # here: the planner's numerics stay out of a config check

    return harmonic_mean(
        rows.dropna(subset=list(factors)).groupby(["template_id", *factors]).size()
    )


def names_per_cell(rows, factors: tuple[str, ...] = IDENTITY_COLUMNS) -> float:
    """The harmonic mean of the distinct names (``person``) per template x identity cell, before a
    sample."""
    return sentences_per_cell(rows.drop_duplicates(["template_id", "person"]), factors)


def stratified_sample(rows, per_cell: int, seed: int, factors: tuple[str, ...] = IDENTITY_COLUMNS):
    """At most ``per_cell`` rows of every template x identity cell (``factors``: group x gender, and
    a generated corpus's further factors; noun-phrase rows, whose group is missing, form cells of
    their own), drawn without replacement with ``seed``; the rows keep their order."""
    keys = ["template_id", *(rows[factor].fillna("") for factor in factors)]
    cells = rows.groupby(keys, sort=False).indices.values()
    rng = np.random.default_rng(seed)
    keep = [
        index
        for cell in cells
        for index in (rng.choice(cell, per_cell, replace=False) if len(cell) > per_cell else cell)
    ]
    return rows.iloc[np.sort(np.asarray(keep, dtype=int))]


SUITE = EECSuite()
