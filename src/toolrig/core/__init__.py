"""Core: tool specs, schemas, validation, results and the ways to define a tool."""
