"""One run: objects, fused scans, verdicts, triage, schema checks from facts."""
