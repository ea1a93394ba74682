"""Objects to a resolution: the eight steps of SPEC section 2 and the ranking of section 3."""
