"""Property tests over generated repositories (hypothesis)."""
