"""The partitioner: which nodes of an ATen graph bcast takes, grouped into
regions that each become one fused kernel, and the graph rebuilt with a call
per region.

torch 1.13's CapabilityBasedPartitioner can build cyclic partitions
(pytorch/pytorch#86159), so this is a small greedy one that checks: nodes
are visited in topological order, and a node joins the region of one of its
producers only if none of its other inputs depends on that region (`reach[n]`
is the set of regions node n depends on). That local test misses paths
through a third region that holds both a node before and a node after the
joining one; so the graph of regions is then sorted topologically, and where
that finds a cycle, the nodes whose joining closed it start regions of their
own and the partition is made again (`acyclic_partition`). Regions are
emitted in that topological order, so each region's inputs are computed
before its call.
"""

import operator

import torch
import torch.fx

from . import _lower

_DTYPES = {torch.bool, torch.int8, torch.int16, torch.int32, torch.int64,
           torch.uint8, torch.float16, torch.bfloat16, torch.float32,
           torch.float64}


_VIEWS_TO_CHECK = {
    _lower.aten.unsqueeze.default, _lower.aten.view.default,
    _lower.aten._unsafe_view.default, _lower.aten.reshape.default,
    _lower.aten._reshape_alias.default,
}


# Ops among _lower.VIEW_OPS that copy in PyTorch (a kernel reads through
# them): explain() says so rather than calling them free.
_COPIES = {_lower.aten.clone.default, _lower.aten.lift_fresh_copy.default}


def _meta(node):
    return node.meta.get("tensor_meta")


def _is_tensor_node(node):
    meta = _meta(node)
    return meta is not None and hasattr(meta, "dtype")


def _tensor_inputs(node):
    return [a for a in node.all_input_nodes]


def support(node):
    """None when bcast can take `node`, else the reason it cannot."""
    target = node.target
    if target not in _lower.LOWERINGS:
        name = getattr(target, "__name__", str(target))
        return f"op not supported: {_op_name(target) or name}"
    meta = _meta(node)
    if meta is None or not hasattr(meta, "dtype"):
        return "result is not a single tensor"
    if meta.dtype not in _DTYPES:
        return f"dtype {meta.dtype} not supported"
    for arg in node.all_input_nodes:
        am = _meta(arg)
        if am is None or not hasattr(am, "dtype"):
            return "an input that is not a single tensor"
        if am.dtype not in _DTYPES:
            return f"input dtype {am.dtype} not supported"
    if target in _lower.PERMUTES and not takes_permute(node):
        return ("a transpose that moves a batch dim (a product would make "
                "a BLAS call per matrix): left to PyTorch")
    if target in _VIEWS_TO_CHECK and node.all_input_nodes:
        source = tuple(_meta(node.all_input_nodes[0]).shape)
        if _lower.view_plan(source, tuple(meta.shape)) is None:
            return "a view that moves elements (bcast has no reshape)"
    val = node.meta.get("val")
    device = getattr(val, "device", None)
    if device is not None and device.type != "cpu":
        return f"device {device}"
    if target in _lower.MATMULS:
        return _matmul_support(node)
    return None


# A matrix operand PyTorch passes as a strided view other than a transpose
# of the last two dims of a contiguous tensor reaches a kernel as a
# contiguous copy: kernels take contiguous buffers. The copy costs about as
# much per element as a multiply-add of the BLAS costs per hundred
# (measured, 1 thread: [256,1024] copied in 232 us against 557 us for addmm
# with 64 rows, 146 us against 4.1 ms with 512 rows), so a product takes
# such an operand only when it does at least this many multiply-adds per
# copied element; smaller ones stay in PyTorch, whose BLAS call reads the
# view as it is. A transpose of the last
# two dims of a contiguous tensor costs nothing: the region starts with it
# and the kernel reads the source through bcast.permute (reads_through).
_COPY_RATIO = 512


def is_contiguous(meta):
    step = 1
    for size, stride in reversed(list(zip(meta.shape, meta.stride))):
        if size > 1 and stride != step:
            return False
        step *= max(size, 1)
    return True


def _permutation(node, rank):
    """The dims `node` (a t, transpose or permute) reads its source in."""
    dims = list(range(rank))
    if node.target is _lower.aten.t.default:
        return dims[::-1] if rank == 2 else dims
    if node.target is _lower.aten.transpose.int:
        d0, d1 = (d % max(rank, 1) for d in node.args[1:3])
        if rank:
            dims[d0], dims[d1] = dims[d1], dims[d0]
        return dims
    return [d % max(rank, 1) for d in node.args[1]]


