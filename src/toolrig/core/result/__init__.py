"""Results and their content: ``ToolResult``, errors as the model reads them, JSON-able values,
previews; imports only the model."""
