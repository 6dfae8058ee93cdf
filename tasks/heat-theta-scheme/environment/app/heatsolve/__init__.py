"""Theta-method solver for the 1-D heat equation u_t = alpha * u_xx."""
