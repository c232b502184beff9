"""Stage 4, judging: facts, the ranking of known cases, the triage that ties a case together and its JSON contract."""
