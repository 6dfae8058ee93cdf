"""adr: a 2-D finite-volume advection-diffusion-reaction transport model.

The package is organised as the group's methods note (docs/NUMERICS.md) is:
grid and fields, boundary ghost cells, reconstruction and fluxes, reaction
sub-steps, time integration and step control, checkpoints, output and the
verification tools used in papers (manufactured solutions, convergence).
"""

__version__ = "0.9.3"
