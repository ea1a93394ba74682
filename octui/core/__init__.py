"""The vocabulary everything else shares: closed sets, objects and findings, instants, inert
text."""
