"""Defining tools: ``@tool``, ``Tool``, ``BaseTool``, actions, signatures and docstrings; may
import every other room."""
