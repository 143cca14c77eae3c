"""graph_service: a provenance service — a hash-chained journal projected into a graph."""

__version__ = "0.1.0"
