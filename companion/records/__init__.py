"""Game records in and out: SGF (via sgfmill), the JSON game record, Beyond Chess records."""
