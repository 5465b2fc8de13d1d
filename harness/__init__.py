"""What the tests and the benchmarks both drive the server with: a real uvicorn process on a free port
(``server.py``), the load client and its deck (``load.py``), generated decks (``deckgen.py``, ``deck.py``),
fresh databases (``db.py``, SQLite or PostgreSQL) and the CLI's start-up timing (``startup.py``).

``tests/`` and ``bench/`` import it; it imports neither (``.importlinter``), so a benchmark runs without
the test suite and a test never depends on a benchmark script."""
