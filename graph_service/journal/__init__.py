"""The hash-chained journal: pure hashing and verification (chain) on plain data."""
