"""Runtime: compiled graphs, guards and recompilation.

`compile_graph` turns one ATen graph into a GraphModule where each region
is a call of a `bcast.jit` kernel (through the extension's call path) and
every other node runs in PyTorch, and records what it did (`GraphReport`).
`Compiled` is what `bcast.torch.compile` returns for a function, and the
state behind a compiled module: per guard signature (shapes, dtypes,
strides, devices and requires_grad of every tensor, train/eval, grad mode,
the other arguments) it keeps one captured entry and captures again for a
signature it has not seen; kernels are shared between entries (and, with
`dynamic=True`, compiled with `?` sizes so a new batch size reuses them).
"""

import operator
import os
import sys
import time
import warnings

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch.utils.hooks import RemovableHandle

import bcast

from . import (_capture, _lower, _memory_format, _nested, _partition,
               _rewrite)

# RegionSpec.key -> bcast.jit function, shared by every compiled graph.
_KERNELS = {}
# While profile() records: region call -> the tensors of its first call.
RECORD = None


class RegionReport:
    """One region: its nodes, its kernel and the time compiling it took."""

    def __init__(self, nodes, inputs, outputs, key, seconds, reused):
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
        self.key = key
        self.compile_seconds = seconds
        self.reused = reused


class GraphReport:
    """What compile_graph did with one graph ("forward", "backward" or
    "inference")."""

    def __init__(self, kind):
        self.kind = kind
        self.nodes = []  # (name, target text, counted, region or None, why)
        self.regions = []
        self.module = None
        # For profile(): per region its fx nodes, (inputs, outputs), call.
        self.region_nodes = []
        self.region_io = []
        self.calls = []

    def counted(self):
        return [n for n in self.nodes if n[2]]

    def covered(self):
        return [n for n in self.nodes if n[2] and n[3] is not None]


def _target_text(target):
    return str(target) if isinstance(target, torch._ops.OpOverload) \
        else getattr(target, "__name__", str(target))


def _kernel(spec, dynamic, cache, threads):
    key = (spec.key, dynamic, cache, threads)
    fn = _KERNELS.get(key)
    if fn is None:
        fn = bcast.jit(spec.function, dynamic=dynamic, cache=cache,
                       threads=threads)
        _KERNELS[key] = fn
        return fn, False
    return fn, True


def _example(node, order=None):
    meta = node.meta["tensor_meta"]
    shape = tuple(meta.shape)
    if order is not None:
        shape = _lower.placed(shape, order)
    return torch.zeros(shape, dtype=meta.dtype)


def _layouts(outputs):
    """Per region output, the strides eager gives it where they are not the
    contiguous ones a kernel writes (an element-wise op of a permuted tensor
    keeps its layout in eager, and later views such as _reshape_alias read
    through those exact strides), else None."""
    layouts = []
    for node in outputs:
        meta = node.meta["tensor_meta"]
        shape, stride = tuple(meta.shape), tuple(meta.stride)
        contiguous, step = [], 1
        for size in reversed(shape):
            contiguous.append(step)
            step *= max(size, 1)
        contiguous.reverse()
        differs = any(size > 1 and a != b
                      for size, a, b in zip(shape, stride, contiguous))
        layouts.append((shape, stride) if differs else None)
    return layouts


def _physical_views(order, shapes):
    """The views a region computed in memory order (`order`,
    _partition.physical_order) takes its operands (of `shapes`) as, and
    gives its results back through, on the calls that
    Dispatcher._call_in_order declines (a first call, which compiles; CUDA
    tensors; an operand not dense in the order). An operand in
    `prepare.stable` (a parameter or buffer, or a view of one that the
    graph keeps: _memoize_state_views) keeps its view while it is the same
    tensor with the same data pointer."""
    rank = len(order)
    inverse = [order.index(d) for d in range(rank)]
    # A contiguous operand whose dims larger than 1 keep their order once
    # placed (a [C] vector) is one view of the placed shape; any other is a
    # permute of the operand padded with leading 1s.
    padded = [(1,) * (rank - len(shape)) + tuple(shape) for shape in shapes]
    placed = [_lower.placed(shape, order) for shape in shapes]
    direct = []
    for shape in padded:
        moved = [order.index(d) for d, s in enumerate(shape) if s != 1]
        direct.append(moved == sorted(moved))
    kept = {}

    def view(k, t):
        if direct[k] and t.is_contiguous():
            return t.view(placed[k])
        if t.dim() != rank:
            t = t.view(padded[k])
        return t.permute(order)

    def prepare(tensors):
        views = []
        for k, t in enumerate(tensors):
            if k in prepare.stable:
                hit = kept.get(k)
                if hit is None or hit[0] is not t or \
                        hit[1] != t.data_ptr():
                    hit = kept[k] = (t, t.data_ptr(), view(k, t))
                views.append(hit[2])
            else:
                views.append(view(k, t))
        return views
    prepare.stable = frozenset()

    def restore(results):
        return tuple(r.permute(inverse) for r in results)
    return prepare, restore


