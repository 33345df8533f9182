#!/usr/bin/python3
"""A torchvision ResNet-18 through bcast.torch.compile: compile, run,
explain, time.

    PYTHONPATH=build/python /usr/bin/python3 examples/torch_resnet.py \
        [--size 224] [--batch 1] [--reps 10]

Random weights (nothing is downloaded); BatchNorm's statistics are
calibrated with a few train() passes so the comparison with eager means
something. The convolutions and the matrix product run in PyTorch; the
BatchNorm arithmetic, ReLUs and residual additions run in fused bcast
kernels.
"""

import argparse
import os
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "build", "python"))
import bcast.torch  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = torchvision.models.resnet18()
    with torch.no_grad():                      # calibrate BatchNorm
        model.train()
        for _ in range(3):
            model(torch.randn(4, 3, args.size, args.size))
    model.eval()

    compiled = bcast.torch.compile(model)      # still a ResNet (nn.Module)
    x = torch.randn(args.batch, 3, args.size, args.size)
    with torch.no_grad():
        start = time.perf_counter()
        y = compiled(x)                        # captures and compiles
        print(f"first call (capture and compile): "
              f"{time.perf_counter() - start:.1f} s")
        expected = model(x)
        torch.testing.assert_close(y, expected)
        print(f"output matches eager: max difference "
              f"{(y - expected).abs().max().item():.2e} "
              f"(scale {expected.abs().max().item():.2f})")

        explanation = bcast.torch.explain(compiled, x)
        print("\n".join(str(explanation).splitlines()[:5]))

        def median(fn):
            times = []
            for _ in range(args.reps):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            return sorted(times)[len(times) // 2]

        eager_s, bcast_s = median(lambda: model(x)), median(
            lambda: compiled(x))
    print(f"eager {1e3 * eager_s:.1f} ms, bcast.torch {1e3 * bcast_s:.1f} "
          f"ms per call ({eager_s / bcast_s:.2f}x; load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
