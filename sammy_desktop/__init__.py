"""Sammy Desktop: a desktop voice assistant on the Gemini Live API."""

__version__ = "0.1.0"
