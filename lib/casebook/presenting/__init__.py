"""Stage 5, presenting: the walk's steps, lessons, quiz, reports, redaction, collect-more, case files and plots."""
