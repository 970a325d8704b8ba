"""The speech service: voices chosen and checked, text normalised and paid for, audio
streamed from the pipeline, metered and settled; the catalog, custom and designed voices."""