def moves_batch_dims(node):
    """Whether `node`, a t, transpose or permute, moves a dim other than its
    source's last two. bcast takes only the others: a product passes the
    BLAS an operand read through a transpose of its last two dims with a
    transpose flag and keeps folding its batch dims into one call, where a
    permuted batch dim (MultiheadAttention's transposes between [B, L, E]
    and [L, B, E]) splits the product into a BLAS call per matrix, slower
    than PyTorch's copy (measured: vit_b_16's in-projection at batch 8,
    0.44x eager; docs/Torch.md)."""
    source = _meta(node.all_input_nodes[0]) if node.all_input_nodes else None
    if source is None:
        return True
    rank = len(source.shape)
    batch = max(rank - 2, 0)
    return _permutation(node, rank)[:batch] != list(range(batch))


def _product_operands(node):
    bias = 1 if node.target in (_lower.aten.addmm.default,
                                _lower.aten.baddbmm.default) else 0
    return node.args[bias:bias + 2]


def _matrix_by_matrix(node):
    """Whether the product `node` multiplies one operand's matrices by the
    other's along batch dims both have, of the same sizes (torch.bmm's
    shapes): nothing to fold, the runtime calls the BLAS per matrix (or
    block of rows) whatever the operands' strides."""
    shapes = [tuple(_meta(o).shape) for o in _product_operands(node)
              if isinstance(o, torch.fx.Node) and _is_tensor_node(o)]
    return len(shapes) == 2 and len(shapes[0]) >= 3 and \
        shapes[0][:-2] == shapes[1][:-2]


def feeds_matrix_products(node):
    """Whether every use of the permute `node`, directly or through
    element-wise ops and other permutes, is as a matrix operand of a
    product of matrix by matrix (_matrix_by_matrix). Such a product makes a
    BLAS call per matrix anyway, so reading its operand through a permuted
    batch dim costs nothing (attention's heads, split from [L, B*H, d]
    into [B*H, L, d]); where the other operand is one matrix, the runtime
    would otherwise fold the batch into one GEMM."""
    seen, work, products = {node}, [node], 0
    while work:
        for user in work.pop().users:
            if user in seen:
                continue
            seen.add(user)
            if user.op != "call_function":
                return False
            if user.target in _lower.MATMULS:
                if not _matrix_by_matrix(user):
                    return False
                products += 1
            elif user.target in _lower.POINTWISE or \
                    user.target in _lower.PERMUTES:
                work.append(user)
            else:
                return False
    return products > 0


def _moves_unit_dims_only(node):
    """Whether `node`, a t, transpose or permute, moves only size-1 dims
    among the others: a view that moves no element
    (nn.MultiheadAttention's transpose of its output from [L, 1, E] back
    to [1, L, E] at batch 1)."""
    source = _meta(node.all_input_nodes[0]) if node.all_input_nodes else None
    if source is None:
        return False
    shape = tuple(source.shape)
    order = [d for d in _permutation(node, len(shape)) if shape[d] != 1]
    return order == sorted(order)


def takes_permute(node):
    """Whether bcast takes `node`, a t, transpose or permute: one that
    keeps its source's batch dims in place (moves_batch_dims), moves only
    size-1 dims, or feeds products of matrix by matrix only
    (feeds_matrix_products)."""
    return not moves_batch_dims(node) or _moves_unit_dims_only(node) or \
        feeds_matrix_products(node)


def reads_through(node):
    """Whether `node` is a permute, or a permute of such permutes, of a
    contiguous tensor that a kernel reads through bcast.permute without a
    copy: each one that bcast takes (takes_permute: a transpose of the
    last two dims, one that moves only size-1 dims, or one feeding
    products of matrix by matrix only, as k.transpose(1, 2) of heads split
    from [L, B*H, d] into [B*H, L, d])."""
    while True:
        if node.target not in _lower.PERMUTES or \
                not takes_permute(node):
            return False
        node = node.all_input_nodes[0]
        if node.op != "call_function" or node.target not in _lower.PERMUTES:
            break
    source = _meta(node)
    return hasattr(source, "stride") and is_contiguous(source)


def _numel(shape):
    count = 1
    for size in shape:
        count *= size
    return count


