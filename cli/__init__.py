"""`diagnose`: the command line face of the engine (subcommands, demo)."""
