"""Subcommands of the `rqrag` CLI: one module per command, each exposing `main(argv) -> int`."""
