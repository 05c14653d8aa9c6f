"""Stores: one interface (``base.Store``), one module per backend, chosen in ``factory``."""
