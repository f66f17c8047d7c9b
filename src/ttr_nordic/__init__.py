"""Ticket to Ride: Nordic Countries — rules engine, AI, simulations and interfaces."""

__version__ = "0.1.0"
