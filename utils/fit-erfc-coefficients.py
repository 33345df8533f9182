#!/usr/bin/env python3
"""Prints the polynomials of lib/Transforms/ExpandErfc.cpp (bcast-expand-erfc)
and, with --f32, of lib/Transforms/ExpandGelu.cpp (bcast-expand-gelu).

(1 + 2a) exp(a^2) erfc(a) as a polynomial of t = (a - K) / (a + K), fitted
over a in [0, 27.3] (t in [-1, 0.758]) to SciPy's erfcx, whose relative
error is about 1e-15: a least-squares fit weighted by 1 / value (relative
error), then Lawson's reweighting towards the minimax fit. Prints the
coefficients, highest degree first, and the largest relative error over the
fitting points.

    /usr/bin/python3 utils/fit-erfc-coefficients.py [--k 3] [--degree 13]

With --f32 (bcast-expand-gelu: --k 2.5 --degree 10 --max-argument 15) the
polynomial is that of bcast-expand-gelu: (1 + 2x) exp(x^2 / 2) erfc(x /
sqrt(2)), the scaled complement of the normal distribution in x itself, as
a polynomial of s = 2x / (x + K) in [0, 2 max / (max + K)], whose rounding
near x = 0 is relative to s (t = s - 1 would round to a grid of 2^-24
there). Its coefficients are f32: each, from the lowest degree up, is
rounded to f32 and the higher ones fitted again to make up for its
rounding. Prints the largest relative error of the rounded polynomial over
a dense grid.
"""

import argparse

import numpy as np
from scipy.special import erfcx

MAX_ARGUMENT = 27.3


def fit(k, degree, points=3000, rounds=30, max_argument=MAX_ARGUMENT):
    t_max = (max_argument - k) / (max_argument + k)
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


def fit_f32(k, degree, max_argument, points=4000, rounds=40):
    """Coefficients lowest degree first, each an f32."""
    s_max = 2 * max_argument / (max_argument + k)
    nodes = np.cos(np.pi * (np.arange(points) + 0.5) / points)
    s = (nodes + 1) / 2 * s_max
    x = k * s / (2 - s)
    g = (1 + 2 * x) * erfcx(x / np.sqrt(2))
    basis = np.vander(s, degree + 1, increasing=True) / g[:, None]
    fixed = []
    for _ in range(degree + 1):
        rest = basis[:, len(fixed):]
        target = 1 - basis[:, :len(fixed)] @ np.array(fixed, dtype=float)
        weights = np.ones_like(s)
        for _ in range(rounds):
            root = np.sqrt(weights)
            c, *_ = np.linalg.lstsq(rest * root[:, None], target * root,
                                    rcond=None)
            weights *= np.abs(rest @ c - target)
            weights /= weights.sum()
        fixed.append(float(np.float32(c[0])))
    dense = np.linspace(0, s_max, 200_001)
    x = k * dense / (2 - dense)
    error = np.abs(np.polyval(fixed[::-1], dense) /
                   ((1 + 2 * x) * erfcx(x / np.sqrt(2))) - 1).max()
    return fixed, error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=float, default=3.0)
    parser.add_argument("--degree", type=int, default=13)
    parser.add_argument("--max-argument", type=float, default=MAX_ARGUMENT)
    parser.add_argument("--f32", action="store_true")
    args = parser.parse_args()
    if args.f32:
        c, error = fit_f32(args.k, args.degree, args.max_argument)
        print(",\n".join(f"    {v!r}f" for v in c[::-1]))
        print(f"// largest relative error (dense grid): {error:.2g}")
        return
    c, error = fit(args.k, args.degree, max_argument=args.max_argument)
    print(",\n".join(f"    {float(v)!r}" for v in c))
    print(f"// largest relative error at the fitting points: {error:.2g}")


if __name__ == "__main__":
    main()
