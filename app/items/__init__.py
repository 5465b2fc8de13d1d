"""The review items a card yields: faces, drills, misconception drills, typed answers and their units,
item ids and fingerprints, the handbook's reviews file. Built from cards and their verdicts (with HTML
rendered once here); scheduled by app.srs."""
