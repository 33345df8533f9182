"""The memory format of an inference graph's convolutions.

PyTorch's CPU convolutions (oneDNN) run faster on channels-last activations
than on contiguous ones, which they reorder to a blocked layout and back on
every call: resnet18 in `eval()` at batch 1 took 42 ms eager and 34.5 ms with
the model and its input converted by `.to(memory_format=channels_last)`
(one thread; docs/Torch.md has the figures). The weight must be
channels-last too, or PyTorch converts it on every call. A weight of a 1x1
or a depthwise convolution (`[O, I, 1, 1]`, `[O, 1, kh, kw]`) is both
contiguous and channels-last, so it costs nothing; any other weight is
converted here on every call (the graph cannot keep a converted copy of a
parameter: a write to the parameter through `.data` moves no version
counter), and that pays only where the convolution's work per weight
element, `N * Ho * Wo` multiply-adds, is large: at batch 1 resnet18's 3x3
convolutions gained 20 to 88 us each at `N*Ho*Wo = 784` against the copy,
and lost 45 to 1010 us at 196 and 49.

So: a float32 2-D convolution whose weight costs nothing takes its input's
layout as it comes (no conversion); one whose weight needs a copy runs
channels-last when `N * Ho * Wo >= CHANNELS_LAST_MIN_POSITIONS`, contiguous
otherwise; an input in the other layout is converted before it. Everything
else follows: PyTorch's element-wise ops and pooling keep their input's
layout, and bcast's regions of channels-last tensors are computed in memory
order (`_partition.physical_order`). Graph outputs keep eager's strides.

The layout of every value is found by running the graph once on the
example inputs, which also gives every node its new `tensor_meta`. A view
with explicit strides (`_reshape_alias`, `as_strided`) of a value whose
layout changed gets the value back in its traced layout first.

Whether the rewritten graph is used is measured, not modelled: in that run,
each node PyTorch runs (no bcast kernel takes it) whose operands changed
layout is timed as it now runs and on its operands in their traced
layouts, and the conversions are timed too; the new graph is used when it
saves REQUIRED_GAIN of that time.
"""

import copy
import os
import sys
import time

import torch
import torch.fx
from torch.fx.node import map_aggregate, map_arg
from torch.fx.passes.shape_prop import _extract_tensor_metadata

from . import _lower

aten = torch.ops.aten

CHANNELS_LAST_MIN_POSITIONS = 400
# The share of the time of PyTorch's nodes whose layout changes (its
# convolutions and pooling, timed on the example inputs in both layouts,
# conversions included) channels-last must save to be chosen: a region
# computed in memory order costs a few microseconds more per call (a
# permuted view per activation), and mobilenet_v3_small at batch 1, whose
# convolutions gain little, was 5% slower channels-last.
REQUIRED_GAIN = 0.05

_STRIDED_VIEWS = {aten._reshape_alias.default, aten.as_strided.default}


def _weight_free(weight):
    return weight.is_contiguous(memory_format=torch.channels_last)


def _positions(node):
    shape = node.meta["tensor_meta"].shape
    return shape[0] * shape[2] * shape[3]


def _eligible(node, env):
    if node.target is not aten.convolution.default:
        return False
    x, w = env[node.args[0]], env[node.args[1]]
    transposed = node.args[6]
    return not transposed and x.dim() == 4 and x.dtype == torch.float32 \
        and w.dtype == torch.float32 and x.device.type == "cpu"


def _channels_last(t):
    return t.dim() == 4 and t.is_contiguous(
        memory_format=torch.channels_last) and not t.is_contiguous()


def _strides(node):
    meta = node.meta.get("tensor_meta")
    return tuple(meta.stride) if hasattr(meta, "stride") else None


def _record(node, value):
    found = []

    def extract(obj):
        if isinstance(obj, torch.Tensor):
            found.append(obj)
            return _extract_tensor_metadata(obj)
        return obj
    meta = map_aggregate(value, extract)
    if found:
        node.meta["tensor_meta"] = meta


