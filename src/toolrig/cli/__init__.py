"""The ``toolrig`` command line: `toolrig.cli.main.main` (the ``toolrig`` script; also
``python -m toolrig.cli.main``). It has no Python API of its own."""

__all__: list[str] = []