def _matmul_support(node):
    """None when bcast takes the product `node`, else why not."""
    meta = _meta(node)
    if meta.dtype not in (torch.float32, torch.float64):
        return (f"a matrix product in {str(meta.dtype)[6:]}: bcast runs it "
                "as loops, not on the BLAS")
    operands = _product_operands(node)
    if not all(isinstance(a, torch.fx.Node) for a in operands):
        return "a matrix product of a constant"
    lhs = _meta(operands[0])
    depth = lhs.shape[-1] if len(lhs.shape) else 1
    work = _numel(meta.shape) * depth
    for operand in operands:
        om = _meta(operand)
        # An element-wise result bcast computes is a contiguous buffer of
        # the kernel's, whatever strides eager gives it.
        computed = operand.op == "call_function" and \
            operand.target in _lower.POINTWISE and support(operand) is None
        if not is_contiguous(om) and not reads_through(operand) and \
                not computed and \
                work < _COPY_RATIO * _numel(om.shape):
            return ("a matrix product of a strided view too small to pay "
                    "for the copy a kernel would make (a view other than a "
                    "transpose of the last two dims of a contiguous "
                    "tensor)")
    return None


def _op_name(target):
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return None


def _is_view(target):
    return isinstance(target, torch._ops.OpOverload) and any(
        a.alias_info is not None and not a.alias_info.is_write
        for a in target._schema.returns)


def _writes(node):
    return node.op == "call_function" and isinstance(
        node.target, torch._ops.OpOverload) and node.target._schema.is_mutable


def written_in_place(graph):
    """Per tensor written in place (by the root of its views: the node that
    made it), the nodes that read or write it or one of its views, in graph
    order. They keep that order and stay in PyTorch."""
    root = {}
    for node in graph.nodes:
        if node.op == "call_function" and _is_view(node.target) and \
                node.args and isinstance(node.args[0], torch.fx.Node):
            root[node] = root.get(node.args[0], node.args[0])
        else:
            root[node] = node
    written = {root[n.args[0]] for n in graph.nodes
               if _writes(n) and n.args and
               isinstance(n.args[0], torch.fx.Node)}
    touching = {r: [] for r in written}
    for node in graph.nodes:
        roots = {root[i] for i in node.all_input_nodes} & written
        for r in roots:
            touching[r].append(node)
    return touching


def partition(graph, refused, alone=frozenset()):
    """Regions of `graph` (lists of nodes in graph order) and, per node, the
    reason it stays in PyTorch (None for nodes in regions). `refused` maps
    nodes to reasons found while lowering (they stay out); nodes in `alone`
    start a region rather than join one.

    A node joins every region among its producers' that passes the local
    test, merging them (BatchNorm's `x - mean` and its scale computed from
    the running variance meet in one multiply); `reach` and the regions'
    `mask` are bitmasks of region numbers."""
    region_of, reach, reasons = {}, {}, {}
    regions, parent, mask = [], [], []
    order = {n: k for k, n in enumerate(graph.nodes)}

    def find(r):
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    touching = {n for nodes in written_in_place(graph).values()
                for n in nodes}
    for node in graph.nodes:
        inputs = node.all_input_nodes
        depends = 0
        for i in inputs:
            depends |= reach.get(i, 0)
        if node.op != "call_function":
            reach[node] = depends
            continue
        reason = refused.get(node) or support(node)
        if reason is None and node in touching:
            reason = "reads a tensor that is written in place"
        if reason is None and node.target in _lower.VIEW_OPS and \
                not reads_through(node) and \
                all(region_of.get(i) is None for i in inputs):
            reason = "a copy of a value PyTorch computes: left to " \
                "PyTorch" if node.target in _COPIES else \
                "a view of a value PyTorch computes: free in PyTorch"
        if reason is not None:
            reasons[node] = reason
            reach[node] = depends
            continue
        reasons[node] = None
        candidates = []
        for i in inputs:
            r = region_of.get(i)
            if r is not None and find(r) not in candidates:
                candidates.append(find(r))
        valid = [r for r in (candidates if node not in alone else [])
                 if all((region_of.get(i) is not None and
                         find(region_of[i]) == r) or
                        not reach.get(i, 0) & mask[r] for i in inputs)]
        if valid:
            chosen = valid[-1]
            for r in valid[:-1]:
                regions[chosen] += regions[r]
                regions[r] = []
                parent[r] = chosen
                mask[chosen] |= mask[r]
        else:
            chosen = len(regions)
            regions.append([])
            parent.append(chosen)
            mask.append(1 << chosen)
        regions[chosen].append(node)
        region_of[node] = chosen
        reach[node] = depends | (1 << chosen)
    regions = [sorted(r, key=order.__getitem__) for r in regions if r]
    region_of = {}
    for r, members in enumerate(regions):
        for node in members:
            region_of[node] = r
    return _trim(regions, region_of, reasons)


