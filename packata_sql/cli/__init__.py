"""The command-line frontend: arguments in, the API called, outputs written."""
