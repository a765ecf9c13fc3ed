"""``python -m monologue`` is the ``monologue`` command."""

from .cli import main

main()
