"""``python -m eval_harness.cli`` (and ``accelerate launch -m eval_harness.cli``): the ``xbias`` command."""

from .main import exit_with, main

exit_with(main())
