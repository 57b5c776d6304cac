"""``python -m eval_harness.cli`` (and ``accelerate launch -m eval_harness.cli``): the ``xbias``
command."""

from .common import exit_with
from .main import main

exit_with(main())
