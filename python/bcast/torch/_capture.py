"""Capture: a model or function as forward and backward ATen graphs.

functorch's `aot_function` (torch 1.13) traces the joint forward and
backward graph with `make_fx`, functionalizes it, applies the decompositions
below (batch/layer/group norm, softmax's and the activations' backward ops
into element-wise ops and reductions bcast expresses) and hands the two
graphs to our compilers. Three things of 1.13 are worked around here:

- aot_function traces with real tensors and runs the function more than
  once: buffers updated in place (BatchNorm's running statistics,
  `num_batches_tracked`) would be updated once per trace. The captured
  function works on clones of the buffers and returns the updated ones;
  the runtime copies them back once per call. The RNG state is restored
  after capture, so dropout draws what eager would have drawn.
- aot_function keeps one graph per function whatever the input shapes
  (pytorch/pytorch#86020): the runtime creates one per guard signature.
- nn.TransformerEncoderLayer and nn.MultiheadAttention take a fused fast
  path (`_transformer_encoder_layer_fwd`) that hides their element-wise
  work; their checks decline it when `has_torch_function` holds, which a
  pass-through TorchFunctionMode makes true while capturing.
  nn.TransformerEncoder's nested-tensor path, declined with them, changes
  results (zeros at padded positions, a shorter output), so the encoder
  gives them through its other path (_nested).
"""

import contextlib

import torch
from torch._decomp import get_decompositions
from torch.overrides import TorchFunctionMode

from . import _nested

aten = torch.ops.aten

DECOMPOSITIONS = get_decompositions([
    aten.native_batch_norm, aten.native_batch_norm_backward,
    aten.native_layer_norm, aten.native_layer_norm_backward,
    aten.native_group_norm, aten.native_group_norm_backward,
    aten._softmax_backward_data, aten._log_softmax_backward_data,
    aten.gelu_backward, aten.sigmoid_backward, aten.tanh_backward,
    aten.threshold_backward, aten.hardswish, aten.hardswish_backward,
    aten.hardsigmoid, aten.hardsigmoid_backward, aten.silu_backward,
    aten.hardtanh_backward, aten.native_dropout_backward, aten.rsub,
    aten.var_mean, aten.leaky_relu_backward, aten.mse_loss,
    aten.mse_loss_backward, aten.elu, aten.elu_backward, aten.mish,
    aten.mish_backward, aten.softplus, aten.masked_fill, aten.std_mean,
])


def _var_mean(x, dim=None, *, correction=None, keepdim=False):
    # Into the two reductions bcast has (the table's own decomposition
    # gives prims ops and a tuple).
    dims = list(range(x.dim())) if dim is None else dim
    return (torch.var(x, dims, correction=correction, keepdim=keepdim),
            torch.mean(x, dims, keepdim=keepdim))


def _var_mean_dim(x, dim=None, unbiased=True, keepdim=False):
    return _var_mean(x, dim, correction=1 if unbiased else 0,
                     keepdim=keepdim)


DECOMPOSITIONS[aten.var_mean.correction] = _var_mean
DECOMPOSITIONS[aten.var_mean.dim] = _var_mean_dim


def _masked_fill(x, mask, value):
    # The fill in x's dtype, as eager fills (1.13's decomposition computed
    # a bool tensor's fill with a float value in int64), into a contiguous
    # result, as eager's clone of x is whatever x's layout.
    if isinstance(value, torch.Tensor):
        value = value.to(x.dtype)
    else:
        value = torch.scalar_tensor(value, dtype=x.dtype, device=x.device)
    return torch.where(mask, value, x).contiguous()


def _suggested_format(x):
    # ATen's suggest_memory_format, for the layouts a graph meets.
    if x.dim() == 4 and x.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    if x.dim() == 5 and x.is_contiguous(
            memory_format=torch.channels_last_3d):
        return torch.channels_last_3d
    return torch.contiguous_format


_batch_norm = DECOMPOSITIONS[aten.native_batch_norm.default]


def _native_batch_norm(x, *args):
    # Eager lays the result out as its input's suggested memory format
    # (contiguous for a permuted input); the decomposition's element-wise
    # ops would keep the permutation.
    out, mean, invstd = _batch_norm(x, *args)
    return out.contiguous(memory_format=_suggested_format(x)), mean, invstd


DECOMPOSITIONS[aten.masked_fill.Scalar] = _masked_fill
DECOMPOSITIONS[aten.masked_fill.Tensor] = _masked_fill
DECOMPOSITIONS[aten.native_batch_norm.default] = _native_batch_norm


