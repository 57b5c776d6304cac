"""The Hub Space of `word_association`: evaluate's Gradio widget for the module beside this file
(run: python app.py).

Loaded by its own path, so it works wherever this folder is (a Space, a checkout, an installed
xbias); importing this file loads the module without launching anything (gradio is needed only to
launch).
"""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).with_name("word_association.py")))

if __name__ == "__main__":
    launch_gradio_widget(module)
