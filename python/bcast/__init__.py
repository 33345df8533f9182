"""bcast: NumPy/PyTorch broadcasting, verified and compiled.

    import numpy as np
    import bcast

    bcast.broadcast_shapes((5, 1, 4, 1), (3, 1, 1))   # (5, 3, 4, 1)

    @bcast.jit
    def f(a, b, c, d):
        return (a + b) * c - d                         # one fused kernel

    f(np.ones((4, 3), np.float32), np.ones(3, np.float32),
      np.ones((4, 1), np.float32), 2.0)

`broadcast_shapes` applies the same rule (the same C++ module) as the dialect's
verifiers and raises ValueError with PyTorch's sentence. `Module` gives access
to IR: parse, verify, run a pass pipeline, print. `jit` traces a Python
function over symbolic tensors and compiles it, once per signature, with
`bcast-opt`'s `--bcast-to-llvm` pipeline into one fused native kernel.
docs/Python.md is the guide.
"""

from ._bcast import (MLIRError, Module, broadcast_shapes, check_in_place,
                     check_specify_shape)
from ._cache import _VERSION as __version__
from ._dispatch import JitFunction, jit
from ._dtypes import bfloat16
from ._layout import permute
from ._reductions import TORCH_FUNCTIONS as _REDUCTIONS
from ._torch_forms import FUNCTIONS as _TORCH_FORMS
from ._tensor import (BINARY_FUNCTIONS, UNARY_OPS, Tensor, _nary_function,
                      _unary_function, addcdiv, addcmul, broadcast_to, clamp,
                      lerp, matmul, maximum, minimum, specify_shape, where)

# bcast.exp(x), bcast.gelu(x, approximate="tanh"), ... on traced tensors.
for _op in UNARY_OPS:
    globals()[_op] = _unary_function(_op)
# bcast.atan2(x, y), bcast.logical_and(x, y), ...
for _op in BINARY_FUNCTIONS:
    globals()[_op] = _nary_function(_op)
# bcast.softmax(x, dim), bcast.var(x, dim, correction=1), bcast.sum_to_size,
# bcast.sum(x, dim, keepdim), ... (PyTorch's signatures; NumPy's are the
# Tensor methods and np.sum & co.).
globals().update(_REDUCTIONS)
# bcast.add(x, y, alpha=2), bcast.div(x, y, rounding_mode="floor"),
# bcast.fmod, bcast.remainder, bcast.clamp_min, bcast.clamp_max.
globals().update(_TORCH_FORMS)
del _op

__all__ = [
    "JitFunction",
    "MLIRError",
    "Module",
    "Tensor",
    "__version__",
    "addcdiv",
    "addcmul",
    "bfloat16",
    "broadcast_shapes",
    "broadcast_to",
    "check_in_place",
    "check_specify_shape",
    "clamp",
    "jit",
    "lerp",
    "matmul",
    "maximum",
    "minimum",
    "permute",
    "specify_shape",
    "where",
]
__all__ += list(UNARY_OPS) + list(BINARY_FUNCTIONS) + list(_REDUCTIONS)
__all__ += list(_TORCH_FORMS)
