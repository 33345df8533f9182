"""Lowering of ATen nodes to bcast: one entry per ATen overload that bcast
can express, written with bcast's public tracing API (Tensor operators,
bcast.where, reductions, softmax, casts, broadcast_to, sum_to_size).

Matrix products (mm, bmm, addmm, baddbmm, matmul) become bcast.matmul,
which runs float32 and float64 products on the BLAS; they are not
element-wise work and do not count in `coverage`.

A region (a list of fx nodes chosen by _partition.py) becomes a `RegionSpec`:
its nodes with their arguments rewritten to refs (region input k, region value
j) and constants, so that two regions doing the same work on the same
signatures share one key and one compiled kernel. `RegionSpec.function` is the
Python function `bcast.jit` traces: it applies the lowerings in order. The
dtypes and shapes come from bcast's own tracing (the dialect's type rules,
through the extension); each traced value is then compared with the dtype and
shape PyTorch recorded for the node, and a node whose result differs is
refused (`Unsupported`), never silently run with another result type.
"""

import operator

import torch

import bcast

aten = torch.ops.aten
prims = torch.ops.prims


class Unsupported(Exception):
    """A node bcast does not express, with the reason `explain` reports."""


# --- Helpers ----------------------------------------------------------------

def _torch_dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _dims(dims, rank):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return None
    if isinstance(dims, int):
        dims = [dims]
    return [d % rank if rank else 0 for d in dims]


def _squeeze(x, dims):
    """Drops size-1 dimensions: a reduction over one element is the element
    itself (amax keeps -0.0 and NaN, which a sum would not)."""
    if not dims:
        return x
    if str(x.dtype) == "bool":
        return bcast.any(x, list(dims), False)
    return bcast.amax(x, list(dims), False)


def _keeps_ones(source, target):
    """Whether `target` is `source` with some size-1 dimensions dropped."""
    i = 0
    for s in source:
        if i < len(target) and target[i] == s:
            i += 1
        elif s != 1:
            return False
    return i == len(target)


def view_plan(source, target):
    """How bcast expresses a view of shape `source` as `target`: (the
    size-1 dimensions of source to drop, the number of size-1 dimensions
    to prepend after, the target, and None), or, for a view that inserts
    size-1 dimensions after larger ones (BatchNorm's [C] to [C, 1, 1]),
    (the size-1 dimensions to drop, 0, the target, the permutation that
    moves size-1 dimensions prepended to all the others to where the target
    has them); None when the view moves elements (bcast has no reshape).
    Dropping a size-1 dimension is a reduction over one element, prepending
    one is broadcasting, and permuting size-1 dimensions moves nothing."""
    source, target = list(source), list(target)
    if -1 in target:
        known, total = 1, 1
        for s in target:
            if s != -1:
                known *= s
        for s in source:
            total *= s
        target[target.index(-1)] = total // known if known else 0
    for lead in range(len(target) + 1):
        if any(s != 1 for s in target[:lead]):
            break
        rest = target[lead:]
        if _keeps_ones(source, rest):
            dims, i = [], 0
            for d, s in enumerate(source):
                if i < len(rest) and rest[i] == s:
                    i += 1
                else:
                    dims.append(d)
            return dims, lead, tuple(target), None
    if [s for s in source if s != 1] != [s for s in target if s != 1]:
        return None
    units = sum(1 for s in target if s == 1)
    perm, unit, other = [], 0, units
    for s in target:
        if s == 1:
            perm.append(unit)
            unit += 1
        else:
            perm.append(other)
            other += 1
    return ([d for d, s in enumerate(source) if s == 1], 0, tuple(target),
            tuple(perm))


def _reshape(x, shape):
    plan = view_plan(x.shape, shape)
    if plan is None:
        raise Unsupported("a view that moves elements (bcast has no "
                          "reshape)")
    dims, lead, target, perm = plan
    y = _squeeze(x, dims)
    if perm is not None:
        # The traced sizes, which are `?` where the kernel's are dynamic.
        units = len(target) - len(y.shape)
        return bcast.permute(
            bcast.broadcast_to(y, (1,) * units + tuple(y.shape)), perm)
    return bcast.broadcast_to(y, target) if lead else y