def _trim(regions, region_of, reasons):
    """Views at a region's edges go back to PyTorch, where they are free
    (a kernel would copy them), except expand and a transpose of the last
    two dims of a contiguous tensor, which a kernel reads without
    materializing or copying; a region left with no element-wise work is
    dissolved."""
    kept = []
    for region in regions:
        members = set(region)
        changed = True
        while changed:
            changed = False
            for node in list(region):
                if node.target not in _lower.VIEW_OPS or \
                        node.target is _lower.aten.expand.default:
                    continue
                leading = all(i not in members for i in node.all_input_nodes)
                if reads_through(node):
                    leading = False
                trailing = all(u not in members for u in node.users)
                if leading or trailing:
                    region.remove(node)
                    members.discard(node)
                    reasons[node] = "a view at a region's edge: free in " \
                        "PyTorch"
                    changed = True
        if not any(_lower.counts_in_coverage(n.target) for n in region):
            for node in region:
                reasons[node] = "a matrix product with no element-wise " \
                    "work beside it: left to PyTorch (the same BLAS)" \
                    if node.target in _lower.MATMULS else \
                    "data movement only: left to PyTorch"
            region = []
        if region:
            kept.append(region)
    region_of = {}
    for r, region in enumerate(kept):
        for node in region:
            region_of[node] = r
            reasons[node] = None
    return kept, region_of, reasons


def region_io(region, region_of, index):
    """The inputs (nodes outside the region it reads, in first-use order)
    and outputs (its nodes read outside it, or by the graph's output)."""
    members = set(region)
    inputs = []
    for node in region:
        for i in node.all_input_nodes:
            if i not in members and i not in inputs:
                inputs.append(i)
    outputs = [n for n in region
               if any(u not in members for u in n.users)]
    return inputs, outputs


def _dense_order(shape, stride):
    """The dims of a tensor outermost first in memory when its elements
    fill it densely in that order (size-1 dims where they are in logical
    order), else None."""
    order = sorted((d for d in range(len(shape)) if shape[d] != 1),
                   key=lambda d: -stride[d])
    for d in range(len(shape)):  # size-1 dims where they are
        if shape[d] == 1:
            order.insert(sum(1 for e in order if e < d), d)
    return order if _dense_in(shape, stride, order) else None


def _dense_in(shape, stride, order):
    """Whether a tensor's elements fill its memory densely with its dims
    taken in `order` (size-1 dims anywhere), after padding it with leading
    1s to len(order) dims."""
    pad = len(order) - len(shape)
    shape, stride = (1,) * pad + tuple(shape), (0,) * pad + tuple(stride)
    step = 1
    for d in reversed(order):
        if shape[d] != 1 and stride[d] != step:
            return False
        step *= shape[d]
    return True


def physical_order(region, inputs, outputs):
    """For a region of POINTWISE ops, reductions that keep their dims and
    views that only insert or remove size-1 dims (_lower.unit_view), whose
    results eager lays out with their dims permuted (channels-last
    activations of a model that permutes to apply a Linear to channels, as
    convnext does, and their gradients): the order of dims in memory, in
    which every input, padded with leading 1s to the results' rank, and
    every result is dense, so that the kernel reads and writes each tensor
    in place as it is, in memory order. None otherwise: a region of
    contiguous results, or tensors that would need copies. (Channels-last
    convolutions, _memory_format, give every BatchNorm and residual region
    of a convolutional network such layouts.)"""
    metas = [_meta(n) for n in outputs]
    rank = len(metas[0].shape)
    if any(len(m.shape) != rank or 0 in tuple(m.shape) for m in metas):
        return None
    views = []
    for node in region:
        meta = _meta(node)
        if meta is None or len(meta.shape) > rank:
            return None
        if node.target in _lower.POINTWISE:
            continue
        if node.target in _lower.UNIT_VIEWS:
            views.append(node)
            continue
        if not _lower.keeps_dims(node.target, node.args, node.kwargs) or \
                len(_meta(node.args[0]).shape) != rank:
            return None
    # The order of the first full-rank result, or else operand, whose
    # layout is not the contiguous one.
    order = None
    for meta in metas + [_meta(n) for n in inputs]:
        if len(meta.shape) != rank:
            continue
        dense = _dense_order(tuple(meta.shape), tuple(meta.stride))
        if dense is not None and dense != sorted(dense):
            order = dense
            break
    if order is None:
        return None
    for node in list(inputs) + list(outputs):
        meta = _meta(node)
        if len(meta.shape) > rank or \
                not _dense_in(meta.shape, meta.stride, order):
            return None
    if not all(_lower.unit_view(tuple(_meta(n.args[0]).shape),
                                tuple(_meta(n).shape), order)
               for n in views):
        return None
    return order


