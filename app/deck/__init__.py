"""The deck: card files synced into cards and their review items (cards/ and srs/items together)."""
