"""Text for people and machines, shared by the CLI and the explorer. No Textual, no argparse."""
