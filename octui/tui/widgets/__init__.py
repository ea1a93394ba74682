"""The explorer's widgets, one pane per module."""
