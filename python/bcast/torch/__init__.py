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

from ._api import compile, explain, profile

__all__ = ["compile", "explain", "profile"]