class _NoFastPath(TorchFunctionMode):
    """Makes `has_torch_function` true, which PyTorch's fused transformer
    fast paths check, without changing what any function does."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def capturing():
    """The state a capture runs in: no fused fast paths (TransformerEncoder's
    nested path emulated), and the RNG state as it was before (the
    capture's draws are not the caller's)."""
    state = torch.get_rng_state()
    try:
        with _NoFastPath(), _nested.emulated():
            yield
    finally:
        torch.set_rng_state(state)


def functional_forward(module, param_names, buffer_names, mutated):
    """The module's forward as a function of (params, buffers, inputs) that
    returns (output, [updated buffers in `mutated`]) and changes nothing it
    was given."""
    from torch.nn.utils import stateless

    names = list(param_names) + list(buffer_names)

    def forward(params, buffers, args, kwargs):
        buffers = [b.clone() if i in mutated else b
                   for i, b in enumerate(buffers)]
        out = stateless.functional_call(
            module, dict(zip(names, list(params) + buffers)), tuple(args),
            kwargs)
        return out, [buffers[i] for i in sorted(mutated)]

    return forward


def mutated_buffers(module, params, buffers, args, kwargs, param_names,
                    buffer_names):
    """Which buffers a call updates in place, found by running the model
    once on clones (eager: an input eager rejects raises eager's error
    here), with the RNG state restored after."""
    from torch.nn.utils import stateless

    clones = [b.clone() for b in buffers]
    versions = [c._version for c in clones]
    state = torch.get_rng_state()
    try:
        with torch.no_grad():
            stateless.functional_call(
                module, dict(zip(list(param_names) + list(buffer_names),
                                 list(params) + clones)), tuple(args), kwargs)
    finally:
        torch.set_rng_state(state)
    # native_batch_norm's schema does not mark its running statistics as
    # written (1.13), so its updates bump no version counter: values tell.
    return {i for i, (b, c, v) in enumerate(zip(buffers, clones, versions))
            if c._version != v or not torch.equal(b, c)}


def _functional_twin(target):
    """aten.relu_.default -> aten.relu.default, aten.add_.Tensor ->
    aten.add.Tensor; None for ops without one."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    name = target.overloadpacket.__name__
    if not name.endswith("_") or name.startswith("_"):
        return None
    packet = getattr(aten, name[:-1], None)
    return getattr(packet, target._overloadname, None) if packet else None


def functionalize_in_place(gm):
    """The inference graph (aot_function does not functionalize it in 1.13)
    has in-place ops: `relu_(x)` becomes `relu(x)` and later uses of x read
    the new value, where x is an intermediate no view shares (a graph input
    mutated in place stays as it is, so the caller sees the update)."""
    graph = gm.graph
    order = {n: i for i, n in enumerate(graph.nodes)}
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        twin = _functional_twin(node.target)
        if twin is None or not node.args or \
                not isinstance(node.args[0], torch.fx.Node):
            continue
        x = node.args[0]
        # An in-place op still in place here wrote to a graph input or a
        # view (`a.mul_(2).add_(b)` on an argument): its result is that
        # memory, and the write after it must reach the caller too.
        if x.op != "call_function" or _is_view(x.target) or \
                _writes_in_place(x.target) or any(
                    _is_view(u.target) for u in x.users if u.op ==
                    "call_function"):
            continue
        with graph.inserting_before(node):
            new = graph.call_function(twin, node.args, node.kwargs)
        new.meta = dict(node.meta)
        order[new] = order[node]
        for use in list(x.users):
            if use is not node and use is not new and \
                    order[use] > order[node]:
                use.replace_input_with(x, new)
        node.replace_all_uses_with(new)
        graph.erase_node(node)
        changed = True
    if changed:
        gm.recompile()


def _writes_in_place(target):
    return isinstance(target, torch._ops.OpOverload) and any(
        a.alias_info is not None and a.alias_info.is_write
        for a in target._schema.returns)


def _is_view(target):
    return isinstance(target, torch._ops.OpOverload) and any(
        a.alias_info is not None and not a.alias_info.is_write
        for a in target._schema.returns)


def _eliminate_dead_code(graph):
    # fx's eliminate_dead_code (1.13) drops an unused in-place op, e.g.
    # `v.mul_(3)` on a view whose base is read later: writes are kept here.
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and not node.users and not (
                isinstance(node.target, torch._ops.OpOverload) and
                node.target._schema.is_mutable):
            graph.erase_node(node)


def functionalize_copies(gm):
    """Replaces `copy_(dst, src)` of same shape and dtype by `src` for every
    later use of `dst` (the decompositions write running statistics into
    the buffers' clones with copy_), so the graph has no mutation left to
    order; returns whether the graph still mutates anything."""
    graph = gm.graph
    order = {n: i for i, n in enumerate(graph.nodes)}
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.copy_.default:
            continue
        dst, src = node.args[0], node.args[1]
        # Only a tensor no view shares: a write through a view (swin_t's
        # attention mask: `mask[h, w] = count`) changes its base.
        if dst.op != "call_function" or _is_view(dst.target) or any(
                u.op == "call_function" and _is_view(u.target)
                for u in dst.users):
            continue
        dm, sm = dst.meta.get("tensor_meta"), src.meta.get("tensor_meta")
        if dm is None or sm is None or tuple(dm.shape) != tuple(sm.shape) \
                or dm.dtype != sm.dtype:
            continue
        for use in list(dst.users):
            if use is not node and order[use] > order[node]:
                use.replace_input_with(dst, src)
        for use in list(node.users):
            use.replace_input_with(node, src)
        graph.erase_node(node)
    _eliminate_dead_code(graph)
    gm.recompile()
    return any(n.op == "call_function" and
               isinstance(n.target, torch._ops.OpOverload) and
               n.target._schema.is_mutable for n in graph.nodes)
