"""Spaced repetition: review items derived from cards, FSRS-6 scheduling glue, drills, stats, optimiser."""