def _overlapping(shape, stride):
    """Whether elements of the layout may share memory (an expand's stride
    0, an as_strided view's): not each stride, smallest first, past the
    span of the dims before it."""
    span = 1
    for st, size in sorted((st, size) for size, st in zip(shape, stride)
                           if size > 1):
        if st < span:
            return True
        span += st * (size - 1)
    return False


def _laid_out(layout):
    """A function giving a contiguous result eager's layout. Where elements
    share memory (a region output that is an expand view), each address
    gets its element's value (eager's values agree there); empty_strided
    and copy_ would refuse such a layout."""
    shape, stride = layout
    if not _overlapping(shape, stride):
        return lambda r: torch.empty_strided(shape, stride,
                                             dtype=r.dtype).copy_(r)
    index = torch.zeros((), dtype=torch.long)
    for size, st in zip(shape, stride):
        index = index.unsqueeze(-1) + torch.arange(size) * st
    index = index.reshape(-1)
    extent = int(index.max()) + 1 if index.numel() else 0

    def lay_out(r):
        storage = torch.empty(extent, dtype=r.dtype)
        storage[index] = r.reshape(-1)
        return storage.as_strided(shape, stride)
    return lay_out


def _region_call(fn, spec, layouts, order=None, shapes=(), strided=()):
    # Tensors that require grad reach here in the forward graph: the kernel
    # reads them as plain buffers, as they are (autograd is handled around
    # the graph). `strided`: the positions of inputs that eager lays out
    # other than contiguously (a view PyTorch keeps, such as a transpose
    # that moves a batch dim), copied here: the call path would take a
    # general route for them, converting every argument (20 to 90 us a
    # call for the census' transformer block at batch 2, measured with
    # cProfile), to make the same copy.
    restride = order is None and any(layout is not None
                                     for layout in layouts)
    lay_outs = [_laid_out(layout) if restride and layout is not None
                else None for layout in layouts]
    prepare, restore = _physical_views(order, shapes) \
        if order is not None else (list, tuple)
    # The call path reads operands dense in `order` as their placed views,
    # and lays new results out so, without a permute per tensor in Python
    # (Dispatcher._call_in_order); the views are taken here only when it
    # cannot (a first call compiles through them).
    in_order = getattr(fn, "_call_in_order", None) \
        if order is not None else None
    order_key = tuple(order) if order is not None else None

    def call(*tensors):
        if RECORD is not None and call not in RECORD:
            RECORD[call] = tuple(t.clone() for t in tensors)
        if strided:
            tensors = list(tensors)
            for k in strided:
                tensors[k] = tensors[k].contiguous()
        try:
            if order is not None:
                if in_order is not None:
                    results = in_order(order_key, tensors)
                    if results is not NotImplemented:
                        return results
                return restore(fn(*prepare(tensors)))
            results = fn(*tensors)
        except ValueError as e:
            # A run-time shape error of a kernel with `?` sizes: PyTorch's
            # sentence, PyTorch's exception type.
            raise RuntimeError(str(e)) from None
        if restride:
            results = tuple(
                r if layout is None or tuple(r.shape) != layout[0] else
                lay_out(r)
                for r, layout, lay_out in zip(results, layouts, lay_outs))
        return results
    call.__name__ = "bcast_region"
    call.spec = spec
    call.kernel = fn
    call.prepare = prepare
    call.memory_order = order
    return call


class _Progress:
    """A progress line on stderr once compiling has taken a second."""

    def __init__(self, verbose, what):
        self.verbose, self.what = verbose, what
        self.start = time.perf_counter()
        self.shown = False

    def update(self, done, total):
        if not self.verbose:
            return
        if (done, total) == getattr(self, "last", None):
            return
        self.last = (done, total)
        if self.shown or time.perf_counter() - self.start > 1.0:
            self.shown = True
            sys.stderr.write(f"\rbcast.torch: {self.what}: compiled {done}/"
                             f"{total} regions")
            sys.stderr.flush()

    def close(self, total):
        if self.shown:
            self.update(total, total)
            sys.stderr.write("\n")
            sys.stderr.flush()


