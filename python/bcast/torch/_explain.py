"""explain and profile: what bcast compiled of a model, and what it costs.

`coverage` is measured on the captured ATen graphs (after the
decompositions of _capture.py): of the nodes that are element-wise or
normalization work (arithmetic, comparisons, activations, casts, where,
reductions, softmax, the pieces of batch/layer/group norm and of their
backward ops; _lower.counts_in_coverage), the share that runs inside bcast
kernels. Views, data movement, convolutions and matrix products are not
counted either way. profile() times whole regions, so a region holding a
matrix product (bcast.matmul) counts its product in the region's time, and
says so.
"""

import time

import torch
import torch.fx
import torch.utils._pytree as pytree

from . import _lower, _runtime


def _compiled_of(model):
    compiled = getattr(model, "_bcast_compiled", None)
    if compiled is not None:
        return model, compiled
    from ._api import compile as compile_
    wrapped = compile_(model, verbose=False)
    return wrapped, wrapped._bcast_compiled


def _run(model, compiled, args, kwargs):
    """Calls the compiled model once (and its backward where outputs need
    grad) without changing its state: buffers and the RNG are restored."""
    module = compiled.module
    saved = [b.clone() for b in module.buffers()] if module is not None \
        else []
    rng = torch.get_rng_state()
    try:
        out = model(*args, **kwargs)
        outs = [o for o in pytree.tree_flatten(out)[0]
                if isinstance(o, torch.Tensor) and o.requires_grad]
        leaves = []
        if module is not None:
            leaves += [p for p in module.parameters() if p.requires_grad]
        leaves += [a for a in pytree.tree_flatten((args, kwargs))[0]
                   if isinstance(a, torch.Tensor) and a.requires_grad]
        if outs and leaves:
            torch.autograd.grad(outs, leaves,
                                [torch.ones_like(o) for o in outs],
                                allow_unused=True)
    finally:
        torch.set_rng_state(rng)
        if module is not None:
            with torch.no_grad():
                for b, s in zip(module.buffers(), saved):
                    b.copy_(s)
    return out


class Explanation:
    """The report of explain(): str() is text, to_dict() a dict."""

    def __init__(self, compiled, entry):
        self.graphs = entry.reports
        self.recompiles = compiled.recompiles
        self.capture_seconds = entry.capture_seconds
        self.fallback = entry.fallback
        module = compiled.module
        self.training = module.training if module is not None else None
        self.grad = any(r.kind == "backward" for r in self.graphs)

    def to_dict(self):
        nodes, regions = [], []
        counted = covered = 0
        kernels = set()
        for g in self.graphs:
            for name, op, counts, region, reason in g.nodes:
                nodes.append({"graph": g.kind, "name": name, "op": op,
                              "compiled": region is not None,
                              "region": region, "reason": reason,
                              "counted": counts})
                counted += counts
                covered += counts and region is not None
            for i, r in enumerate(g.regions):
                kernels.add(r.key)
                regions.append({"graph": g.kind, "index": i,
                                "nodes": list(r.nodes), "inputs": r.inputs,
                                "outputs": r.outputs,
                                "compile_seconds": r.compile_seconds,
                                "reused_kernel": r.reused})
        return {
            "mode": {"training": self.training, "backward": self.grad},
            "graphs": [g.kind for g in self.graphs],
            "nodes": nodes,
            "regions": regions,
            "num_regions": len(regions),
            "num_kernels": len(kernels),
            "recompiles": self.recompiles,
            "capture_seconds": self.capture_seconds,
            "compile_seconds": sum(r["compile_seconds"] for r in regions),
            "counted": counted,
            "covered": covered,
            # Nothing of a signature that runs in eager is in bcast.
            "coverage": 0.0 if self.fallback is not None else
            covered / counted if counted else 1.0,
            "fallback": self.fallback,
        }

    def __str__(self):
        d = self.to_dict()
        mode = "train" if d["mode"]["training"] else "eval"
        if d["mode"]["training"] is None:
            mode = "function"
        lines = [
            f"bcast.torch.explain ({mode}, graphs: "
            f"{', '.join(d['graphs']) or 'none'})",
            f"  coverage: {d['covered']}/{d['counted']} element-wise and "
            f"normalization nodes in bcast kernels "
            f"({100 * d['coverage']:.1f}%)",
            f"  regions: {d['num_regions']}, distinct kernels: "
            f"{d['num_kernels']}, recompiles: {d['recompiles']}",
            f"  capture and compile: {d['capture_seconds']:.2f} s (kernels "
            f"{d['compile_seconds']:.2f} s)",
        ]
        if d["fallback"] is not None:
            lines.append("  runs in eager PyTorch: " + d["fallback"])
        missed = {}
        for n in d["nodes"]:
            if n["counted"] and not n["compiled"]:
                key = (n["graph"], n["op"], n["reason"])
                missed[key] = missed.get(key, 0) + 1
        if missed:
            lines.append("  element-wise nodes left to PyTorch:")
            for (graph, op, reason), count in sorted(missed.items()):
                lines.append(f"    {graph}: {op} x{count}: {reason}")
        other = {}
        for n in d["nodes"]:
            if not n["counted"] and not n["compiled"]:
                other[n["op"]] = other.get(n["op"], 0) + 1
        if other:
            lines.append("  other nodes in PyTorch: " + ", ".join(
                f"{op} x{c}" for op, c in sorted(other.items())))
        lines.append("  regions:")
        for r in d["regions"]:
            lines.append(
                f"    {r['graph']}[{r['index']}]: {len(r['nodes'])} nodes, "
                f"{r['inputs']} in, {r['outputs']} out, "
                f"{1000 * r['compile_seconds']:.1f} ms"
                f"{' (kernel reused)' if r['reused_kernel'] else ''}: "
                f"{' '.join(r['nodes'][:6])}"
                f"{' ...' if len(r['nodes']) > 6 else ''}")
        return "\n".join(lines)

    __repr__ = __str__


