"""bcast.torch: PyTorch models and functions through bcast.

    import bcast.torch
    model = bcast.torch.compile(torchvision.models.resnet18().eval())
    y = model(x)                                   # compiled on first call
    print(bcast.torch.explain(model, x))           # what runs in bcast, why

`compile` captures forward and backward ATen graphs (functorch's
aot_function with decompositions), groups the element-wise and
normalization work bcast expresses into regions, compiles each region into
one fused kernel with `bcast.jit`, and runs everything else (convolutions,
matrix products, pooling, data movement) in PyTorch. docs/Torch.md is the
guide.
"""

import os

# bcast's kernels run their parallel loops on PyTorch's libgomp team when
# torch is loaded (python/src/KernelThreads.cpp); those that stay on LLVM's
# libomp (BCAST_OPENMP=libomp) keep its workers spinning for 200 ms after
# each parallel region by default, and beside PyTorch's and OpenBLAS's pools
# on the same cores that starved them: on 2 threads, mobilenet_v3_small at
# batch 1 took 60-65 ms a call against eager's 7 (8.7 ms with workers that
# sleep at once), efficientnet_b0 204-208 ms against 19-21 (25 ms); 1 ms of
# spinning still did (docs/Torch.md, API: `threads`). libomp reads this once,
# when its first parallel region starts; a value the user set is kept.
os.environ.setdefault("KMP_BLOCKTIME", "0")


def _products_on_the_team():
    """The matrix product runtime runs products on PyTorch's libgomp team
    (MatmulRuntime.cpp, bcastMatmulUseTeam): a compiled model's products
    are bcast's, and OpenBLAS's own threads beside that team's spinning
    workers stalled both (swin_t on 2 threads: 0.88x-1.17x eager with them,
    1.83x-2.04x on the team; docs/Benchmarks.md, "Products on the team")."""
    import ctypes

    from .. import _options
    if not os.path.exists(_options._MATMUL_RUNTIME):
        return
    try:
        ctypes.CDLL(_options._MATMUL_RUNTIME).bcastMatmulUseTeam(1)
    except (OSError, AttributeError):
        pass


_products_on_the_team()

from ._api import compile, explain, profile  # noqa: E402

__all__ = ["compile", "explain", "profile"]
