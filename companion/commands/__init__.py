"""Sub-commands of ``companion``: one module each, exposing ``command`` (see companion.cli)."""
