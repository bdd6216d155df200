"""What a running call can reach: ``ToolContext``, interaction, events, the background loop, the
runner seam; imports the model and results."""
