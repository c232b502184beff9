"""Stage 3, evidence: what the log table shows, one family per module, run in the order of `registry.EXTRACTORS`."""
