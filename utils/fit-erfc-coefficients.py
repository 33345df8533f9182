#!/usr/bin/env python3
"""Prints the polynomial of lib/Transforms/ExpandErfc.cpp (bcast-expand-erfc).

(1 + 2a) exp(a^2) erfc(a) as a polynomial of t = (a - K) / (a + K), fitted
over a in [0, 27.3] (t in [-1, 0.758]) to SciPy's erfcx, whose relative
error is about 1e-15: a least-squares fit weighted by 1 / value (relative
error), then Lawson's reweighting towards the minimax fit. Prints the
coefficients, highest degree first, and the largest relative error over the
fitting points.

    /usr/bin/python3 utils/fit-erfc-coefficients.py [--k 3] [--degree 13]
"""

import argparse

import numpy as np
from scipy.special import erfcx

MAX_ARGUMENT = 27.3


def fit(k, degree, points=3000, rounds=30):
    t_max = (MAX_ARGUMENT - k) / (MAX_ARGUMENT + k)
    nodes = np.cos(np.pi * (np.arange(points) + 0.5) / points)
    t = -1 + (nodes + 1) / 2 * (t_max + 1)
    a = k * (1 + t) / (1 - t)
    g = (1 + 2 * a) * erfcx(a)
    basis = np.vander(t, degree + 1) / g[:, None]
    weights = np.ones_like(t)
    for _ in range(rounds):
        root = np.sqrt(weights)
        c, *_ = np.linalg.lstsq(basis * root[:, None], root, rcond=None)
        error = np.abs(basis @ c - 1)
        weights *= error
        weights /= weights.sum()
    return c, error.max()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=float, default=3.0)
    parser.add_argument("--degree", type=int, default=13)
    args = parser.parse_args()
    c, error = fit(args.k, args.degree)
    print(",\n".join(f"    {float(v)!r}" for v in c))
    print(f"// largest relative error at the fitting points: {error:.2g}")


if __name__ == "__main__":
    main()
