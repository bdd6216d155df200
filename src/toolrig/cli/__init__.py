"""The ``toolrig`` command line."""
