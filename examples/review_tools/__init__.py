"""Executors of the review-analysis catalogue (``examples/catalog``).

Everything here runs offline on local files, except :mod:`review_tools.remote`, whose tools
need outside services and say so when called.
"""
