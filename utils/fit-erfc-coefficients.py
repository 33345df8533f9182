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

With --f32 (bcast-expand-gelu: --k 3 --degree 10 --max-argument 10.7) the
coefficients are f32: each, from the lowest degree up, is rounded to f32 and
the higher ones fitted again to make up for its rounding, except the
constant, printed as an f32 and the f32 nearest its remainder (the pass adds
the remainder to the residual of its division). Prints the largest relative
error of the rounded polynomial over a dense grid.
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


def fit_f32(k, degree, max_argument, points=3000, rounds=30):
    """Coefficients lowest degree first: the constant in f64, the rest f32."""
    t_max = (max_argument - k) / (max_argument + k)
    nodes = np.cos(np.pi * (np.arange(points) + 0.5) / points)
    t = -1 + (nodes + 1) / 2 * (t_max + 1)
    a = k * (1 + t) / (1 - t)
    g = (1 + 2 * a) * erfcx(a)
    basis = np.vander(t, degree + 1, increasing=True) / g[:, None]
    fixed = []
    for i in range(degree + 1):
        rest = basis[:, len(fixed):]
        target = 1 - basis[:, :len(fixed)] @ np.array(fixed, dtype=float)
        weights = np.ones_like(t)
        for _ in range(rounds):
            root = np.sqrt(weights)
            c, *_ = np.linalg.lstsq(rest * root[:, None], target * root,
                                    rcond=None)
            weights *= np.abs(rest @ c - target)
            weights /= weights.sum()
        fixed.append(float(c[0]) if i == 0 else float(np.float32(c[0])))
    dense = np.linspace(-1, t_max, 200_001)
    a = k * (1 + dense) / (1 - dense)
    error = np.abs(np.polyval(fixed[::-1], dense) /
                   ((1 + 2 * a) * erfcx(a)) - 1).max()
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
        high = float(np.float32(c[0]))
        print(",\n".join(f"    {v!r}f" for v in c[:0:-1] + [high]))
        print(f"// constant's remainder: {float(np.float32(c[0] - high))!r}f")
        print(f"// largest relative error (dense grid): {error:.2g}")
        return
    c, error = fit(args.k, args.degree, max_argument=args.max_argument)
    print(",\n".join(f"    {float(v)!r}" for v in c))
    print(f"// largest relative error at the fitting points: {error:.2g}")


if __name__ == "__main__":
    main()
