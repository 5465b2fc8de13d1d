"""Cards as files: the document schema, the card-file format, the raw bank importer, and sync."""
