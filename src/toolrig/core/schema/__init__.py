"""Schemas and validation: JSON Schema compiled, arguments checked and coerced, outputs checked,
type annotations to schemas; imports the model and results."""
