"""No model load runs a model folder's own Python unless told to (issue 31, section 1).

A folder whose ``config.json`` has an ``auto_map`` ships code. Left unset, ``trust_remote_code``
makes transformers ask on a terminal, and a ``y`` there imports the folder's module. Every model
type is loaded here the way a run loads it, in a child process on a pseudo-terminal with ``y``
already typed: nothing may ask, and the folder's module (which writes a marker file when imported)
may never run.
"""

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
PROMPT = "Do you wish to run the custom code"
DONE = "load finished"
CLASSES = ("AutoConfig", "AutoModel", "AutoModelForCausalLM", "AutoModelForSequenceClassification")


def remote_code_folder(folder: Path) -> tuple[Path, Path]:
    """A model folder of a type transformers does not know (so only its own code could load it),
    whose config maps every auto class to its module ``remote.py``, which writes the marker file
    when imported; ``(folder, marker)``."""
    folder.mkdir()
    marker = folder.parent / f"{folder.name}-code-ran"
    (folder / "remote.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n", encoding="utf-8"
    )
    auto_map = {name: f"remote.Remote{name}" for name in CLASSES}
    auto_map["AutoTokenizer"] = ["remote.RemoteTokenizer", None]
    config = {"model_type": "xbias-remote", "architectures": ["RemoteModel"], "auto_map": auto_map}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"auto_map": auto_map["AutoTokenizer"]}), "utf-8"
    )
    (folder / "vectors.txt").write_text("he 1.0 0.0\nshe 0.0 1.0\n", encoding="utf-8")
    (folder / "model.gguf").write_bytes(b"GGUF" + bytes(64))
    return folder, marker


def on_a_terminal(code: str, timeout: float = 240.0) -> str:
    """What ``python -c code`` printed, run on a pseudo-terminal (stdin, stdout, stderr) with ``y``
    typed ahead."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    controller, terminal = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        cwd=REPOSITORY,
    )
    os.close(terminal)
    os.write(controller, b"y\n")
    output, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            elif child.poll() is not None:
                break
    finally:
        child.kill()
        child.wait()
        os.close(controller)
    return output.decode(errors="replace")


LOADS = {
    "encoder": "from eval_harness.models.encoder import TransformerEncoder\n"
    "TransformerEncoder.from_pretrained(FOLDER)",
    "classifier": "from eval_harness.models.resources import "
    "ModelResources\nModelResources().classifier_model(FOLDER)",
    "llm prompt": "from eval_harness.models.resources import "
    "ModelResources\nModelResources().causal_lm(FOLDER)",
    "llm probe": "from eval_harness.models.factory import build_emotion_model\n"
    "build_emotion_model({'type': 'llm', 'path': FOLDER, 'options': {'mode': 'probe'}})",
    "gguf conversion": "from eval_harness.models.gguf import convert_gguf\n"
    "from pathlib import Path\nconvert_gguf(Path(FOLDER) "
    "/ 'model.gguf', Path(FOLDER).parent / 'converted')",
    "static": "from eval_harness.models.resources import ModelResources\n"
    "ModelResources().static_vectors(FOLDER + '/vectors.txt')",
}


@pytest.mark.parametrize("model_type", sorted(LOADS))
def test_a_load_never_asks_and_never_runs_the_folders_code(tmp_path, model_type):
    folder, marker = remote_code_folder(tmp_path / "model")
    code = (
        f"FOLDER = {str(folder)!r}\n"
        "from eval_harness.errors import XBiasError\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in LOADS[model_type].splitlines())
        + "except XBiasError as error:\n"
        "    print('xbias error:', error)\n"
        f"print({DONE!r})\n"
    )
    output = on_a_terminal(code)
    assert PROMPT not in output, output
    assert not marker.exists(), f"the folder's code ran:\n{output}"
    assert DONE in output, (
        output
    )  # the load ended (loaded, or refused with one line), not a hang or a crash
