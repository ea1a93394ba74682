"""A resolution to the bundle of SPEC section 5: its JSON, its digest, its schema."""