def _unsqueeze(x, dim):
    rank = len(x.shape) + 1
    dim = dim % rank
    return _reshape(x, tuple(x.shape[:dim]) + (1,) + tuple(x.shape[dim:]))


def _squeeze_op(x, dim=None):
    if dim is None:
        return _squeeze(x, [d for d, s in enumerate(x.shape) if s == 1])
    dim = dim % max(len(x.shape), 1)
    if len(x.shape) == 0 or x.shape[dim] != 1:
        return x
    return _squeeze(x, [dim])


def _expand(x, sizes, implicit=False):
    sizes = list(sizes)
    offset = len(sizes) - len(x.shape)
    for i, s in enumerate(sizes):
        if s == -1:
            sizes[i] = x.shape[i - offset]
    if list(x.shape) == sizes:
        return x
    return bcast.broadcast_to(x, tuple(sizes))


def _t(x):
    # aten.t: a 0-D or 1-D tensor is its own transpose.
    return x.transpose(0, 1) if len(x.shape) == 2 else x


def _cast(x, dtype):
    if dtype is None:
        return x
    return x.astype(_torch_dtype_name(dtype))


def _to_copy(x, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    if device is not None and torch.device(device).type != "cpu":
        raise Unsupported("a copy to another device")
    if memory_format not in (None, torch.preserve_format,
                             torch.contiguous_format):
        raise Unsupported(f"a copy to {memory_format}")
    if layout not in (None, torch.strided):
        raise Unsupported(f"a copy to layout {layout}")
    return x.astype(_torch_dtype_name(dtype) if dtype is not None
                    else x.dtype)


def _with_alpha(op, a, b, alpha=1):
    if alpha != 1:
        b = b * alpha
    return op(a, b)


def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        return a / b
    if rounding_mode == "floor":
        return a // b
    # trunc: bcast's div with rounding_mode "trunc" is not on the Tensor API;
    # floats round toward zero after the true division (PyTorch's rule).
    if isinstance(a, bcast.Tensor) and str(a.dtype).startswith(("float",
                                                                "bfloat")):
        return bcast.trunc(a / b)
    raise Unsupported("integer division with rounding_mode='trunc'")


def _reduction(op):
    def lower(x, dim=None, keepdim=False, *, dtype=None):
        dims = _dims(dim, len(x.shape))
        if dtype is not None:
            # The op's own dtype= (x converted first, the result of dtype).
            return getattr(bcast, op)(x, dims, keepdim,
                                      dtype=_torch_dtype_name(dtype))
        return getattr(bcast, op)(x, dims, keepdim)
    return lower


def _sum(x, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        return _reduction("sum")(x, dim, keepdim, dtype=dtype)
    dims = _dims(dim, len(x.shape))
    shape = tuple(1 if d in (dims or ()) else s
                  for d, s in enumerate(x.shape))
    if keepdim and dims is not None and shape != tuple(x.shape):
        # The gradient of a broadcast operand: PyTorch's sum_to_size (a sum,
        # with sum's dtype, where it sums something; where every summed dim
        # is 1 it would be x itself, of x's dtype, so bcast.sum does it).
        return bcast.sum_to_size(x, shape)
    return bcast.sum(x, dims, keepdim)


def _full_reduction(op):
    def lower(x, *, dtype=None):
        if dtype is not None:
            return getattr(bcast, op)(x, dtype=_torch_dtype_name(dtype))
        return getattr(bcast, op)(x)
    return lower


def _var(op):
    def lower(x, dim=None, *, correction=None, keepdim=False):
        dims = _dims(dim, len(x.shape))
        return getattr(bcast, op)(
            x, dims, 1 if correction is None else correction, keepdim)
    return lower


def _var_unbiased(op):
    def lower(x, dim=None, unbiased=True, keepdim=False):
        return _var(op)(x, dim, correction=1 if unbiased else 0,
                        keepdim=keepdim)
    return lower


def _softmax(op):
    def lower(x, dim, half_to_float=False):
        if half_to_float:
            raise Unsupported("softmax with half_to_float")
        return getattr(bcast, op)(x, dim)
    return lower


def _clamp(x, min=None, max=None):
    return bcast.clamp(x, min, max)


def _where(c, x, y):
    return bcast.where(c, x, y)


def _leaky_relu(x, negative_slope=0.01):
    return bcast.where(x > 0, x, x * negative_slope)


def _gelu(x, approximate="none"):
    return bcast.gelu(x, approximate=approximate)


def _scalar_tensor(value, *, dtype=None, layout=None, device=None,
                   pin_memory=None):
    # A 0-d constant; PyTorch's promotion treats it as a zero-dim tensor and
    # bcast's a weak scalar: the node's recorded dtype is checked on use.
    if device is not None and torch.device(device).type != "cpu":
        raise Unsupported("a constant on another device")
    return value


def _hardsigmoid(x):
    # PyTorch's kernel: min(max(x + 3, 0), 6) / 6.
    return bcast.clamp(x + 3.0, 0.0, 6.0) / 6.0


def _hardswish(x):
    return x * bcast.clamp(x + 3.0, 0.0, 6.0) / 6.0


def _broadcast_in_dim(x, shape, broadcast_dimensions):
    # x's dimension i is the result's dimension broadcast_dimensions[i]; the
    # others are new: x viewed with size-1 dimensions there, then broadcast.
    viewed = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        viewed[d] = x.shape[i]
    return bcast.broadcast_to(_reshape(x, viewed), tuple(shape))


def _prims_div(a, b):
    for v in (a, b):
        dtype = str(getattr(v, "dtype", "float"))
        if not (dtype.startswith(("float", "bfloat")) or
                isinstance(v, float)):
            raise Unsupported("prims.div of integers (truncating)")
    return a / b


def _silu(x):
    # PyTorch's CPU kernel (1.13): x / (1 + exp(-x)), vectorized; bcast's
    # silu took 1.7x torch's time here. Half types keep bcast's op, which
    # rounds once as PyTorch does.
    if str(x.dtype) in ("float32", "float64"):
        return x / (1.0 + bcast.exp(-x))
    return bcast.silu(x)


def _sigmoid(x):
    # PyTorch's CPU kernel: 1 / (1 + exp(-x)).
    if str(x.dtype) in ("float32", "float64"):
        return 1.0 / (1.0 + bcast.exp(-x))
    return bcast.sigmoid(x)


def _addmm(bias, a, b, *, beta=1, alpha=1):
    """PyTorch's addmm/baddbmm: beta * bias + alpha * (a @ b). With beta 0
    the bias is not read (PyTorch's rule: its NaN and inf do not reach the
    result)."""
    product = bcast.matmul(a, b)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    if beta != 1:
        bias = bias * beta
    return product + bias


def _alias(x, *args, **kwargs):
    return x


def _unary(op):
    fn = getattr(bcast, op)
    return lambda x: fn(x)


# ATen overload -> lowering. Each entry's arguments are the node's, with
# region values as bcast Tensors.
LOWERINGS = {
    aten.add.Tensor: lambda a, b, alpha=1: _with_alpha(operator.add, a, b,
                                                         alpha),
    aten.add.Scalar: lambda a, b, alpha=1: _with_alpha(operator.add, a, b,
                                                         alpha),
    aten.sub.Tensor: lambda a, b, alpha=1: _with_alpha(operator.sub, a, b,
                                                         alpha),
    aten.sub.Scalar: lambda a, b, alpha=1: _with_alpha(operator.sub, a, b,
                                                         alpha),
    aten.rsub.Scalar: lambda a, b, alpha=1: _with_alpha(operator.sub, b, a,
                                                          alpha),
    aten.rsub.Tensor: lambda a, b, alpha=1: _with_alpha(operator.sub, b, a,
                                                          alpha),
    aten.mul.Tensor: operator.mul,
    aten.mul.Scalar: operator.mul,
    aten.div.Tensor: _div,
    aten.div.Scalar: _div,
    aten.div.Tensor_mode: _div,
    aten.div.Scalar_mode: _div,
    aten.pow.Tensor_Scalar: operator.pow,
    aten.pow.Tensor_Tensor: operator.pow,
    aten.pow.Scalar: operator.pow,
    aten.remainder.Tensor: operator.mod,
    aten.remainder.Scalar: operator.mod,
    aten.maximum.default: bcast.maximum,
    aten.minimum.default: bcast.minimum,
    aten.eq.Tensor: operator.eq, aten.eq.Scalar: operator.eq,
    aten.ne.Tensor: operator.ne, aten.ne.Scalar: operator.ne,
    aten.lt.Tensor: operator.lt, aten.lt.Scalar: operator.lt,
    aten.le.Tensor: operator.le, aten.le.Scalar: operator.le,
    aten.gt.Tensor: operator.gt, aten.gt.Scalar: operator.gt,
    aten.ge.Tensor: operator.ge, aten.ge.Scalar: operator.ge,
    aten.bitwise_and.Tensor: operator.and_,
    aten.bitwise_or.Tensor: operator.or_,
    aten.bitwise_xor.Tensor: operator.xor,
    aten.logical_and.default: bcast.logical_and,
    aten.logical_or.default: bcast.logical_or,
    aten.logical_xor.default: bcast.logical_xor,
    aten.atan2.default: bcast.atan2,
    aten.where.self: _where,
    aten.clamp.default: _clamp,
    aten.clamp.Tensor: _clamp,
    aten.clamp_min.default: lambda x, m: bcast.clamp(x, m, None),
    aten.clamp_max.default: lambda x, m: bcast.clamp(x, None, m),
    aten.hardtanh.default: lambda x, lo=-1.0, hi=1.0: bcast.clamp(x, lo, hi),
    aten.leaky_relu.default: _leaky_relu,
    aten.gelu.default: _gelu,
    aten.lerp.Scalar: bcast.lerp,
    aten.lerp.Tensor: bcast.lerp,
    aten.addcmul.default: lambda x, a, b, value=1: bcast.addcmul(x, a, b,
                                                                  value),
    aten.addcdiv.default: lambda x, a, b, value=1: bcast.addcdiv(x, a, b,
                                                                  value),
    aten.sum.dim_IntList: _sum,
    aten.sum.default: _full_reduction("sum"),
    aten.mean.dim: _reduction("mean"),
    aten.mean.default: _full_reduction("mean"),
    aten.amax.default: lambda x, dim=(), keepdim=False: bcast.amax(
        x, _dims(dim, len(x.shape)), keepdim),
    aten.amin.default: lambda x, dim=(), keepdim=False: bcast.amin(
        x, _dims(dim, len(x.shape)), keepdim),
    aten.var.correction: _var("var"),
    aten.std.correction: _var("std"),
    aten.var.dim: _var_unbiased("var"),
    aten.std.dim: _var_unbiased("std"),
    aten._softmax.default: _softmax("softmax"),
    aten._log_softmax.default: _softmax("log_softmax"),
    aten.logsumexp.default: lambda x, dim, keepdim=False: bcast.logsumexp(
        x, _dims(dim, len(x.shape)), keepdim),
    aten._to_copy.default: _to_copy,
    prims.convert_element_type.default: _cast,
    aten.clone.default: lambda x, memory_format=None: x,
    aten.alias.default: _alias,
    aten.detach.default: _alias,
    aten.lift_fresh_copy.default: _alias,
    aten.expand.default: _expand,
    aten.permute.default: bcast.permute,
    aten.transpose.int: lambda x, dim0, dim1: x.transpose(dim0, dim1),
    aten.t.default: _t,
    aten.unsqueeze.default: _unsqueeze,
    aten.squeeze.dim: _squeeze_op,
    aten.squeeze.default: _squeeze_op,
    aten.view.default: _reshape,
    aten._unsafe_view.default: _reshape,
    aten.reshape.default: _reshape,
    aten._reshape_alias.default: lambda x, size, stride: _reshape(x, size),
    aten.scalar_tensor.default: _scalar_tensor,
    aten.hardsigmoid.default: _hardsigmoid,
    aten.hardswish.default: _hardswish,
    prims.div.default: _prims_div,
    prims.sum.default: lambda x, dims, output_dtype=None: _sum(
        x, dims, False, dtype=output_dtype),
    prims.var.default: lambda x, dims, correction, output_dtype=None:
        _var("var")(_cast(x, output_dtype), dims, correction=correction),
    prims.broadcast_in_dim.default: _broadcast_in_dim,
    aten.mm.default: bcast.matmul,
    aten.bmm.default: bcast.matmul,
    aten.matmul.default: bcast.matmul,
    aten.addmm.default: _addmm,
    aten.baddbmm.default: _addmm,
}
for _name in ("abs neg exp exp2 expm1 log log2 log10 log1p sqrt rsqrt "
              "reciprocal sin cos tan asin acos atan sinh cosh tanh asinh "
              "acosh atanh sigmoid erf erfc silu sign floor ceil round trunc "
              "relu bitwise_not logical_not isnan").split():
    LOWERINGS[getattr(aten, _name).default] = _unary(_name)
LOWERINGS[aten.silu.default] = _silu
LOWERINGS[aten.sigmoid.default] = _sigmoid

# Matrix products (bcast.matmul, on the BLAS for float32 and float64): not
# element-wise work, so not counted in `coverage`; taken into a region so
# that the element-wise work around them fuses instead of breaking there.
MATMULS = {aten.mm.default, aten.bmm.default, aten.matmul.default,
           aten.addmm.default, aten.baddbmm.default}

# Ops that only move or relabel data: they are lowered when a region needs
# them, but they are not element-wise work and do not count in `coverage`.
VIEW_OPS = {
    aten.expand.default, aten.unsqueeze.default, aten.squeeze.dim,
    aten.squeeze.default, aten.view.default, aten._unsafe_view.default,
    aten.reshape.default, aten._reshape_alias.default, aten.alias.default,
    aten.detach.default, aten.lift_fresh_copy.default, aten.clone.default,
    aten.scalar_tensor.default, prims.broadcast_in_dim.default,
    aten.permute.default, aten.t.default,
    aten.transpose.int, aten.slice.Tensor, aten.select.int,
    aten.as_strided.default, aten.split.Tensor, aten.split_with_sizes.default,
    aten.cat.default, aten.stack.default, aten.constant_pad_nd.default,
    aten.full.default, aten.zeros.default, aten.ones.default,
    aten.zeros_like.default, aten.ones_like.default, aten.empty.memory_format,
    aten.new_zeros.default, aten.new_empty.default, aten.copy_.default,
    aten._unsafe_index.Tensor if hasattr(aten, "_unsafe_index") else None,
    operator.getitem,
}
VIEW_OPS.discard(None)
# Views lowered to bcast.permute. bcast takes those that swap at most the
# last two dims (_partition.moves_batch_dims); a region may start with one
# of a contiguous tensor, its input then the view's source, never a copy.
PERMUTES = {aten.permute.default, aten.transpose.int, aten.t.default}

# Element-wise and normalization work that bcast cannot take yet (not in
# LOWERINGS) but that counts in `coverage`: the share of this work done in
# bcast kernels is what the issue measures.
ELEMENTWISE_NOT_LOWERED = {
    aten.native_batch_norm.default, aten.native_layer_norm.default,
    aten.native_group_norm.default, aten.native_batch_norm_backward.default,
    aten.native_layer_norm_backward.default,
    aten.native_group_norm_backward.default,
    aten._softmax_backward_data.default,
    aten._log_softmax_backward_data.default, aten.native_dropout.default,
    aten.native_dropout_backward.default, aten.bernoulli.default,
    aten.bernoulli_.float, aten.masked_fill.Scalar, aten.masked_fill.Tensor,
    aten.mish.default,
    aten.elu.default, aten.softplus.default, aten.fmod.Tensor,
    aten.fmod.Scalar, aten.prod.dim_int, aten.var_mean.correction,
    aten.threshold_backward.default, aten.sigmoid_backward.default,
    aten.tanh_backward.default, aten.gelu_backward.default,
    aten.silu_backward.default, aten.hardswish_backward.default,
    aten.hardsigmoid_backward.default, aten.isinf.default,
    aten.isfinite.default, aten.max.dim, aten.min.dim,
}


# Ops whose every result element depends only on the operands' elements at
# the same (broadcast) index: a region of these computes the same values on
# operands whose dims are all permuted alike (_partition.physical_order).
POINTWISE = {target for target in LOWERINGS
             if target not in VIEW_OPS and target not in MATMULS} - {
    aten.sum.dim_IntList, aten.sum.default, aten.mean.dim,
    aten.mean.default, aten.amax.default, aten.amin.default,
    aten.var.correction, aten.std.correction, aten.var.dim, aten.std.dim,
    aten._softmax.default, aten._log_softmax.default, aten.logsumexp.default,
    prims.sum.default, prims.var.default, prims.broadcast_in_dim.default,
    aten._reshape_alias.default}
POINTWISE |= {aten.clone.default, aten.alias.default, aten.detach.default,
              aten.lift_fresh_copy.default}
# Reductions whose dims argument is args[1]: with keepdim, also computed on
# permuted operands once their dims are renumbered.
DIM_REDUCTIONS = {aten.sum.dim_IntList, aten.mean.dim, aten.amax.default,
                  aten.amin.default}


# Views that, where they only insert or remove size-1 dims, a region
# computed in memory order does as the same view of the placed shapes
# (BatchNorm's per-channel values unsqueezed to [C, 1, 1]).
UNIT_VIEWS = {aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.default,
              aten.view.default, aten._unsafe_view.default,
              aten.reshape.default, aten._reshape_alias.default}


def unit_view(source, target, order):
    """Whether a view of shape `source` as `target` only inserts or removes
    size-1 dims and keeps the other dims in the same order once both shapes
    are placed in `order`, so that it is the view of `placed(source)` as
    `placed(target)`."""
    rank = len(order)
    if len(source) > rank or len(target) > rank or \
            [s for s in source if s != 1] != [s for s in target if s != 1]:
        return False

    def ranks(shape):
        pad = rank - len(shape)
        where = [order.index(pad + d) for d, s in enumerate(shape) if s != 1]
        return sorted(range(len(where)), key=where.__getitem__)
    return ranks(source) == ranks(target)


def placed(shape, order):
    """`shape` padded with leading 1s to len(order) dims, its dims then
    taken in `order` (a value of a region computed in memory order)."""
    padded = (1,) * (len(order) - len(shape)) + tuple(shape)
    return tuple(padded[d] for d in order)


def keeps_dims(target, args, kwargs):
    """Whether a DIM_REDUCTIONS node keeps its reduced dims (size 1)."""
    if target not in DIM_REDUCTIONS:
        return False
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    return keepdim is True


def counts_in_coverage(target):
    """Whether a node of this target is element-wise or normalization work
    (the denominator of `coverage`)."""
    return (target in LOWERINGS and target not in VIEW_OPS and
            target not in MATMULS) or target in ELEMENTWISE_NOT_LOWERED


# --- Regions ----------------------------------------------------------------

class Ref:
    """A region input (`kind` "in") or an earlier region value ("v")."""

    __slots__ = ("kind", "index")

    def __init__(self, kind, index):
        self.kind, self.index = kind, index

    def key(self):
        return (self.kind, self.index)


def _key_of(value):
    if isinstance(value, Ref):
        return value.key()
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_key_of(v) for v in value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (torch.dtype, torch.device, torch.layout,
                          torch.memory_format)):
        return str(value)
    return value


def _resolve(value, env):
    if isinstance(value, Ref):
        return env[value.key()]
    if isinstance(value, (list, tuple)):
        return type(value)(_resolve(v, env) for v in value)
    return value


class RegionSpec:
    """The work of one region, independent of the fx nodes it came from.

    ops: (target, args, kwargs, expected) per node, args holding Refs;
    `expected` is (shape, dtype name) as PyTorch recorded it. outputs: the
    Refs the region returns. inputs: (shape, dtype) per input tensor, shapes
    with None for sizes compiled as `?`."""

    def __init__(self, ops, outputs, inputs):
        self.ops = ops
        self.outputs = outputs
        self.inputs = inputs
        self.failed = None  # index of the op whose lowering failed
        self.key = (tuple((str(t), _key_of(a), _key_of(tuple(sorted(
            k.items()))), e) for t, a, k, e in ops),
            tuple(r.key() for r in outputs), tuple(inputs))

    def permuted(self, order):
        """The same work on operands given in physical order: each value
        padded with leading 1s to rank len(order), its dims then taken in
        `order`. For POINTWISE ops, whose results do not depend on where a
        dim is, and DIM_REDUCTIONS that keep their dims, whose dims are
        renumbered, and UNIT_VIEWS, which become the view of the placed
        shapes (_partition.physical_order checks all three)."""
        rank = len(order)

        def renumber(target, args):
            # A reduction's dims (of an operand of full rank) where they
            # are in memory order.
            if target not in DIM_REDUCTIONS or len(args) < 2 or \
                    args[1] is None:
                return args
            dims = args[1] if isinstance(args[1], (list, tuple)) \
                else [args[1]]
            moved = sorted(order.index(d % rank) for d in dims)
            return (args[0], moved) + tuple(args[2:])
        ops = []
        for t, a, k, e in self.ops:
            shape = placed(e[0], order)
            if t in UNIT_VIEWS:
                # _partition.physical_order checked it is the view of the
                # placed shapes.
                ops.append((aten.view.default, (a[0], shape), {},
                            (shape, e[1])))
            else:
                ops.append((t, renumber(t, a), k, (shape, e[1])))
        return RegionSpec(ops, self.outputs,
                          [(placed(shape, order), dtype)
                           for shape, dtype in self.inputs])

    def function(self, *inputs):
        """The function bcast.jit traces (region inputs are bcast Tensors)."""
        env = {("in", k): t for k, t in enumerate(inputs)}
        for j, (target, args, kwargs, expected) in enumerate(self.ops):
            try:
                value = LOWERINGS[target](*_resolve(args, env),
                                          **_resolve(kwargs, env))
                _check(value, expected)
            except Exception:
                self.failed = j
                raise
            env[("v", j)] = value
        results = []
        for ref in self.outputs:
            value = env[ref.key()]
            if not isinstance(value, bcast.Tensor):
                self.failed = ref.index
                raise Unsupported("a region result that is a constant")
            # A result must be a new tensor, never an input returned as is.
            if any(value is t for t in inputs):
                value = value.astype(value.dtype)
            results.append(value)
        return tuple(results)


def _check(value, expected):
    shape, dtype = expected
    if not isinstance(value, bcast.Tensor):
        # A Python scalar standing for a 0-d constant: its users are checked.
        if shape != () or dtype is None:
            raise Unsupported("a constant that is not a 0-d tensor")
        return
    got = str(value.dtype)
    if got != dtype:
        raise Unsupported(f"bcast's result dtype {got} differs from "
                          f"PyTorch's {dtype}")
    if len(value.shape) != len(shape) or any(
            a is not None and b is not None and a != b
            for a, b in zip(value.shape, shape)):
        raise Unsupported(f"bcast's result shape {tuple(value.shape)} "
                          f"differs from PyTorch's {tuple(shape)}")
