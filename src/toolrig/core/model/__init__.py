"""The tool model: names, options, specs, errors, ids and suggestions; imports nothing else in
core."""