def region_spec(region, inputs, outputs, dynamic):
    """The RegionSpec of a region."""
    position = {n: j for j, n in enumerate(region)}
    in_index = {n: k for k, n in enumerate(inputs)}

    def ref(value):
        if isinstance(value, torch.fx.Node):
            if value in position:
                return _lower.Ref("v", position[value])
            return _lower.Ref("in", in_index[value])
        if isinstance(value, (list, tuple)):
            return type(value)(ref(v) for v in value)
        return value

    ops = []
    for node in region:
        meta = _meta(node)
        ops.append((node.target, ref(tuple(node.args)),
                    {k: ref(v) for k, v in node.kwargs.items()},
                    (tuple(meta.shape), str(meta.dtype).replace("torch.",
                                                                ""))))
    in_sigs = []
    for node in inputs:
        meta = _meta(node)
        shape = tuple(meta.shape)
        if dynamic:
            shape = tuple(None for _ in shape)
        in_sigs.append((shape, str(meta.dtype).replace("torch.", "")))
    if dynamic:
        ops = [(t, a, k, (tuple(None for _ in e[0]), e[1]))
               for t, a, k, e in ops]
    return _lower.RegionSpec(ops, [_lower.Ref("v", position[n])
                                   for n in outputs], in_sigs)


def order_regions(graph, regions, region_of):
    """Graph items in an order that respects dependences between regions:
    each item is a node outside regions or a region index."""
    items = []
    item_of = {}
    for node in graph.nodes:
        r = region_of.get(node)
        key = ("r", r) if r is not None else ("n", node)
        if key not in item_of:
            item_of[key] = len(items)
            items.append(key)
    deps = [set() for _ in items]
    # Readers and writers of a tensor written in place keep graph order.
    for nodes in written_in_place(graph).values():
        for before, after in zip(nodes, nodes[1:]):
            deps[item_of[("n", after)]].add(item_of[("n", before)])
    for node in graph.nodes:
        r = region_of.get(node)
        me = item_of[("r", r) if r is not None else ("n", node)]
        for i in node.all_input_nodes:
            ri = region_of.get(i)
            other = item_of[("r", ri) if ri is not None else ("n", i)]
            if other != me:
                deps[me].add(other)
    # Kahn's algorithm, taking the earliest ready item (graph order).
    import heapq
    users = [[] for _ in items]
    pending = [len(d) for d in deps]
    for me, d in enumerate(deps):
        for other in d:
            users[other].append(me)
    ready = [i for i, p in enumerate(pending) if p == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(items[i])
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(ready, u)
    if len(order) != len(items):
        return None, {items[i] for i, p in enumerate(pending) if p}
    return order, None


def acyclic_partition(graph, refused):
    """partition(), repeated until the graph of regions has no cycle; also
    returns the order of order_regions()."""
    alone = set()
    while True:
        regions, region_of, reasons = partition(graph, refused, alone)
        order, stuck = order_regions(graph, regions, region_of)
        if order is not None:
            return regions, region_of, reasons, order
        grown = False
        for kind, r in stuck:
            if kind != "r":
                continue
            # The last node of the region that reads a value of another
            # item on the cycle: its joining closed the cycle.
            for node in reversed(regions[r]):
                if node in alone:
                    continue
                if any(region_of.get(i) != r and
                       (("r", region_of[i]) if region_of.get(i) is not None
                        else ("n", i)) in stuck
                       for i in node.all_input_nodes):
                    alone.add(node)
                    grown = True
                    break
        if not grown:
            # A cycle through the order kept for in-place writes: the
            # stuck regions' nodes go alone (graph order has no cycle).
            for kind, r in stuck:
                if kind == "r":
                    alone.update(regions[r])


def rebuild(gm, order, kernels):
    """A GraphModule running `gm` with each region replaced by a call of its
    kernel (`kernels[r]`: a callable taking the region's inputs and
    returning a tuple of its outputs, and its (inputs, outputs))."""
    new = torch.fx.Graph()
    env = {}
    for kind, item in order:
        if kind == "n":
            node = item
            env[node] = new.node_copy(node, lambda n: env[n])
            continue
        call, inputs, outputs = kernels[item]
        result = new.call_function(call, tuple(env[i] for i in inputs))
        for k, out in enumerate(outputs):
            env[out] = new.call_function(operator.getitem, (result, k))
            env[out].meta = dict(out.meta)
    return torch.fx.GraphModule(gm, new)
