"""Screens pushed over the explorer: help, error, export."""
