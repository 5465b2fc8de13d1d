"""Matching a pasted interview question to the cards: ranked, bilingual (``GET /api/match``).

- :mod:`app.search.text`: normalisation and tokens (the handbook's ``templates/match.js`` mirrors it);
- :mod:`app.search.glossary`: the bilingual glossary (``glossary.yaml``) as concept tokens;
- :mod:`app.search.index`: BM25 indexes (``bm25s``) over the live cards, one per deck revision;
- :mod:`app.search.snippet`: the snippet with the matched terms highlighted (escaped HTML + offsets);
- :mod:`app.search.match`: the ranking itself, shared by the API, the pages and the CLI.
"""