class _Run:
    """Runs a graph node by node on the example inputs, dropping each value
    after its last use."""

    def __init__(self, gm, example_inputs):
        self.gm, self.env, self.args = gm, {}, iter(example_inputs)
        last = {}
        for node in gm.graph.nodes:
            for source in node.all_input_nodes:
                last[source] = node
        self.dies = {}
        for source, user in last.items():
            self.dies.setdefault(user, []).append(source)

    def value(self, node):
        if node.op == "placeholder":
            return next(self.args)
        if node.op == "get_attr":
            value = self.gm
            for atom in node.target.split("."):
                value = getattr(value, atom)
            return value
        return node.target(*map_arg(node.args, self.env.__getitem__),
                           **map_arg(node.kwargs, self.env.__getitem__))

    def done(self, node):
        for source in self.dies.get(node, ()):
            self.env.pop(source, None)


def _plan(gm, example_inputs):
    """Per convolution that changes: (node's name, runs channels-last,
    weight converted)."""
    run, plan = _Run(gm, example_inputs), []
    for node in gm.graph.nodes:
        if node.op == "output":
            break
        env = run.env
        if _eligible(node, env):
            x, w = env[node.args[0]], env[node.args[1]]
            free = _weight_free(w)
            want = _channels_last(x) if free else \
                _positions(node) >= CHANNELS_LAST_MIN_POSITIONS
            if want or _channels_last(x):
                plan.append((node.name, want, want and not free))
                fmt = torch.channels_last if want else \
                    torch.contiguous_format
                args = list(map_arg(node.args, env.__getitem__))
                args[0] = args[0].contiguous(memory_format=fmt)
                args[1] = args[1].contiguous(memory_format=fmt)
                env[node] = node.target(*args)
                run.done(node)
                continue
        env[node] = run.value(node)
        run.done(node)
    return plan


def channels_last_convolutions(gm, example_inputs):
    """The graph module to compile instead of `gm` (an inference graph that
    mutates nothing): a copy whose convolutions run channels-last where
    that pays (see the module's docstring), every node with the
    `tensor_meta` of its new layout; `gm` itself when nothing changes or a
    node fails to run."""
    if not any(n.op == "call_function" and n.target is
               aten.convolution.default for n in gm.graph.nodes):
        return gm
    try:
        with torch.no_grad():
            plan = _plan(gm, example_inputs)
            if not any(want for _, want, _ in plan):
                return gm
            new = copy.deepcopy(gm)
            nodes = {n.name: n for n in new.graph.nodes}
            for name, want, convert_weight in plan:
                node = nodes[name]
                _insert_clone(new.graph, node, 0, torch.channels_last
                              if want else torch.contiguous_format)
                if convert_weight:
                    _insert_clone(new.graph, node, 1, torch.channels_last)
            before, after = _propagate(new, example_inputs)
    except Exception:  # noqa: BLE001 - the graph stays as traced
        return gm
    chosen = after < (1 - REQUIRED_GAIN) * before
    if os.environ.get("BCAST_TORCH_DEBUG"):
        print(f"channels-last: the nodes it changes take "
              f"{1e3 * before:.2f} ms as traced, {1e3 * after:.2f} ms "
              f"channels-last: "
              f"{'channels-last' if chosen else 'contiguous'}",
              file=sys.stderr)
    return new if chosen else gm


def _insert_clone(graph, node, index, memory_format):
    with graph.inserting_before(node):
        new = graph.call_function(aten.clone.default, (node.args[index],),
                                  {"memory_format": memory_format})
    new.meta["bcast_layout_conversion"] = True
    args = list(node.args)
    args[index] = new
    node.args = tuple(args)


