"""The public source files the dataset builders read, and how to get them verified.

Every file has a path relative to the source directory, the sha256 of its bytes
(``../shared/data/README.md``) and a canonical public address. The source
directory is the ``source_dir`` argument (``xbias datasets build --source-dir``),
else ``$XBIAS_SOURCE_DIR``, else ``../shared/data`` beside the checkout xbias runs
from when that folder exists (where ``make`` points the variable too): one lookup
for ``make``, the CLI and the Python API. With none, the files are downloaded from
their addresses into the Hugging Face cache. Whatever the origin, a file whose sha256
differs from the registry's is refused with a one-line :class:`SourceDataError`
that names the file, where it was expected and the variable to set.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..errors import SourceDataError
from ..io import file_sha256

SOURCE_DIR_VARIABLE = "XBIAS_SOURCE_DIR"
# The folder above the package: a checkout's root (its ../shared/data is the project's source data).
CHECKOUT_ROOT = Path(__file__).resolve().parents[2]
# What every error about the source folder says to do: the variable works for every command.
_REMEDY = f"set {SOURCE_DIR_VARIABLE} (xbias datasets build also takes --source-dir)"

_EEC_URL = "https://raw.githubusercontent.com/ascamara/ml-intersectionality/main/eec/{}"
_SEMEVAL_URL = "https://raw.githubusercontent.com/ascamara/ml-intersectionality/main/data/{}"
_XWEAT_URL = "https://raw.githubusercontent.com/umanlp/XWEAT/master/data/{}"
_XWEAT_SCRIPT_URL = "https://raw.githubusercontent.com/umanlp/XWEAT/master/weat.py"
_DEBIASWE_URL = "https://raw.githubusercontent.com/tolga-b/debiaswe/master/data/{}"
_DEBIASWE_LICENSE_URL = "https://raw.githubusercontent.com/tolga-b/debiaswe/master/LICENSE"
_LIPSTICK_URL = (
    "https://raw.githubusercontent.com/gonenhila/gender_bias_lipstick/master/data/lists/{}"
)


@dataclass(frozen=True)
class SourceFile:
    """One source file: ``path`` under the source directory, its ``sha256`` and canonical ``url``.

    ``derive`` is set when the canonical address holds the material in another
    form (the WEAT lists live in XWEAT's ``weat.py``): it turns the downloaded
    bytes into this file's bytes, which must then match ``sha256``.
    """

    path: str
    sha256: str
    url: str
    derive: Callable[[bytes], bytes] | None = None


# The ten WEAT tests' set names (the keys of weat_tests_en.json), in XWEAT's order
# targets_1, targets_2, attributes_1, attributes_2.
WEAT_SET_NAMES = {
    "T1": ("flowers", "insects", "pleasant", "unpleasant"),
    "T2": ("instruments", "weapons", "pleasant", "unpleasant"),
    "T3": ("european_american_names", "african_american_names", "pleasant", "unpleasant"),
    "T4": ("european_american_names", "african_american_names", "pleasant", "unpleasant"),
    "T5": ("european_american_names", "african_american_names", "pleasant", "unpleasant"),
    "T6": ("male_names", "female_names", "career", "family"),
    "T7": ("math", "arts", "male_terms", "female_terms"),
    "T8": ("science", "arts", "male_terms", "female_terms"),
    "T9": ("mental_disease", "physical_disease", "temporary", "permanent"),
    "T10": ("young_names", "old_names", "pleasant", "unpleasant"),
}
_WEAT_LIST_NAMES = ("targets_1", "targets_2", "attributes_1", "attributes_2")
_WEAT_SOURCE_NOTE = (
    "WEAT word lists (Caliskan et al. 2017) as used by XWEAT "
    "(Lauscher & Glavas 2019), github umanlp/XWEAT weat.py"
)


def weat_tests_from_xweat_script(script: bytes) -> bytes:
    """``weat_tests_en.json`` from XWEAT's ``weat.py``, read with :mod:`ast` (nothing is executed).

    The lists are the literal assignments to ``targets_1``, ``targets_2``,
    ``attributes_1`` and ``attributes_2`` in the methods ``weat_1`` ... ``weat_10``;
    the JSON is ``{"source": ..., "tests": [{"test", "targets", "attributes"}]}``
    written with one-space indentation, byte-identical to the shared copy.
    """
    tree = ast.parse(script.decode("utf-8"))
    methods = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    tests = []
    for test, (x_name, y_name, a_name, b_name) in WEAT_SET_NAMES.items():
        method = methods.get(f"weat_{test[1:]}")
        if method is None:
            raise SourceDataError(
                f"XWEAT's weat.py has no method weat_{test[1:]}: cannot derive the WEAT lists"
            )
        lists = {
            node.targets[0].id: ast.literal_eval(node.value)
            for node in ast.walk(method)
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in _WEAT_LIST_NAMES
        }
        if set(lists) != set(_WEAT_LIST_NAMES):
            raise SourceDataError(
                f"XWEAT's weat.py method weat_{test[1:]} assigns "
                f"{sorted(lists)}, not {list(_WEAT_LIST_NAMES)}"
            )
        tests.append(
            {
                "test": test,
                "targets": {x_name: lists["targets_1"], y_name: lists["targets_2"]},
                "attributes": {a_name: lists["attributes_1"], b_name: lists["attributes_2"]},
            }
        )
    return json.dumps({"source": _WEAT_SOURCE_NOTE, "tests": tests}, indent=1).encode("utf-8")


# sha256 and path of every source file, as listed in the source data's README.md.
_DIGESTS = """
5204d6d0c8050c19071b061ea23d042b7de7f792eb2d8177b244d878a2c40355  eec/ar.csv
43627c31d2e2bf8501bc045140d15e17d369434957fb2bb56355cd76418246e2  eec/en.csv
e432b3ab0aa4f527c54fea3157a8dd27e2e51d748afd8e4c750f493c14c7bf00  eec/en_ar.csv
5b316402d882a8b3aae1a10ad3de36644f2f8289db4824d87dc8260dd7426d2a  eec/en_es.csv
be48f4033df0b2251f26e6652e6204e39f2269b0afe85f23a751b1006853968a  eec/es.csv
be45f9c3b9b5e15dd1798b50c6ac9e1dcbdbde107ac3cb51f7b23ebb3c1eaf5d  gender_lists/LICENSE.debiaswe
f2387fdd4ae4d956083ee7594f1401b1ba112914d40a99bb61d481de73db9614  gender_lists/definitional_pairs.json
b6e7dda64461e7828f8d184a51216a87aefcfc2b726d3691aa15b7acc2a1994c  gender_lists/equalize_pairs.json
83c47fe6ac92603f366ab8dbc4b25fe78e4022bc63ef36ccd27da0c92d99875e  gender_lists/female_word_file.txt
300068da1885e9dc8bf2235d987fd0cf5d0b08a6877a0a639ee0060a989bac1f  gender_lists/gender_specific_full.json
9802a524c932d9f0b9b4ecd7ffc429a42d7f8dbe9cbe2020741f984255138958  gender_lists/gender_specific_seed.json
063bc7cf39868cb45b25b6faadd308f84ef65ebebaff4467556bb357930b520a  gender_lists/male_word_file.txt
32cc82c7761e7cfb14e37e06dc1aa9f758bc8441f79ca7288996d3fc7c24639a  gender_lists/professions.json
28281b7a3374833bfd224ffb2758d7aa0ed051d0bf5182390de7c7b5fd5a38f5  semeval2018/2018-EI-reg-Ar-anger-dev.txt
761f4054f38935689990074913f3aab4a0dfb2a8d2286ed9285af3ca46ff5c22  semeval2018/2018-EI-reg-Ar-anger-test-gold.txt
77d7654f72df50497014e102c05388e6071411c5648006392968576240812427  semeval2018/2018-EI-reg-Ar-anger-train.txt
4d9f98958f14e4b850f936594907ca7124ca23ae327c2e2deebfe3eee7b2c6f5  semeval2018/2018-EI-reg-Ar-fear-dev.txt
4a2ccceab0b8314111e38a9ee8dc28bdf3de09b8cbfa07ad013a4cfbe0965e1a  semeval2018/2018-EI-reg-Ar-fear-test-gold.txt
6c7a02f8c1c601b49b60c2f1cf8c25a51c4305890e29b76aa97f1552fa50de18  semeval2018/2018-EI-reg-Ar-fear-train.txt
b02e69720a378c6a14893d44a4bd100aaa61b0588c8f01f7193f84cb074598d3  semeval2018/2018-EI-reg-Ar-joy-dev.txt
d3fead72a13b0c9fe773f1af4aa8c8672d179f9cb1aa855ead062bc044d43026  semeval2018/2018-EI-reg-Ar-joy-test-gold.txt
b001adecab717e1bc5d3dd64a4d6ed704946676a18191bc61eaa8a9a9c366da9  semeval2018/2018-EI-reg-Ar-joy-train.txt
040abc755f18aef1c7a07bd19915160779b7f6e9428f0cc1d42008adf9c6c32a  semeval2018/2018-EI-reg-Ar-sadness-dev.txt
de78bfa881f02be7455defeaefc2d5828f9d92a692337537c5754c20f0dbe52d  semeval2018/2018-EI-reg-Ar-sadness-test-gold.txt
07488060d3a4af875ebdff797bdcd3443c351dcfcaf6447c01fe2d9aff9a7505  semeval2018/2018-EI-reg-Ar-sadness-train.txt
619f9ff32fe3685e3d0ff1b1dbe0ae0a142b895644ac2fc5f39db0db0fafabaa  semeval2018/2018-EI-reg-En-anger-dev.txt
9072575110058f1a674722ff6b0172191418d7989578ff3bb6a209ad412a0570  semeval2018/2018-EI-reg-En-anger-test-gold.txt
f99671de9ef5db9f4aa61da5a1fe399decf1d14083c0ecffab6b13a98e2db837  semeval2018/2018-EI-reg-En-anger-train.txt
36d0bb123aa6ec28cfe1eacf4fa83685b4c85f4d95f37fa05bb039f76815ee47  semeval2018/2018-EI-reg-En-fear-dev.txt
8ce9960540fccffa0f1280b5af2e02735d07584a50edd74c449f8233f00df8ad  semeval2018/2018-EI-reg-En-fear-test-gold.txt
06e4946ace795c4bb8e9d15abbeba00bf5c8d31b4e5935fc8a0504d622c57983  semeval2018/2018-EI-reg-En-fear-train.txt
87f490f209da9e68cda7b3c6ce2fb7508f893eba128ff9e344df9803a09f2cbc  semeval2018/2018-EI-reg-En-joy-dev.txt
a1ca3cbb697aacd5a7103ba872bec300f352c7bbac8c3d1a2d53daa2e82151fc  semeval2018/2018-EI-reg-En-joy-test-gold.txt
f73d324288a3934a6cb671d9d82bc49cf124b104c8987d6b9a168bcc0c2ec1ee  semeval2018/2018-EI-reg-En-joy-train.txt
ac8eac15bd9b1a9ee3a5853e52a19c4e04e04adf4a0fac1023e6b64d7cabc464  semeval2018/2018-EI-reg-En-sadness-dev.txt
780d19d53244300c19cffbf5ce75650e3646fb87305e7db8ad14e12d0991bee9  semeval2018/2018-EI-reg-En-sadness-test-gold.txt
05f8807a5d6e613774cf871f0764b9771a8a3f2ae5c68ba7ceda56ce85d71967  semeval2018/2018-EI-reg-En-sadness-train.txt
35b6676605950f9e8b20885fdc46dd38c8051ac7abf0eb2cd6c31b56470af5d9  semeval2018/2018-EI-reg-Es-anger-dev.txt
61b221d0d50359551dec6b8b1a14ef23738301f6525488bc40f23edb9e69d0ba  semeval2018/2018-EI-reg-Es-anger-test-gold.txt
d64f1486ae1d3adc0a221feb246920c9c8259aaa3e1fbfec84011480db2cbf1e  semeval2018/2018-EI-reg-Es-anger-train.txt
976d373b32284baec615ea285b787740a5c01612039588bf4a068a1a64d4b3c0  semeval2018/2018-EI-reg-Es-fear-dev.txt
709d2ecf457f035f18f32bea043ba7852fccab02d00cb11495c1c46144d52693  semeval2018/2018-EI-reg-Es-fear-test-gold.txt
e925349986ff69cf92add4566de501ab61c2d60a21c03d0a823ca5c22112b8f6  semeval2018/2018-EI-reg-Es-fear-train.txt
e6d1e6a15fd921c752fdc347a02d94362f9fa44a3d7d76123614969451eb1472  semeval2018/2018-EI-reg-Es-joy-dev.txt
0283780a0465b7050e3cb0abc18d362f1de4b98c57b81a01a34cdb812aeeb270  semeval2018/2018-EI-reg-Es-joy-test-gold.txt
d95019041bbbb4a0f9f671fa2080a408af42d721b1ee12c85c42ce5ee16aebf6  semeval2018/2018-EI-reg-Es-joy-train.txt
d77328d7e647a3ecf8ea70bf576a7f43e4e6274c2b2baea09bcf8da1a1662ddf  semeval2018/2018-EI-reg-Es-sadness-dev.txt
9ddd7a3073128fcf7eba024b0c0809f52907a920e12756187f49afc85882e724  semeval2018/2018-EI-reg-Es-sadness-test-gold.txt
f15e9be4de8ba4b48c455e4a0320147327f006d30db9a005669d21a73dc43870  semeval2018/2018-EI-reg-Es-sadness-train.txt
7ab0cbb171deda9f2ac51538bdfba0a126ff7c8ce23b179431e311256d59ce9f  semeval2018/2018-Valence-reg-Ar-dev.txt
965bb13bedd35c77f2fa6b4df448161000b5ceada5f041755be9479ee260a04e  semeval2018/2018-Valence-reg-Ar-test-gold.txt
4ee36883ddd41499d83aec78b6457f940e7ee7c19c93239e0eac0a8ef7ce34ea  semeval2018/2018-Valence-reg-Ar-train.txt
2c8630b80c44e87c81dc4f49d10aad4eb36143cb1ebeb034ba38b12f0bc6053f  semeval2018/2018-Valence-reg-En-dev.txt
0de1aa917f0fc522bf83a8e8a379400cbd43a0893f2db351c131fd46ab4b3d68  semeval2018/2018-Valence-reg-En-test-gold.txt
5cd3dc24e6198015675abdcdf49e51790d0e669a7324f4f4a3b11a35db161e7c  semeval2018/2018-Valence-reg-En-train.txt
fa3301cfccec185075b0871b2252a93e3af9068da851811447119341e4a0a7fc  semeval2018/2018-Valence-reg-Es-dev.txt
087da870ac358e37028d60c26aae630766ab5bb358afb90242b2d477aec84543  semeval2018/2018-Valence-reg-Es-test-gold.txt
823d17cd7e938c86e3593f3d35daddf49441f4c79a3cdd5d0d380b8d6358a7a6  semeval2018/2018-Valence-reg-Es-train.txt
bb202465017542fc928f6c7468f711fc7ee940840e9ba03980579b2359077c16  xweat/vocab_en.txt
1d6e8321ba63fbed5537573720619b0253307575da7f749a1066bf8714eb0014  xweat/vocab_en_de.csv
723170547a89e7efa81351a21bc14a057236291e5abaa84aa9efe46edd4454d2  xweat/vocab_en_es.csv
7585912eb1494d098deea8a4f745d1fb9f6d30199d34dba7d835cc884a4ef8f3  xweat/vocab_en_hr.csv
2eda00cf9414ec2095cdde33b2ff5b2916d8775eab6da13d9abb43f68059fb36  xweat/vocab_en_it.csv
4fce337c60234210064b58f6e95e4ecb90d0e70258c640431e85b4bac8d0bce6  xweat/vocab_en_ru.csv
f43c2bbdd2e2750ca2660f0560eec1cefd1a55e38d38c5fafcc3797991f624a6  xweat/vocab_en_tr.csv
7f35fac3ad342a6fd9d5d372fcf28bf532ea194ba012325dc92ec761a83ef860  xweat/weat_tests_en.json
"""  # noqa: E501


def _canonical_url(relative: str) -> str:
    folder, name = relative.split("/")
    if folder == "eec":
        return _EEC_URL.format(name)
    if folder == "semeval2018":
        return _SEMEVAL_URL.format(name)
    if folder == "xweat":
        return _XWEAT_SCRIPT_URL if name == "weat_tests_en.json" else _XWEAT_URL.format(name)
    if name == "LICENSE.debiaswe":
        return _DEBIASWE_LICENSE_URL
    return (_LIPSTICK_URL if name.endswith("_word_file.txt") else _DEBIASWE_URL).format(name)


SOURCES: dict[str, SourceFile] = {
    relative: SourceFile(
        relative,
        digest,
        _canonical_url(relative),
        derive=weat_tests_from_xweat_script if relative == "xweat/weat_tests_en.json" else None,
    )
    for digest, relative in (line.split() for line in _DIGESTS.strip().splitlines())
}


def resolve_source_dir(source_dir: str | os.PathLike | None = None) -> tuple[Path | None, str]:
    """The source directory and where it came from: the argument, else ``$XBIAS_SOURCE_DIR``, else
    the checkout's ``../shared/data`` when it exists, else ``(None, "download")``."""
    if source_dir is not None:
        return Path(source_dir).expanduser(), "--source-dir/source_dir"
    if os.environ.get(SOURCE_DIR_VARIABLE):
        return Path(os.environ[SOURCE_DIR_VARIABLE]).expanduser(), f"${SOURCE_DIR_VARIABLE}"
    beside = CHECKOUT_ROOT.parent / "shared" / "data"
    if beside.is_dir():
        return beside, "../shared/data beside the checkout"
    return None, "download"


def source_paths(
    files: Iterable[str], source_dir: str | os.PathLike | None = None
) -> dict[str, Path]:
    """Verified local paths of the given source files (relative paths, keys of :data:`SOURCES`).

    Read from the source directory (:func:`resolve_source_dir`), or downloaded
    into the Hugging Face cache when there is none. Raises
    :class:`SourceDataError` (one line) for a missing directory or file, a
    failed download, or a sha256 mismatch (an altered or truncated file).
    """
    directory, origin = resolve_source_dir(source_dir)
    if directory is not None and not directory.is_dir():
        raise SourceDataError(
            f"source directory {directory} (from {origin}) does not "
            f"exist: {_REMEDY} to the folder holding eec/, semeval2018/, "
            "xweat/ and gender_lists/, or unset it to download the files"
        )
    located = {}
    for relative in files:
        source = SOURCES[relative]
        if directory is None:
            path = _download(source)
        else:
            path = directory / relative
            if not path.is_file():
                raise SourceDataError(
                    f"source file {relative} is missing: expected it at {path} "
                    f"(source directory from {origin}); {_REMEDY} to a folder "
                    f"holding the source data, or get the file from {source.url}"
                )
        _verify(source, path, origin)
        located[relative] = path
    return located


def _verify(source: SourceFile, path: Path, origin: str) -> None:
    actual = file_sha256(path)
    if actual != source.sha256:
        raise SourceDataError(
            f"source file {source.path} at {path} fails its sha256 check (expected "
            f"{source.sha256[:16]}..., got {actual[:16]}..., {path.stat().st_size} "
            f"bytes): it is altered or truncated; restore it from {source.url} or "
            f"{_REMEDY} to an intact copy (source directory from {origin})"
        )


def _download(source: SourceFile) -> Path:
    """Download ``source`` into the Hugging Face datasets cache (derived files into xbias's
    cache)."""
    from datasets import DownloadConfig
    from datasets.utils.file_utils import cached_path

    try:
        downloaded = Path(
            cached_path(source.url, download_config=DownloadConfig())
        )  # shows tqdm progress
    except (
        Exception
    ) as error:  # offline mode, HTTP and connection errors all mean: no copy available
        raise SourceDataError(
            f"cannot download source file {source.path} from "
            f"{source.url} ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else 'no detail'}"
            f"): {_REMEDY} to a folder holding the source data"
        ) from error
    if source.derive is None:
        return downloaded
    derived = paths.cache_root() / "sources" / source.path
    derived.parent.mkdir(parents=True, exist_ok=True)
    derived.write_bytes(source.derive(downloaded.read_bytes()))
    return derived
