"""Point-wise reaction sub-steps, integrated exactly over a sub-interval."""

import math

import numpy as np

KINDS = ("none", "decay", "logistic")


class ReactionError(ValueError):
    pass


class Reaction:
    """dq/dt = -k q (decay) or dq/dt = r q (1 - q / K) (logistic)."""

    def __init__(self, spec):
        self.kind = spec.get("kind", "none")
        if self.kind not in KINDS:
            raise ReactionError(f"unknown reaction kind {self.kind!r}")
        self.rate = float(spec.get("rate", 0.0))
        self.capacity = float(spec.get("capacity", 1.0))
        if self.kind == "logistic" and self.capacity <= 0:
            raise ReactionError("logistic reaction needs a positive capacity")

    def active(self):
        return self.kind != "none" and self.rate != 0.0

    def advance(self, q, tau):
        """The exact solution of the reaction ODE after time tau, cell by cell."""
        if not self.active() or tau == 0.0:
            return q
        if self.kind == "decay":
            return q * math.exp(-self.rate * tau)
        growth = math.exp(self.rate * tau)
        k = self.capacity
        return k * q * growth / (k + q * growth)

    def linear_rate(self):
        """The linear decay rate seen by manufactured solutions."""
        return self.rate if self.kind == "decay" else 0.0

    def describe(self):
        if not self.active():
            return "no reaction"
        if self.kind == "decay":
            return f"decay k={self.rate:g}"
        return f"logistic r={self.rate:g} K={self.capacity:g}"


def apply_reaction(reaction, q, tau):
    out = reaction.advance(q, tau)
    if not np.all(np.isfinite(out)):
        raise ReactionError("reaction step produced non-finite values")
    return out