# Views of a parameter or buffer that only bcast kernels read (BatchNorm's
# statistics unsqueezed to [C,1,1], a weight passed as it is, detached):
# aten calls from Python, about 2 us each, 424 unsqueezes and 172 detaches
# a call in regnet_y_400mf. They are made once and kept while the tensors
# they view keep their memory.
_VIEWS = {_lower.aten.unsqueeze.default, _lower.aten.squeeze.dim,
          _lower.aten.view.default, _lower.aten._unsafe_view.default,
          _lower.aten._reshape_alias.default, _lower.aten.expand.default,
          _lower.aten.t.default, _lower.aten.transpose.int,
          _lower.aten.permute.default, _lower.aten.alias.default}


def _is_region(node):
    return node.op == "call_function" and \
        getattr(node.target, "__name__", "") == "bcast_region"


class _StateViews:
    """The graph node computing every memoized view at once: called with
    the tensors they view, it returns the views made last time when every
    one of those tensors still has the data pointer it had (the kept views
    hold their memory, so it cannot be another tensor's), and makes them
    again otherwise. Shapes, strides and dtypes are the graph's guards."""

    def __init__(self, recipes):
        self.__name__ = "bcast_state_views"  # the node's name in the graph
        self.recipes = recipes  # (root index, ((op, args), ...)) per view
        self.key = None
        self.views = None

    def __call__(self, *roots):
        key = tuple(r.data_ptr() for r in roots)
        if key != self.key:
            views = []
            for root, ops in self.recipes:
                view = roots[root].detach()
                for op, args in ops:
                    view = op(view, *args)
                views.append(view)
            self.views, self.key = tuple(views), key
        return self.views


def _memoize_state_views(gm, state_inputs):
    """Replaces the views of the first `state_inputs` placeholders (the
    parameters and buffers) that only region calls read, and those
    placeholders where region calls read them as they are, by getitems of
    one _StateViews node. Inference graphs only: nothing here is saved for
    a backward graph."""
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    roots, recipes, uses = [], [], []

    def chain(node):
        """(placeholder, ops) when `node` is a view chain of a state
        placeholder with constant arguments, else None."""
        ops = []
        while node.op == "call_function" and node.target in _VIEWS:
            if len(node.all_input_nodes) != 1 or node.kwargs:
                return None
            ops.append((node.target, tuple(node.args[1:])))
            node = node.args[0]
        if node.op != "placeholder" or \
                placeholders.index(node) >= state_inputs:
            return None
        return node, tuple(reversed(ops))

    for node in list(graph.nodes):
        if node.op not in ("placeholder", "call_function"):
            continue
        readers = [u for u in node.users if _is_region(u)]
        if not readers:
            continue
        found = chain(node)
        if found is None:
            continue
        root, ops = found
        if root not in roots:
            roots.append(root)
        recipes.append((roots.index(root), ops))
        uses.append((node, readers))
    if not recipes:
        return
    with graph.inserting_after(placeholders[-1]):
        views = graph.call_function(_StateViews(recipes), tuple(roots))
    last = views
    for k, (node, readers) in enumerate(uses):
        with graph.inserting_after(last):
            last = graph.call_function(operator.getitem, (views, k))
        last.meta = dict(node.meta)
        for reader in readers:
            reader.replace_input_with(node, last)
    # Only the views left unread go: graph.eliminate_dead_code() would also
    # drop in-place writes to fresh tensors (swin_t's attention mask).
    for node, _ in reversed(uses):
        while node.op == "call_function" and node.target in _VIEWS and \
                not node.users:
            source = node.args[0]
            graph.erase_node(node)
            node = source
    graph.lint()
    gm.recompile()


