"""The scheduling domain: FSRS-6 scheduling glue, an item's state, due counts, stats, prefs, the optimiser.

Pure: it imports neither the web stack nor torch, nor verdicts (app.verification) nor rendering
(app.render); the review items a card yields are built in app.items."""
