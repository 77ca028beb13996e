"""``python -m toolcall_f1``: the ``toolcall-f1`` command line (see :mod:`toolcall_f1.cli`)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
