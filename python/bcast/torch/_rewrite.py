"""Graph rewrites before partitioning: unsqueezes moved to where bcast can
take them, and the flattening views around a Linear layer's product
removed (fold_matmul_views).

bcast has no reshape: inside a region, a view may drop size-1 dimensions and
prepend some, but not insert one after a larger dimension. The
decompositions of batch norm do exactly that with per-channel values:
`unsqueeze(unsqueeze(rsqrt(var + eps), -1), -1)` to `[C, 1, 1]`, and in the
backward `unsqueeze(sum(x, [0, 2, 3]) * 0.125, 0)`, then dims 2 and 3. Each
such view ended a region. Two rewrites move them:

- An unsqueeze of an element-wise node whose tensor operands all have its
  rank is the element-wise node of the unsqueezed operands (repeated, the
  unsqueezes reach the graph's inputs or other non-element-wise nodes,
  where PyTorch does them for free as views).
- A chain of unsqueezes that restores exactly the dimensions a reduction
  removed is the reduction with keepdim; the reduction's other users read
  its squeezed form (dropping size-1 dimensions is expressible).

And split_shared_views gives each user of a transposed graph input its own
transpose (see there).
"""

import torch
import torch.fx
from torch.fx.passes.shape_prop import TensorMetadata

from . import _lower, _partition

aten = torch.ops.aten

_REDUCTIONS = {aten.sum.dim_IntList, aten.mean.dim, aten.amax.default,
               aten.amin.default, aten.var.correction}
# Element-wise nodes an unsqueeze moves through: their result has the
# shape of their (same-rank) tensor operands. Not the products: mm's
# operands have its rank, but an unsqueezed mm is no product.
_ELEMENTWISE = {t for t in _lower.LOWERINGS
                if t not in _lower.VIEW_OPS and t not in _REDUCTIONS and
                t not in _lower.MATMULS and
                t not in (aten._softmax.default, aten._log_softmax.default,
                          aten.sum.default, aten.mean.default,
                          aten.var.dim, aten.std.dim, aten.std.correction,
                          aten.logsumexp.default, _lower.prims.sum.default,
                          _lower.prims.var.default,
                          _lower.prims.broadcast_in_dim.default)}
# An element-wise node used elsewhere too is computed twice (once per
# shape): only when that is cheap.
_DUPLICATE_LIMIT = 4096


def _meta(node):
    return node.meta.get("tensor_meta")


