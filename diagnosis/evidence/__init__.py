"""Evidence I/O: HTTP sources with the read-only guard, route tables, recorded bundles (replay and capture)."""