def _best(fn, repeat=3):
    """The least time of `repeat` calls of `fn` after a first."""
    fn()
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def _propagate(gm, example_inputs):
    """Runs the rewritten graph on the example inputs: drops the clones
    that copy a value already in their format, gives views with explicit
    strides their traced input layout back, restores eager's strides on
    the outputs, and records every node's new tensor_meta. Returns the
    seconds PyTorch's nodes whose layout changed (convolutions, pooling:
    what no bcast kernel takes) take in the traced layout and in the new
    one, conversions included: nodes whose layout did not change cost the
    same in both."""
    graph = gm.graph
    traced = {n: _strides(n) for n in graph.nodes}
    run = _Run(gm, example_inputs)
    env = run.env
    before = after = 0.0
    for node in list(graph.nodes):
        if node.op == "call_function":
            if node.target is aten.clone.default and \
                    "memory_format" in node.kwargs and \
                    env[node.args[0]].is_contiguous(
                        memory_format=node.kwargs["memory_format"]):
                node.replace_all_uses_with(node.args[0])
                graph.erase_node(node)
                continue
            if node.target in _STRIDED_VIEWS:
                source = node.args[0]
                if traced.get(source) is not None and \
                        tuple(env[source].stride()) != traced[source]:
                    restored, seconds = _restore(graph, env, node, source,
                                                 traced[source])
                    after += seconds
                    node.replace_input_with(source, restored)
        elif node.op == "output":
            def restore(n):
                value = env.get(n)
                if not isinstance(value, torch.Tensor) or \
                        traced.get(n) is None or \
                        tuple(value.stride()) == traced[n]:
                    return n
                nonlocal after
                restored, seconds = _restore(graph, env, node, n, traced[n])
                after += seconds
                return restored
            node.args = map_arg(node.args, restore)
            break
        env[node] = run.value(node)
        _record(node, env[node])
        if node.meta.get("bcast_layout_conversion"):
            after += _best(lambda: run.value(node))
        elif node.op == "call_function" and \
                node.target not in _lower.LOWERINGS:
            old = _traced_arguments(node, env, traced)
            if old is not None:
                after += _best(lambda: run.value(node))
                before += _best(lambda: node.target(*old[0], **old[1]))
        run.done(node)
    graph.lint()
    gm.recompile()
    return before, after


def _traced_arguments(node, env, traced):
    """`node`'s arguments in their traced layouts (args, kwargs), or None
    when every tensor argument has its traced layout. An argument made by
    a conversion inserted before `node` has its source's traced layout."""
    changed = False

    def old(arg):
        nonlocal changed
        source = arg
        while source.meta.get("bcast_layout_conversion"):
            source = source.args[0]
        value = env[arg]
        strides = traced.get(source)
        if not isinstance(value, torch.Tensor) or strides is None or \
                tuple(value.stride()) == strides:
            return value
        changed = True
        return torch.empty_strided(tuple(value.shape), strides,
                                   dtype=value.dtype,
                                   device=value.device).copy_(value)
    args = map_arg(node.args, old)
    kwargs = map_arg(node.kwargs, old)
    return (args, kwargs) if changed else None


def _restore(graph, env, node, value, strides):
    """A node before `node` giving `value` with the traced `strides` (a
    contiguous or channels-last clone, else a copy into empty_strided), and
    the seconds that takes."""
    source = env[value]
    with graph.inserting_before(node):
        for fmt in (torch.contiguous_format, torch.channels_last):
            if source.dim() != 4 and fmt is torch.channels_last:
                continue
            # A meta tensor: the format's strides, no memory.
            like = torch.empty(tuple(source.shape), device="meta",
                               memory_format=fmt)
            if tuple(like.stride()) == tuple(strides):
                new = graph.call_function(aten.clone.default, (value,),
                                          {"memory_format": fmt})
                env[new] = source.clone(memory_format=fmt)
                seconds = _best(lambda: source.clone(
                    memory_format=fmt))  # noqa: B023 - called here
                break
        else:
            empty = graph.call_function(
                aten.empty_strided.default,
                (list(source.shape), list(strides)),
                {"dtype": source.dtype, "device": source.device})
            new = graph.call_function(aten.copy_.default, (empty, value))
            env[empty] = torch.empty_strided(tuple(source.shape), strides,
                                             dtype=source.dtype,
                                             device=source.device)
            env[new] = env[empty].copy_(source)
            seconds = _best(lambda: env[empty].copy_(source))
            _record(empty, env[empty])
    _record(new, env[new])
    return new, seconds
