"""The simulated platforms: a loopback HTTP server answering from recorded bundles."""
