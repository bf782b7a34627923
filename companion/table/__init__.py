"""The table loop: tracker, clocks, outputs, and the session that wires a table together."""
