"""Runtime: the executor that validates, runs, times out, retries and reports tool calls."""
