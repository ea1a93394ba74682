"""Questions over resolutions: the audit, the agenda, the diff, history, why-not. No text."""