def _contiguous(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _with_shape(meta, shape):
    return TensorMetadata(torch.Size(shape), meta.dtype, meta.requires_grad,
                          _contiguous(shape), torch.contiguous_format,
                          meta.is_quantized, meta.qparams)


def _unsqueezed(shape, dim):
    dim = dim % (len(shape) + 1)
    return tuple(shape[:dim]) + (1,) + tuple(shape[dim:])


def _unsqueezed_meta(meta, dim):
    """The metadata of `unsqueeze(value, dim)`: eager's strides, those of
    the value (a permuted one stays permuted) with the new dim's."""
    shape, stride = tuple(meta.shape), tuple(meta.stride)
    dim = dim % (len(shape) + 1)
    new = stride[dim] * shape[dim] if dim < len(shape) else 1
    return TensorMetadata(torch.Size(_unsqueezed(shape, dim)), meta.dtype,
                          meta.requires_grad,
                          stride[:dim] + (new,) + stride[dim:],
                          meta.memory_format, meta.is_quantized,
                          meta.qparams)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _from_inputs_only(node, memo):
    """Whether `node` is element-wise work on the graph's inputs alone
    (BatchNorm's scale from its running variance and weight in eval())."""
    if node in memo:
        return memo[node]
    if node.op in ("placeholder", "get_attr"):
        result = True
    elif node.op == "call_function" and node.target in _ELEMENTWISE:
        result = all(_from_inputs_only(i, memo)
                     for i in node.all_input_nodes)
    else:
        result = False
    memo[node] = result
    return result


def _sink(graph, node):
    """Moves `node` (an unsqueeze) above its element-wise input; returns the
    new unsqueezes (to move further) or None. Work on the graph's inputs
    alone is left where it is: as a region of its own it runs once on the
    per-channel values, while moved into the consumer's loop nest it would
    be computed again for every element (efficientnet_b0's BatchNorms in
    eval(): 1.2M square roots and divisions per layer)."""
    source, dim = node.args[0], node.args[1]
    if not isinstance(source, torch.fx.Node) or \
            source.op != "call_function" or \
            source.target not in _ELEMENTWISE or \
            _from_inputs_only(source, {}):
        return None
    meta = _meta(source)
    if meta is None or not hasattr(meta, "shape"):
        return None
    rank = len(meta.shape)
    operands = [a for a in source.args if isinstance(a, torch.fx.Node)]
    operands += [v for v in source.kwargs.values()
                 if isinstance(v, torch.fx.Node)]
    for a in operands:
        am = _meta(a)
        if am is None or not hasattr(am, "shape") or \
                len(am.shape) not in (rank, 0):
            return None
    if len(source.users) > 1 and _numel(meta.shape) > _DUPLICATE_LIMIT:
        return None
    created = {}
    with graph.inserting_before(node):
        def lift(value):
            # 0-d operands broadcast as they are beside operands of the
            # node's rank; a 0-d node's are all 0-d, and without theirs the
            # moved node stayed 0-d (`(x.sum() * x).unsqueeze(0)` of a 0-d
            # x gave shape () for eager's (1,)).
            if not isinstance(value, torch.fx.Node) or \
                    (len(_meta(value).shape) == 0 and rank > 0):
                return value
            if value not in created:
                new = graph.call_function(aten.unsqueeze.default,
                                          (value, dim))
                new.meta = {"tensor_meta": _unsqueezed_meta(_meta(value),
                                                            dim)}
                created[value] = new
            return created[value]

        args = tuple(lift(a) for a in source.args)
        kwargs = {k: lift(v) for k, v in source.kwargs.items()}
        moved = graph.call_function(source.target, args, kwargs)
    # The unsqueeze's metadata, eager's strides among them: the nodes after
    # it were traced against that layout (a `_reshape_alias` reads through
    # explicit strides), and the region call lays its result out so
    # (_runtime._layouts). maxvit_t's attention scaled a permuted q: given
    # contiguous strides here, its einsum read the product in the wrong
    # order.
    moved.meta = {"tensor_meta": _meta(node)}
    node.replace_all_uses_with(moved)
    graph.erase_node(node)
    if not source.users:
        graph.erase_node(source)
    return list(created.values())


def _collapse(graph, node):
    """If `node` ends a chain of unsqueezes over a reduction without keepdim
    that restores its dimensions, the reduction with keepdim replaces the
    chain."""
    chain, value = [], node
    while isinstance(value, torch.fx.Node) and value.op == "call_function" \
            and value.target is aten.unsqueeze.default:
        chain.append(value)
        value = value.args[0]
    if not chain or not isinstance(value, torch.fx.Node) or \
            value.op != "call_function" or value.target not in _REDUCTIONS:
        return False
    if any(len(u.users) != 1 for u in chain[1:]):
        return False
    reduction = value
    args = list(reduction.args)
    kwargs = dict(reduction.kwargs)
    source = args[0]
    if reduction.target is aten.var.correction:
        dims = args[1] if len(args) > 1 else kwargs.get("dim")
        keepdim = kwargs.get("keepdim", False)
    else:
        dims = args[1] if len(args) > 1 else kwargs.get("dim")
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    if keepdim or not dims:
        return False
    in_shape = tuple(_meta(source).shape)
    dims = {d % len(in_shape) for d in dims}
    kept = tuple(1 if d in dims else s for d, s in enumerate(in_shape))
    if tuple(_meta(node).shape) != kept:
        return False
    with graph.inserting_before(reduction):
        if reduction.target is aten.var.correction:
            kwargs["keepdim"] = True
            new = graph.call_function(reduction.target, tuple(args[:2]),
                                      kwargs)
        else:
            new = graph.call_function(
                reduction.target, (source, args[1], True) + tuple(args[3:]),
                kwargs)
    new.meta = {"tensor_meta": _with_shape(_meta(reduction), kept)}
    node.replace_all_uses_with(new)
    # The reduction's other users read the squeezed keepdim result.
    squeezed, shape = new, list(kept)
    others = [u for u in reduction.users if u is not chain[-1]]
    if others:
        order = {n: i for i, n in enumerate(graph.nodes)}
        first = min(others, key=order.__getitem__)
        with graph.inserting_before(first):
            for d in sorted(dims, reverse=True):
                shape.pop(d)
                squeezed = graph.call_function(aten.squeeze.dim,
                                               (squeezed, d))
                squeezed.meta = {"tensor_meta": _with_shape(
                    _meta(reduction), tuple(shape))}
        for u in others:
            u.replace_input_with(reduction, squeezed)
    for u in chain:
        if not u.users:
            graph.erase_node(u)
    if not reduction.users:
        graph.erase_node(reduction)
    return True


_FLATTENING_VIEWS = {aten.view.default, aten._unsafe_view.default,
                     aten.reshape.default, aten._reshape_alias.default}


def _plain_view(node):
    """Whether `node` is a flattening view (its _reshape_alias with the
    contiguous strides of its shape, as the backward graphs make them)."""
    if not isinstance(node, torch.fx.Node) or node.op != "call_function" \
            or node.target not in _FLATTENING_VIEWS:
        return False
    if node.target is aten._reshape_alias.default:
        return tuple(node.args[2]) == _contiguous(node.args[1])
    return True


def _unit(node, name):
    value = node.kwargs.get(name, 1)
    return value == 1 and not isinstance(value, bool)


def _fold_matmul_views(graph, node):
    """Rewrites `view(mm(view(x, [n, K]), w), x.shape[:-1] + [N])` (with
    addmm: plus a bias), which is how a Linear layer and its backward
    multiply a tensor of rank 3 or more, into `matmul(x, w)` (plus the
    bias): bcast has no reshape, so the flattening views ended the regions
    on both sides of the product, and bcast.matmul broadcasts the leading
    dimensions itself (its BLAS route folds them into one GEMM). Only where
    bcast takes the product (_partition.support). Returns whether it
    rewrote."""
    product = node.args[0]
    if not isinstance(product, torch.fx.Node) or \
            product.op != "call_function" or len(product.users) != 1:
        return False
    if product.target is aten.mm.default:
        bias, flat, weight = None, product.args[0], product.args[1]
    elif product.target is aten.addmm.default and \
            _unit(product, "beta") and _unit(product, "alpha"):
        bias, flat, weight = product.args
    else:
        return False
    if not _plain_view(flat):
        return False
    source = flat.args[0]
    if not isinstance(source, torch.fx.Node) or _meta(source) is None or \
            not hasattr(_meta(source), "shape"):
        return False
    shape = tuple(_meta(source).shape)
    flat_shape = tuple(_meta(flat).shape)
    out_shape = tuple(_meta(node).shape)
    weight_shape = tuple(_meta(weight).shape)
    if len(shape) < 3 or len(flat_shape) != 2 or \
            flat_shape != (_numel(shape[:-1]), shape[-1]) or \
            out_shape != shape[:-1] + weight_shape[-1:]:
        return False
    with graph.inserting_before(node):
        result = graph.call_function(aten.matmul.default, (source, weight))
        result.meta = {"tensor_meta": _with_shape(_meta(node), out_shape)}
        # A product bcast would not take keeps PyTorch's addmm, which adds
        # the bias inside the BLAS call.
        if _partition.support(result) is not None:
            graph.erase_node(result)
            return False
        if bias is not None:
            result = graph.call_function(aten.add.Tensor, (result, bias))
            result.meta = {"tensor_meta": _with_shape(_meta(node),
                                                      out_shape)}
    node.replace_all_uses_with(result)
    graph.erase_node(node)
    graph.erase_node(product)
    if not flat.users:
        graph.erase_node(flat)
    return True


def fold_matmul_views(gm):
    """Applies _fold_matmul_views wherever it matches."""
    graph = gm.graph
    for node in list(graph.nodes):
        if _plain_view(node):
            _fold_matmul_views(graph, node)
    graph.lint()
    gm.recompile()


def sink_unsqueezes(gm):
    """Applies both rewrites until nothing changes."""
    graph = gm.graph
    changed = True
    while changed:
        changed = False
        for node in list(graph.nodes):
            if node.graph is None or node.op != "call_function" or \
                    node.target is not aten.unsqueeze.default:
                continue
            if _sink(graph, node) is not None:
                changed = True
                break
        if changed:
            continue
        for node in list(graph.nodes):
            if node.op == "call_function" and \
                    node.target is aten.unsqueeze.default and \
                    not any(u.target is aten.unsqueeze.default
                            for u in node.users) and _collapse(graph, node):
                changed = True
                break
    graph.lint()
    gm.recompile()


def split_shared_views(gm):
    """A transpose of a graph input (a Linear layer's weight) that several
    nodes read becomes one per reader. A region reads its own through
    bcast.permute without a copy; shared, the transpose was also a region
    result when the forward graph saves it for the backward, and the kernel
    wrote out the transposed weight, which PyTorch then copied again to the
    view's strides (convnext_tiny's training step: two 9 MB copies per
    block of its last stage). Each copy left outside regions stays a free
    PyTorch view."""
    graph = gm.graph
    changed = False
    for node in list(graph.nodes):
        if node.op != "call_function" or \
                node.target not in _lower.PERMUTES or \
                any(i.op != "placeholder" for i in node.all_input_nodes) or \
                len(node.users) < 2:
            continue
        for user in list(node.users)[1:]:
            with graph.inserting_after(node):
                twin = graph.call_function(node.target, node.args,
                                           node.kwargs)
            twin.meta = dict(node.meta)
            user.replace_input_with(node, twin)
            changed = True
    if changed:
        graph.lint()
        gm.recompile()
