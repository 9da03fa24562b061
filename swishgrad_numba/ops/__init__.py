"""The operators of the Swish family, one module each (see docs/architecture.md)."""