def explain(model, args, kwargs):
    model, compiled = _compiled_of(model)
    _run(model, compiled, args, kwargs)
    return Explanation(compiled, compiled.last)


# --- profile ----------------------------------------------------------------

def _eager_region(report, index):
    """The region's ATen nodes as a GraphModule run by PyTorch."""
    region = report.region_nodes[index]
    inputs, outputs = report.region_io[index]
    graph = torch.fx.Graph()
    env = {}
    for i in inputs:
        env[i] = graph.placeholder(i.name)
    for node in region:
        env[node] = graph.node_copy(node, lambda n: env[n])
    graph.output(tuple(env[o] for o in outputs))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def _time(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


class Profile:
    """The report of profile(): str() is a table, to_dict() the numbers."""

    def __init__(self, rows):
        self.rows = rows

    def to_dict(self):
        kernel = sum(r["kernel_seconds"] for r in self.rows)
        overhead = sum(r["overhead_seconds"] for r in self.rows)
        eager = sum(r["eager_seconds"] for r in self.rows)
        return {"regions": self.rows,
                "kernel_seconds": kernel, "overhead_seconds": overhead,
                "eager_seconds": eager,
                "speedup": eager / (kernel + overhead)
                if kernel + overhead else None}

    def __str__(self):
        d = self.to_dict()
        lines = ["graph[region]  nodes  kernel us  overhead us  eager us  "
                 "eager/bcast"]
        for r in self.rows:
            total = r["kernel_seconds"] + r["overhead_seconds"]
            lines.append(
                f"{r['graph']}[{r['index']}]".ljust(14) +
                f"{r['nodes']:6d}  {1e6 * r['kernel_seconds']:9.1f}  "
                f"{1e6 * r['overhead_seconds']:11.1f}  "
                f"{1e6 * r['eager_seconds']:8.1f}  "
                f"{r['eager_seconds'] / total if total else 0:10.2f}x")
        # Regions holding matrix products time them too: the total is then
        # more than the element-wise share.
        products = sum(r["matmuls"] for r in self.rows)
        share = "element-wise share" if not products else \
            f"element-wise share and {products} matrix products"
        lines.append(
            f"{share}: bcast {1e6 * d['kernel_seconds']:.1f} us "
            f"kernels + {1e6 * d['overhead_seconds']:.1f} us overhead, "
            f"eager {1e6 * d['eager_seconds']:.1f} us "
            f"({d['speedup'] or 0:.2f}x)")
        return "\n".join(lines)

    __repr__ = __str__


def profile(model, args, kwargs, repeat):
    model, compiled = _compiled_of(model)
    _run(model, compiled, args, kwargs)  # compiles
    recorded = {}
    _runtime.RECORD = recorded
    try:
        _run(model, compiled, args, kwargs)
    finally:
        _runtime.RECORD = None
    rows = []
    for report in compiled.last.reports:
        for index, call in enumerate(report.calls):
            tensors = recorded.get(call)
            if tensors is None:
                continue
            plain = [t.detach() for t in tensors]
            kernel = call.kernel
            # The operands as the kernel takes them (in memory order for a
            # region computed so).
            physical = call.prepare(plain)
            outs = [torch.empty(tuple(o.shape), dtype=o.dtype)
                    for o in kernel(*physical)]
            eager = _eager_region(report, index)
            with torch.no_grad():
                t_kernel = _time(lambda: kernel(*physical, out=tuple(outs)),
                                 repeat)
                t_call = _time(lambda: call(*tensors), repeat)
                t_eager = _time(lambda: eager(*plain), repeat)
            rows.append({"graph": report.kind, "index": index,
                         "nodes": len(report.region_nodes[index]),
                         "matmuls": sum(n.target in _lower.MATMULS
                                        for n in report.region_nodes[index]),
                         "kernel_seconds": t_kernel,
                         "overhead_seconds": max(0.0, t_call - t_kernel),
                         "eager_seconds": t_eager})
    return Profile(rows)
