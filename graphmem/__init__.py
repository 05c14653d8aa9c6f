"""graphmem: graph-first, temporal long-term memory for AI agents."""

__version__ = "0.1.0"
