"""The pure, typed game core: topologies, Go-family rules, scoring, Beyond Chess. No I/O."""
