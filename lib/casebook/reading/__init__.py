"""Stage 1, reading: from folders, archives and pastes to one log table where every line is parsed or kept."""
