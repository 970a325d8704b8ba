"""The browser playground."""