def _mark_stable_operands(gm, state_inputs):
    """Tells each region call computed in memory order which of its
    operands are the graph's parameters and buffers or their kept views
    (_physical_views)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    state = set(placeholders[:state_inputs])

    def stable(node):
        return node in state or (
            node.target is operator.getitem and
            isinstance(node.args[0].target, _StateViews))
    for node in gm.graph.nodes:
        if _is_region(node) and node.target.memory_order is not None:
            node.target.prepare.stable = frozenset(
                k for k, a in enumerate(node.args) if stable(a))


def compile_graph(gm, kind, dynamic=False, cache=False, verbose=True,
                  threads=None, state_inputs=0, example_inputs=None):
    """A GraphModule doing `gm`'s work with bcast kernels for the regions
    bcast takes, and the GraphReport. `example_inputs` (the tensors an
    inference graph was traced with) let its convolutions be laid out
    channels-last (_memory_format)."""
    _capture.functionalize_in_place(gm)
    mutates = _capture.functionalize_copies(gm)
    if kind == "inference" and not dynamic and not mutates and \
            example_inputs is not None:
        gm = _memory_format.channels_last_convolutions(gm, example_inputs)
    _rewrite.sink_unsqueezes(gm)
    _rewrite.fold_matmul_views(gm)
    _rewrite.split_shared_views(gm)
    refused = {}
    progress = _Progress(verbose, kind)
    while True:
        regions, region_of, reasons, order = _partition.acyclic_partition(
            gm.graph, refused)
        kernels, reports, retry = {}, [], False
        for r, region in enumerate(regions):
            progress.update(r, len(regions))
            inputs, outputs = _partition.region_io(region, region_of, r)
            spec = _partition.region_spec(region, inputs, outputs, dynamic)
            memory = None if dynamic else _partition.physical_order(
                region, inputs, outputs)
            if memory is not None:
                spec = spec.permuted(memory)
            fn, reused = _kernel(spec, dynamic, cache, threads)
            start = time.perf_counter()
            try:
                compiled = fn.compile(*[_example(i, memory) for i in inputs])
            except Exception as e:  # noqa: BLE001 - every failure falls back
                failed = spec.failed
                reason = _reason(e)
                _KERNELS.pop((spec.key, dynamic, cache, threads), None)
                if os.environ.get("BCAST_TORCH_DEBUG"):
                    print("refused", failed, region[failed] if failed
                          is not None else region, reason, file=sys.stderr)
                if failed is not None and failed < len(region):
                    refused[region[failed]] = reason
                else:
                    for node in region:
                        refused[node] = f"bcast could not compile the " \
                                        f"region: {reason}"
                retry = True
                break
            seconds = time.perf_counter() - start
            reused = reused or compiled.source == "disk"
            strided = () if memory is not None else tuple(
                k for k, i in enumerate(inputs)
                if hasattr(i.meta.get("tensor_meta"), "stride") and
                not _partition.is_contiguous(i.meta["tensor_meta"]))
            kernels[r] = (_region_call(
                fn, spec, _layouts(outputs), memory,
                [tuple(i.meta["tensor_meta"].shape) for i in inputs],
                strided), inputs, outputs)
            reports.append(RegionReport([n.name for n in region],
                                        len(inputs), len(outputs), spec.key,
                                        seconds, reused))
        if not retry:
            break
    progress.close(len(regions))
    report = GraphReport(kind)
    report.regions = reports
    report.region_nodes = regions
    report.region_io = [(kernels[r][1], kernels[r][2])
                        for r in range(len(regions))]
    report.calls = [kernels[r][0] for r in range(len(regions))]
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        r = region_of.get(node)
        report.nodes.append((node.name, _target_text(node.target),
                             _lower.counts_in_coverage(node.target), r,
                             reasons.get(node)))
    new = _partition.rebuild(gm, order, kernels)
    if state_inputs:
        _memoize_state_views(new, state_inputs)
        _mark_stable_operands(new, state_inputs)
    report.module = new
    report.source = gm
    return new, report


def _reason(error):
    text = str(error).strip().splitlines()
    text = text[0] if text else type(error).__name__
    if isinstance(error, _lower.Unsupported):
        return text
    return f"{type(error).__name__}: {text}"


# --- Guards -----------------------------------------------------------------

def _tensor_guard(t):
    # torch.Size and torch.device compare and hash by value.
    return (t.shape, t.dtype, t.stride(), t.device, t.requires_grad)


def _guard(value):
    if isinstance(value, torch.Tensor):
        return ("T",) + _tensor_guard(value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_guard(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _guard(v)) for k, v in value.items())
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


# Writes of any nn.Module attribute since import (nn.Module.__setattr__,
# wrapped below): the compiled models' plain attributes are read again for
# their guards only when this moved, so the guards cost nothing per call.
_ATTRIBUTE_WRITES = 0
_module_setattr = torch.nn.Module.__setattr__


def _counting_setattr(self, name, value):
    global _ATTRIBUTE_WRITES
    _ATTRIBUTE_WRITES += 1
    _module_setattr(self, name, value)


torch.nn.Module.__setattr__ = _counting_setattr

_PLAIN = (bool, int, float, str, type(None))


def _plain(value):
    return isinstance(value, _PLAIN) or (
        isinstance(value, tuple) and all(_plain(v) for v in value))


def _attributes(modules):
    """The plain attributes (numbers, strings, None, tuples of them) of
    each module: what a forward reads besides tensors and decides the
    captured graph with (Dropout's `p`, BatchNorm's `eps` and `momentum`,
    a scale kept as a float). `training` is in the guard key already."""
    return tuple(tuple((name, _guard(value))
                       for name, value in m.__dict__.items()
                       if name != "training" and _plain(value))
                 for m in modules)


class _ModuleSlots:
    """Where a module's parameters and buffers are held: each call reads
    them from there instead of walking the module tree twice with
    named_parameters() and named_buffers() (0.63 ms a call for
    regnet_y_400mf's 384 tensors in 250 modules, against 0.18 ms).

    read() gives what those two would give, or None when the tree may have
    changed since: a module's count of parameters, buffers or submodules,
    a submodule, or which slots hold one tensor (a parameter tied to
    another, or untied) differs from the walk the slots were made from;
    the caller then walks again."""

    def __init__(self, module, params, buffers):
        self.modules, slots, names = [], [], {}
        seen = set()

        def visit(prefix, m):
            self.modules.append((m, len(m._parameters), len(m._buffers),
                                 tuple(m._modules.items())))
            for kind, held in ((0, m._parameters), (1, m._buffers)):
                for name, t in held.items():
                    slots.append((held, name, kind))
                    names[id(held), name] = prefix + name
            for name, child in m._modules.items():
                if child is not None and id(child) not in seen:
                    seen.add(id(child))
                    visit(prefix + name + ".", child)

        seen.add(id(module))
        visit("", module)
        self.module_list = [m for m, _, _, _ in self.modules]
        self.slots = slots
        values = [held[name] for held, name, _ in slots]
        # The slots whose tensor named_parameters()/named_buffers() give
        # (the first of each tensor, no None), with their names.
        self.first, firsts = [], {}
        for i, (t, (held, name, kind)) in enumerate(zip(values, slots)):
            if t is not None and id(t) not in firsts:
                firsts[id(t)] = i
                self.first.append((i, kind, names[id(held), name]))
        self.pattern = [firsts.get(id(t)) if t is not None else None
                        for t in values]
        wanted = ([n for n, _ in params], [n for n, _ in buffers])
        got = ([n for _, k, n in self.first if k == 0],
               [n for _, k, n in self.first if k == 1])
        if got != wanted:  # a tensor both a parameter and a buffer
            self.slots = None

    def read(self):
        if self.slots is None:
            return None
        for m, params, buffers, children in self.modules:
            if len(m._parameters) != params or len(m._buffers) != buffers \
                    or len(m._modules) != len(children):
                return None
            held = m._modules
            for name, child in children:
                if held.get(name, self) is not child:
                    return None
        try:
            values = [held[name] for held, name, _ in self.slots]
        except KeyError:
            return None
        firsts = {}
        for i, t in enumerate(values):
            if t is not None:
                firsts.setdefault(id(t), i)
        if [firsts.get(id(t)) if t is not None else None
                for t in values] != self.pattern:
            return None
        params, buffers = [], []
        for i, kind, name in self.first:
            (buffers if kind else params).append((name, values[i]))
        return params, buffers


def _copy_in_layout(t):
    """A copy of `t` with its strides and storage offset (clone() makes a
    strided tensor contiguous): a capture traces views with explicit
    strides (`_reshape_alias`) from its example tensors, and a guard
    signature holds the arguments' strides, so its graph must be traced on
    tensors laid out as they are (a stride-2 argument read through a
    `reshape(-1)` traced on a contiguous clone read the wrong elements)."""
    t = t.detach()
    copy = torch.empty(0, dtype=t.dtype, device=t.device)
    # The whole storage, as expanded (overlapping) tensors need.
    return copy.set_(t.storage().clone(), t.storage_offset(), t.size(),
                     t.stride())


def _first_order(backward):
    """The backward graph's call, refusing to run where its gradients
    would have to be differentiated again: its kernels record no autograd
    graph, and without this the second backward failed later with
    `element 0 of tensors does not require grad`."""
    def call(*args):
        # The autograd engine runs backward functions in grad mode exactly
        # when create_graph is set.
        if torch.is_grad_enabled():
            raise RuntimeError(
                "bcast.torch.compile: a compiled model's backward is not "
                "differentiable (create_graph=True, a double backward); "
                "compute such gradients with the eager model")
        return backward(*args)
    return call


def _tensor_outputs(fn):
    """`fn` returning the tensors of its output as a list (aot_function
    refuses outputs holding None, as nn.MultiheadAttention's
    `need_weights=False` returns), and the function rebuilding the output
    from them with the other values the capture saw (a signature's capture
    fixes them, as it fixes shapes)."""
    seen = {}

    def tensors(params, buffers, args, kwargs):
        out, updated = fn(params, buffers, args, kwargs)
        leaves, spec = pytree.tree_flatten(out)
        seen["spec"] = spec
        seen["leaves"] = [None if isinstance(v, torch.Tensor) else (v,)
                          for v in leaves]
        return [v for v in leaves if isinstance(v, torch.Tensor)], updated

    def rebuild(values):
        if isinstance(seen["spec"], pytree.LeafSpec):
            # A bare tensor (a 1-tuple is rebuilt as one).
            return values[0]
        values = iter(values)
        return pytree.tree_unflatten(
            [next(values) if v is None else v[0] for v in seen["leaves"]],
            seen["spec"])
    return tensors, rebuild


def _hooks(module):
    """Why calls run in eager PyTorch, where a module (or nn.Module's
    global registry) has forward or backward hooks, else None, and the
    dicts holding them (all emptied: the hooks were removed): a captured
    graph calls no module, so hooks would run once, during the capture."""
    from torch.nn.modules import module as registry
    held = [registry._global_forward_hooks,
            registry._global_forward_pre_hooks,
            registry._global_backward_hooks]
    if any(held):
        return "nn.Module has global hooks, which a captured graph " \
            "would not call", held
    for name, m in (module.named_modules() if module is not None else ()):
        if m is module:
            # The compiled module's own hooks: its __call__ runs them
            # around the graph (the two share their __dict__).
            continue
        found = [(kind, hooks) for kind, hooks in (
            ("forward pre-", m._forward_pre_hooks),
            ("forward ", m._forward_hooks),
            ("backward ", m._backward_hooks)) if hooks]
        if found:
            return f"{name} ({type(m).__name__}) has " \
                f"{' and '.join(kind for kind, _ in found)}hooks, which a " \
                "captured graph would not call", [h for _, h in found]
    return None, []


class Entry:
    """One guard signature: the aot_function built for it, the buffers it
    updates, and the reports of its graphs."""

    def __init__(self, fn, mutated, reports, seconds):
        self.fn = fn
        self.mutated = mutated
        self.reports = reports
        self.capture_seconds = seconds
        # An inference graph whose inputs are the parameters, the buffers
        # and tensor arguments, in that order: (its forward, the pytree spec
        # of its outputs), called without aot_function's flattening.
        self.direct = None
        # Why this signature runs in eager PyTorch (its capture failed), or
        # None; and whether the warning saying so was given.
        self.fallback = None
        self.warned = False
        # The output's structure from the list of tensors the graphs return
        # (_tensor_outputs), or None (a fallback's call returns it whole).
        self.rebuild = None
        # (TransformerEncoder site, layout) -> the Entry of the same
        # signature whose graph was made for a padding mask of that layout
        # (_nested).
        self.variants = {}


class Compiled:
    """The compiled form of a module (`module` set) or a function."""

    def __init__(self, target, module, dynamic, cache, verbose,
                 threads=None):
        self.target = target
        self.threads = threads
        self.module = module
        self.dynamic = dynamic
        self.cache = cache
        self.verbose = verbose
        self.entries = {}
        self.recompiles = 0
        self.last = None
        self.slots = None
        # Hooks that make calls run in eager (_hooks: the reason and the
        # dicts holding them), and the hook id they were looked for at.
        self.hooks = None
        self.hook_dicts = []
        self.hook_id = None
        # The modules' plain attributes (_attributes): the number of each
        # distinct set seen, that of the last one and the attribute writes
        # it was read at.
        self.attribute_sets = {}
        self.attribute_set = None
        self.attribute_writes = None

    def _state(self):
        if self.slots is not None:
            state = self.slots.read()
            if state is not None:
                return state
        module = self.module
        params = [(n, p) for n, p in module.named_parameters()]
        buffers = [(n, b) for n, b in module.named_buffers()]
        self.slots = _ModuleSlots(module, params, buffers)
        return params, buffers

    def key(self, params, buffers, args, kwargs):
        # Every submodule's training flag (BatchNorms put in eval() inside
        # a model in train(), as for fine-tuning), and autocast's state:
        # both decide what the graph computes.
        if self.module is None:
            training = None
        else:
            modules = self.slots.module_list if self.slots is not None \
                else list(self.module.modules())
            training = tuple([m.training for m in modules])
            if self.attribute_writes != _ATTRIBUTE_WRITES:
                self.attribute_writes = _ATTRIBUTE_WRITES
                self.attribute_set = self.attribute_sets.setdefault(
                    _attributes(modules), len(self.attribute_sets))
        return (training, self.attribute_set,
                torch.is_grad_enabled(), self.threads or
                torch.get_num_threads(),
                torch.is_autocast_cpu_enabled() and
                torch.get_autocast_cpu_dtype(),
                torch.is_autocast_enabled() and
                torch.get_autocast_gpu_dtype(),
                tuple(_tensor_guard(p) for _, p in params),
                tuple(_tensor_guard(b) for _, b in buffers),
                _guard(args), _guard(kwargs))

    def __call__(self, *args, **kwargs):
        if self.module is not None:
            params, buffers = self._state()
        else:
            params, buffers = [], []
        key = self.key(params, buffers, args, kwargs)
        # Every hook registered anywhere takes a RemovableHandle id: the
        # modules are looked at again only when one was, or when the hooks
        # found were all removed.
        if RemovableHandle.next_id != self.hook_id or (
                self.hooks is not None and not any(self.hook_dicts)):
            self.hook_id = RemovableHandle.next_id
            self.hooks, self.hook_dicts = _hooks(self.module)
        if self.hooks is not None:
            key = key + (self.hooks,)
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = self._new_entry(params, buffers,
                                                        args, kwargs)
            if self.attribute_writes != _ATTRIBUTE_WRITES:
                # The capture ran a forward that assigns attributes (a
                # shape kept, a count of calls): the graph serves the
                # values it left too, or each call would capture again.
                after = self.key(params, buffers, args, kwargs)
                if self.hooks is not None:
                    after = after + (self.hooks,)
                self.entries.setdefault(after, entry)
        pvals = [p for _, p in params]
        bvals = [b for _, b in buffers]
        while True:
            try:
                if entry.direct is not None and not kwargs:
                    forward, spec = entry.direct
                    out, updated = pytree.tree_unflatten(
                        forward(pvals + bvals + list(args)), spec)
                else:
                    out, updated = entry.fn(pvals, bvals, list(args), kwargs)
                break
            except _nested.NestedLayoutChanged as changed:
                # Raised where the encoder starts, before the graph's
                # results and buffer updates are written back: run the
                # graph made for the layout this call's padding mask gives.
                layout = (changed.site, changed.layout)
                if layout not in entry.variants:
                    entry.variants[layout] = self._new_entry(
                        params, buffers, args, kwargs)
                entry = entry.variants[layout]
        self.last = entry
        if entry.rebuild is not None:
            out = entry.rebuild(out)
        if entry.fallback is not None and not entry.warned:
            # After eager's own call: an input eager rejects raises eager's
            # error, without a word about bcast.
            entry.warned = True
            name = type(self.module).__name__ if self.module is not None \
                else getattr(self.target, "__name__", "the function")
            warnings.warn(f"bcast.torch.compile: {name} runs in eager "
                          f"PyTorch for these inputs: {entry.fallback}",
                          RuntimeWarning,
                          # The caller's line: through nn.Module.__call__
                          # and forward, or the compiled function.
                          stacklevel=4 if self.module is not None else 3)
        if updated:
            with torch.no_grad():
                for i, value in zip(sorted(entry.mutated), updated):
                    bvals[i].copy_(value)
        return out

    def _new_entry(self, params, buffers, args, kwargs):
        if self.entries:
            self.recompiles += 1
        if self.hooks is not None:
            # A captured graph would have run them once, at capture.
            return self._eager_entry(self.hooks)
        if torch.is_inference_mode_enabled():
            # Captured as under no_grad (the same guard key): make_fx and
            # the buffers' version counters take normal tensors, and
            # inference tensors made here would be neither.
            with torch.inference_mode(False), torch.no_grad():
                return self._capture(params, buffers, *pytree.tree_map(
                    lambda a: _copy_in_layout(a) if isinstance(
                        a, torch.Tensor) and a.is_inference() else a,
                    (args, kwargs)))
        return self._capture(params, buffers, args, kwargs)

    def _capture(self, params, buffers, args, kwargs):
        from functorch.compile import aot_function, make_boxed_func

        start = time.perf_counter()
        reports = []
        forwards = []
        training = torch.is_grad_enabled() and any(
            t.requires_grad for t in pytree.tree_flatten(
                ([p for _, p in params], args, kwargs))[0]
            if isinstance(t, torch.Tensor))

        def compiler(kind):
            def compile_fn(gm, example_inputs):
                name = kind if kind == "backward" or training else \
                    "inference"
                # Kernels use PyTorch's intra-op thread count unless told:
                # OpenMP teams beside PyTorch's threads oversubscribe the
                # cores (mobilenet_v3_small's kernels: 1.2 ms on one thread,
                # 49 ms on two beside PyTorch's one, on a loaded machine).
                threads = self.threads or torch.get_num_threads()
                # The parameters and buffers come first among the graph's
                # inputs (aot_function flattens `fn`'s arguments in order).
                state = len(params) + len(buffers) \
                    if name == "inference" else 0
                new, report = compile_graph(gm, name, self.dynamic,
                                            self.cache, self.verbose,
                                            threads, state, example_inputs)
                reports.append(report)
                boxed = make_boxed_func(new.forward if name != "backward"
                                        else _first_order(new.forward))
                forwards.append((name, boxed))
                return boxed
            return compile_fn

        if self.module is not None:
            names_p = [n for n, _ in params]
            names_b = [n for n, _ in buffers]
            pvals = [p for _, p in params]
            bvals = [b for _, b in buffers]
            mutated = _capture.mutated_buffers(self.module, pvals, bvals,
                                               args, kwargs, names_p, names_b)
            fn = _capture.functional_forward(self.module, names_p, names_b,
                                             mutated)
        else:
            mutated = set()
            target = self.target

            def fn(params, buffers, args, kwargs):
                return target(*args, **kwargs), []

        tensors_out, rebuild = _tensor_outputs(fn)
        aot = aot_function(tensors_out, fw_compiler=compiler("forward"),
                           bw_compiler=compiler("backward"),
                           decompositions=_capture.DECOMPOSITIONS)
        state = torch.get_rng_state()

        def run(params, buffers, args, kwargs):
            return aot(params, buffers, args, kwargs)

        entry = Entry(run, mutated, reports, 0.0)
        entry.rebuild = rebuild
        try:
            self._first_call(entry, aot, forwards, training, params,
                             buffers, args, kwargs)
        except Exception as error:  # noqa: BLE001 - every failure runs eager
            # Data-dependent control flow (detection models' `.item()` and
            # `if`), an op make_fx cannot trace, or an input eager rejects
            # (whose error eager's call then raises).
            entry = self._eager_entry(error)
        torch.set_rng_state(state)
        entry.capture_seconds = time.perf_counter() - start
        return entry

    def _eager_entry(self, why):
        """An entry calling the model or function as it is, for inputs
        whose capture failed (`why` the exception) or a model with hooks
        (`why` the sentence)."""
        # A module's forward: its own hooks ran in the compiled module's
        # __call__ already.
        target = self.module.forward if self.module is not None else \
            self.target

        def run(params, buffers, args, kwargs):
            return target(*args, **kwargs), []
        entry = Entry(run, set(), [], 0.0)
        if isinstance(why, str):
            entry.fallback = why
        else:
            message = str(why).strip().splitlines()
            entry.fallback = "it could not be captured (" + \
                type(why).__name__ + (f": {message[0]}" if message else "") \
                + ")"
        return entry

    def _first_call(self, entry, aot, forwards, training, params, buffers,
                    args, kwargs):
        """Captures and compiles through aot_function's first call, and the
        backward graph where the call is training."""
        # The first call captures: it runs under the capture's state, and
        # its RNG draws are undone before the real call (the caller's
        # dropout masks are the ones eager would draw).
        with _capture.capturing():
            pvals = [p for _, p in params]
            bvals = [_copy_in_layout(b) for _, b in buffers]
            # Clones: an argument written in place is written once, by the
            # real call.
            aot_in, aot_kwargs = pytree.tree_map(
                lambda a: _copy_in_layout(a).requires_grad_(a.requires_grad)
                if isinstance(a, torch.Tensor) else a, (list(args), kwargs))
            result = aot(pvals, bvals, aot_in, aot_kwargs)
            out = result[0]
            # aot_function's inference path flattens (params, buffers, args,
            # kwargs) on every call, a Python walk over every parameter, and
            # then calls the graph on the leaves: with tensor arguments only,
            # those are the three lists end to end.
            if [kind for kind, _ in forwards] == ["inference"] and \
                    not kwargs and all(isinstance(a, torch.Tensor)
                                       for a in args):
                entry.direct = (forwards[0][1],
                                pytree.tree_flatten(result)[1])
            if training:
                # Compile the backward graph now, against throwaway grads.
                leaves = [t for t in pytree.tree_flatten((pvals, aot_in))[0]
                          if isinstance(t, torch.Tensor) and t.requires_grad]
                outs = [o for o in pytree.tree_flatten(out)[0]
                        if isinstance(o, torch.Tensor) and o.requires_grad]
                if leaves and outs:
                    torch.autograd.grad(outs, leaves,
                                        [torch.ones_like(o) for o in outs],
                                        allow_unused=True)


def compile_module(module, dynamic, cache, verbose, threads=None):
    """A module of a subclass of `module`'s class sharing its state
    (parameters, buffers, submodules, training flag): state_dict(),
    train(), eval() and parameter updates are the original's, and calls go
    through bcast."""
    compiled = Compiled(module, module, dynamic, cache, verbose, threads)
    cls = type(module)

    def forward(self, *args, **kwargs):
        return compiled(*args, **kwargs)

    def __reduce__(self):
        # Copies and pickles are of the model, compiled again: the class is
        # made here (pickle cannot name it), and a deepcopy that kept
        # `compiled` would have run on the original's parameters.
        return (compile_module, (compiled.module, compiled.dynamic,
                                 compiled.cache, compiled.verbose,
                                 compiled.threads))

    sub = type(f"Bcast{cls.__name__}", (cls,), {
        "forward": forward,
        "__reduce__": __reduce__,
        "_bcast_compiled": property(lambda self: compiled),
    })
    new = cls.__new__(sub)
    new.__dict__ = module.__dict__
    compiled.module = module
    return new
