#!/usr/bin/python3
"""bcast against compilers that fuse the same expressions (issue 31).

Run through bench.py (`benchmarks/bench.py --peers`), which runs this file
once per thread count in a fresh process (the thread pools of Halide, Numba,
PyTorch and numexpr are sized when they start) and then prints the table
and writes the plot:

    /usr/bin/python3 benchmarks/bench.py --peers

Seven workloads at 16, 1K, 16K, 256K, 4M and 16M f32 elements, each written
as its users write it, in every implementation:

  - bcast: @bcast.jit, on the out= array (or in place), scalars as Python
    floats (run-time scalar arguments);
  - Halide 14: an expert schedule (vectorized by the target's natural f32
    width, parallel over blocks of rows above 32K elements, row statistics
    computed per row with their reductions vectorized through rfactor), and
    each autoscheduler that loads (Adams2019, Li2018, Mullapudi2016, given
    the size as estimates and the threads as parallelism), the fastest of
    them reported;
  - Numba 0.56: @njit(parallel=True) with prange over rows (blocks for the
    1-D Adam step) and the same serially, each row's work in a helper,
    error_model='numpy', scalars as float32; the faster of the two;
  - NumPy (out= forms), PyTorch (out= forms, native kernels where there is
    one: softmax, layer_norm, gelu) and numexpr (where it expresses the
    workload).

Each implementation's result is checked against a float64 NumPy reference
before it is timed (a wrong result is an error, not a row), and all are then
timed interleaved in one process (bench.time_interleaved).
"""

import argparse
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [16, 1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24]
WORKLOADS = ["row", "chain", "gelu", "softmax", "layernorm", "rmsnorm",
             "adam"]
TITLES = {
    "row": "row [R,C]+[C]",
    "chain": "chain (a+b)*c-d",
    "gelu": "bias + GELU (erf)",
    "softmax": "softmax, last dim",
    "layernorm": "LayerNorm w, b",
    "rmsnorm": "RMSNorm w",
    "adam": "Adam step, in place",
}
EPS = 1e-5
# The Adam step's hyper-parameters (Python floats, as a training loop has
# them; bc is sqrt(1 - b2**t), eps PyTorch's default).
LR, B1, B2, ADAM_EPS = 1e-3, 0.9, 0.999, 1e-8
BC = math.sqrt(1 - B2 ** 10)
# Results with at least this many elements run on all threads in the
# Halide expert schedule (bcast's own default grain size).
PARALLEL_ELEMENTS = 32768
HALIDE_PLUGINS = "/usr/lib/x86_64-linux-gnu/halide14"
AUTOSCHEDULERS = ["Adams2019", "Li2018", "Mullapudi2016"]


def shape_of(n):
    """[rows, cols]: one row up to 1,024 elements (bench.py's sizes)."""
    cols = min(n, 1024)
    return n // cols, cols


#===------------------------------------------------------------------------===#
# Inputs and float64 references
#===------------------------------------------------------------------------===#


def make_inputs(np, kind, n):
    rng = np.random.default_rng(n)
    rows, cols = shape_of(n)
    f32 = np.float32
    if kind == "adam":
        return {"p": rng.standard_normal(n, f32),
                "m": rng.standard_normal(n, f32) * f32(0.1),
                "v": rng.random(n, f32) * f32(0.01),
                "g": rng.standard_normal(n, f32)}
    x = rng.standard_normal((rows, cols), f32)
    if kind == "row":
        return {"a": x, "b": rng.standard_normal(cols, f32)}
    if kind == "chain":
        return {"a": x, "b": rng.standard_normal(cols, f32),
                "c": rng.standard_normal((rows, 1), f32)}
    if kind == "gelu":
        return {"x": x, "b": rng.standard_normal(cols, f32)}
    if kind == "softmax":
        return {"x": x * f32(4)}
    if kind == "layernorm":
        return {"x": x, "w": rng.standard_normal(cols, f32),
                "b": rng.standard_normal(cols, f32)}
    return {"x": x, "w": rng.standard_normal(cols, f32)}


def reference(np, kind, arrays):
    """The float64 result (for adam: p, m, v after one step)."""
    d = {k: v.astype(np.float64) for k, v in arrays.items()}
    if kind == "row":
        return d["a"] + d["b"]
    if kind == "chain":
        return (d["a"] + d["b"]) * d["c"] - 0.5
    if kind == "gelu":
        return gelu64(np, d["x"] + d["b"])
    if kind == "softmax":
        e = np.exp(d["x"] - d["x"].max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    if kind == "layernorm":
        x = d["x"]
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + EPS) * d["w"] + d["b"]
    if kind == "rmsnorm":
        x = d["x"]
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + EPS) * d["w"]
    m = B1 * d["m"] + (1 - B1) * d["g"]
    v = B2 * d["v"] + (1 - B2) * d["g"] * d["g"]
    p = d["p"] - LR * m / (np.sqrt(v) / BC + ADAM_EPS)
    return p, m, v


#===------------------------------------------------------------------------===#
# bcast, NumPy, PyTorch, numexpr
#===------------------------------------------------------------------------===#


def bcast_form(bcast, np, kind, arrays, out, threads):
    jit = lambda fn: bcast.jit(fn, threads=threads)  # noqa: E731
    if kind == "row":
        f = jit(lambda a, b: a + b)
        return lambda: f(arrays["a"], arrays["b"], out=out)
    if kind == "chain":
        f = jit(lambda a, b, c, d: (a + b) * c - d)
        return lambda: f(arrays["a"], arrays["b"], arrays["c"], 0.5, out=out)
    if kind == "gelu":
        f = jit(lambda x, b: bcast.gelu(x + b))
        return lambda: f(arrays["x"], arrays["b"], out=out)
    if kind == "softmax":
        def softmax(t):
            e = np.exp(t - t.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        f = jit(softmax)
        return lambda: f(arrays["x"], out=out)
    if kind == "layernorm":
        def layer_norm(t, weight, bias):
            mu = t.mean(axis=-1, keepdims=True)
            centred = t - mu
            var = (centred * centred).mean(axis=-1, keepdims=True)
            return centred * bcast.rsqrt(var + EPS) * weight + bias
        f = jit(layer_norm)
        return lambda: f(arrays["x"], arrays["w"], arrays["b"], out=out)
    if kind == "rmsnorm":
        def rms_norm(t, weight):
            return t * bcast.rsqrt((t * t).mean(axis=-1, keepdims=True) +
                                   EPS) * weight
        f = jit(rms_norm)
        return lambda: f(arrays["x"], arrays["w"], out=out)

    def adam(p, m, v, g, lr, b1, b2, bc, eps):
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        p -= lr * m / (np.sqrt(v) / bc + eps)
    f = jit(adam)
    a = arrays
    return lambda: f(a["p"], a["m"], a["v"], a["g"], LR, B1, B2, BC, ADAM_EPS)


def numpy_form(np, kind, arrays, out):
    a = arrays
    if kind == "row":
        return lambda: np.add(a["a"], a["b"], out=out)
    if kind == "chain":
        def chain():
            np.add(a["a"], a["b"], out=out)
            np.multiply(out, a["c"], out=out)
            np.subtract(out, np.float32(0.5), out=out)
        return chain
    if kind == "adam":
        p, m, v, g = a["p"], a["m"], a["v"], a["g"]
        tmp = np.empty_like(p)
        f32 = np.float32

        def adam():
            np.multiply(m, f32(B1), out=m)
            np.multiply(g, f32(1 - B1), out=tmp)
            np.add(m, tmp, out=m)
            np.multiply(v, f32(B2), out=v)
            np.multiply(g, g, out=tmp)
            np.multiply(tmp, f32(1 - B2), out=tmp)
            np.add(v, tmp, out=v)
            np.sqrt(v, out=tmp)
            np.multiply(tmp, f32(1 / BC), out=tmp)
            np.add(tmp, f32(ADAM_EPS), out=tmp)
            np.divide(m, tmp, out=tmp)
            np.multiply(tmp, f32(LR), out=tmp)
            np.subtract(p, tmp, out=p)
        return adam
    return None  # No erf in NumPy; the reductions allocate temporaries.


def torch_form(torch, kind, arrays, out):
    t = {k: torch.from_numpy(v) for k, v in arrays.items()}
    tout = torch.from_numpy(out) if out is not None else None
    F = torch.nn.functional
    if kind == "row":
        return lambda: torch.add(t["a"], t["b"], out=tout)
    if kind == "chain":
        def chain():
            torch.add(t["a"], t["b"], out=tout)
            torch.mul(tout, t["c"], out=tout)
            torch.sub(tout, 0.5, out=tout)
        return chain
    if kind == "gelu":
        return lambda: F.gelu(t["x"] + t["b"])
    if kind == "softmax":
        return lambda: torch.softmax(t["x"], -1)
    if kind == "layernorm":
        n = arrays["x"].shape[-1]
        return lambda: F.layer_norm(t["x"], (n,), t["w"], t["b"], EPS)
    if kind == "rmsnorm":
        # PyTorch 1.13 has no native RMSNorm: its eager expression.
        return lambda: t["x"] * torch.rsqrt(
            (t["x"] * t["x"]).mean(-1, keepdim=True) + EPS) * t["w"]
    p, m, v, g = t["p"], t["m"], t["v"], t["g"]

    def adam():
        # torch.optim.Adam's single-tensor step, written out.
        m.mul_(B1).add_(g, alpha=1 - B1)
        v.mul_(B2).addcmul_(g, g, value=1 - B2)
        p.addcdiv_(m, v.sqrt().div_(BC).add_(ADAM_EPS), value=-LR)
    return adam


def numexpr_form(numexpr, np, kind, arrays, out):
    a = dict(arrays)
    if kind == "row":
        return lambda: numexpr.evaluate("a + b", local_dict=a, out=out)
    if kind == "chain":
        a["d"] = np.float32(0.5)
        return lambda: numexpr.evaluate("(a + b) * c - d", local_dict=a,
                                        out=out)
    if kind == "adam":
        a.update(b1=np.float32(B1), b2=np.float32(B2), lr=np.float32(LR),
                 bc=np.float32(BC), eps=np.float32(ADAM_EPS))

        def adam():
            numexpr.evaluate("b1 * m + (1 - b1) * g", local_dict=a,
                             out=a["m"])
            numexpr.evaluate("b2 * v + (1 - b2) * g * g", local_dict=a,
                             out=a["v"])
            numexpr.evaluate("p - lr * m / (sqrt(v) / bc + eps)",
                             local_dict=a, out=a["p"])
        return adam
    return None  # No erf, no row reductions.


#===------------------------------------------------------------------------===#
# Numba
#===------------------------------------------------------------------------===#


def numba_kernels(numba, np):
    """{(kind, parallel): jitted function} over arrays and float32 scalars."""
    njit = numba.njit
    row = njit(error_model="numpy")  # the per-row helpers
    f32 = np.float32

    @row
    def add_row(a, b, out):
        for j in range(a.shape[0]):
            out[j] = a[j] + b[j]

    @row
    def chain_row(a, b, c, d, out):
        for j in range(a.shape[0]):
            out[j] = (a[j] + b[j]) * c - d

    @row
    def gelu_row(x, b, out):
        for j in range(x.shape[0]):
            y = x[j] + b[j]
            out[j] = f32(0.5) * y * (f32(1) + math.erf(y * f32(0.70710677)))

    @row
    def softmax_row(x, out):
        m = x[0]
        for j in range(x.shape[0]):
            m = max(m, x[j])
        s = f32(0)
        for j in range(x.shape[0]):
            e = math.exp(x[j] - m)
            out[j] = e
            s += e
        for j in range(x.shape[0]):
            out[j] = out[j] / s

    @row
    def layernorm_row(x, w, b, out):
        n = x.shape[0]
        s = f32(0)
        for j in range(n):
            s += x[j]
        mu = s / f32(n)
        q = f32(0)
        for j in range(n):
            q += (x[j] - mu) * (x[j] - mu)
        r = f32(1) / math.sqrt(q / f32(n) + f32(EPS))
        for j in range(n):
            out[j] = (x[j] - mu) * r * w[j] + b[j]

    @row
    def rmsnorm_row(x, w, out):
        n = x.shape[0]
        q = f32(0)
        for j in range(n):
            q += x[j] * x[j]
        r = f32(1) / math.sqrt(q / f32(n) + f32(EPS))
        for j in range(n):
            out[j] = x[j] * r * w[j]

    @row
    def adam_block(p, m, v, g, lr, b1, b2, bc, eps):
        for j in range(p.shape[0]):
            mj = b1 * m[j] + (f32(1) - b1) * g[j]
            vj = b2 * v[j] + (f32(1) - b2) * g[j] * g[j]
            m[j] = mj
            v[j] = vj
            p[j] = p[j] - lr * mj / (math.sqrt(vj) / bc + eps)

    kernels = {}
    for parallel in (False, True):
        loop = numba.prange if parallel else range
        jit = njit(parallel=parallel, error_model="numpy")

        def add(a, b, out):
            for i in loop(a.shape[0]):
                add_row(a[i], b, out[i])

        def chain(a, b, c, d, out):
            for i in loop(a.shape[0]):
                chain_row(a[i], b, c[i, 0], d, out[i])

        def gelu(x, b, out):
            for i in loop(x.shape[0]):
                gelu_row(x[i], b, out[i])

        def softmax(x, out):
            for i in loop(x.shape[0]):
                softmax_row(x[i], out[i])

        def layernorm(x, w, b, out):
            for i in loop(x.shape[0]):
                layernorm_row(x[i], w, b, out[i])

        def rmsnorm(x, w, out):
            for i in loop(x.shape[0]):
                rmsnorm_row(x[i], w, out[i])

        def adam(p, m, v, g, lr, b1, b2, bc, eps):
            n = p.shape[0]
            block = 16384
            for k in loop((n + block - 1) // block):
                lo = k * block
                hi = min(n, lo + block)
                adam_block(p[lo:hi], m[lo:hi], v[lo:hi], g[lo:hi], lr, b1,
                           b2, bc, eps)

        for kind, fn in (("row", add), ("chain", chain), ("gelu", gelu),
                         ("softmax", softmax), ("layernorm", layernorm),
                         ("rmsnorm", rmsnorm), ("adam", adam)):
            kernels[kind, parallel] = jit(fn)
    return kernels


def numba_form(kernels, np, kind, arrays, out, parallel):
    f = kernels[kind, parallel]
    a = arrays
    f32 = np.float32
    if kind == "row":
        return lambda: f(a["a"], a["b"], out)
    if kind == "chain":
        return lambda: f(a["a"], a["b"], a["c"], f32(0.5), out)
    if kind == "gelu":
        return lambda: f(a["x"], a["b"], out)
    if kind == "softmax":
        return lambda: f(a["x"], out)
    if kind == "layernorm":
        return lambda: f(a["x"], a["w"], a["b"], out)
    if kind == "rmsnorm":
        return lambda: f(a["x"], a["w"], out)
    args = (a["p"], a["m"], a["v"], a["g"], f32(LR), f32(B1), f32(B2),
            f32(BC), f32(ADAM_EPS))
    return lambda: f(*args)


#===------------------------------------------------------------------------===#
# Halide
#===------------------------------------------------------------------------===#


def halide_buffer(hl, array):
    """A Halide buffer over the array's memory, dimension 0 innermost."""
    return hl.Buffer(array.T)


class HalidePipeline:
    """One workload's Halide algorithm over fresh Funcs (a schedule, expert
    or automatic, is applied to a pipeline once)."""

    def __init__(self, hl, kind, arrays, out, scalar_buffer=False):
        """scalar_buffer: the scalars (Adam's hyper-parameters, the chain's
        d) are read from a 1-D buffer instead of Params: Adams2019 needs an
        estimate of every Param, and Halide 14's Python binding rejects
        every value given to a float Param's set_estimate ("cannot be
        losslessly converted to type float32")."""
        self.hl = hl
        self.kind = kind
        f32 = hl.Float(32)
        x, y = hl.Var("x"), hl.Var("y")
        self.x, self.y = x, y
        self.params = {}
        self.stats = []  # row statistics: (Func, reduction RDom)
        # The column c of [R,1] is a 1-D buffer over y (its stride is 1, as
        # Halide requires of dimension 0 by default).
        self.buffers = {k: halide_buffer(hl, v[:, 0] if k == "c" else v)
                        for k, v in arrays.items()}
        if kind == "adam":
            n = arrays["p"].shape[0]
            im = {k: hl.ImageParam(f32, 1, k) for k in "pmvg"}
            s = self.scalar_values(["lr", "b1", "b2", "bc", "eps"],
                                   [LR, B1, B2, BC, ADAM_EPS], scalar_buffer)
            m = s["b1"] * im["m"][x] + (1 - s["b1"]) * im["g"][x]
            v = (s["b2"] * im["v"][x] +
                 (1 - s["b2"]) * im["g"][x] * im["g"][x])
            p = im["p"][x] - s["lr"] * m / (hl.sqrt(v) / s["bc"] + s["eps"])
            f = hl.Func("adam")
            f[x] = hl.Tuple([p, m, v])
            self.images = im
            self.outputs = [self.buffers[k] for k in "pmv"]
            self.extents = [n]
        else:
            rows, cols = arrays["x" if "x" in arrays else "a"].shape
            im = {}
            for k, arr in arrays.items():
                im[k] = hl.ImageParam(f32, self.buffers[k].dimensions(), k)
            f = hl.Func(kind)
            r = hl.RDom([(0, cols)])
            if kind == "row":
                f[x, y] = im["a"][x, y] + im["b"][x]
            elif kind == "chain":
                d = self.scalar_values(["d"], [0.5], scalar_buffer)["d"]
                f[x, y] = (im["a"][x, y] + im["b"][x]) * im["c"][y] - d
            elif kind == "gelu":
                t = im["x"][x, y] + im["b"][x]
                f[x, y] = 0.5 * t * (1 + hl.erf(t * hl.f32(0.70710677)))
            elif kind == "softmax":
                mx = hl.Func("mx")
                mx[y] = f32.min()
                mx[y] = hl.max(mx[y], im["x"][r.x, y])
                e = hl.Func("e")
                e[x, y] = hl.exp(im["x"][x, y] - mx[y])
                s = hl.Func("s")
                s[y] = hl.f32(0)
                s[y] = s[y] + e[r.x, y]
                f[x, y] = e[x, y] / s[y]
                self.stats = [(mx, r), (s, r)]
                self.pointwise = [e]
            elif kind == "layernorm":
                s = hl.Func("s")
                s[y] = hl.f32(0)
                s[y] = s[y] + im["x"][r.x, y]
                mu = hl.Func("mu")
                mu[y] = s[y] / cols
                q = hl.Func("q")
                q[y] = hl.f32(0)
                dev = im["x"][r.x, y] - mu[y]
                q[y] = q[y] + dev * dev
                rs = hl.Func("rs")
                rs[y] = 1 / hl.sqrt(q[y] / cols + hl.f32(EPS))
                f[x, y] = ((im["x"][x, y] - mu[y]) * rs[y] * im["w"][x] +
                           im["b"][x])
                self.stats = [(s, r), (q, r)]
                self.row_values = [mu, rs]
            else:
                q = hl.Func("q")
                q[y] = hl.f32(0)
                q[y] = q[y] + im["x"][r.x, y] * im["x"][r.x, y]
                rs = hl.Func("rs")
                rs[y] = 1 / hl.sqrt(q[y] / cols + hl.f32(EPS))
                f[x, y] = im["x"][x, y] * rs[y] * im["w"][x]
                self.stats = [(q, r)]
                self.row_values = [rs]
            self.images = im
            self.images.update(getattr(self, "scalar_image", {}))
            self.outputs = [halide_buffer(hl, out)]
            self.extents = [cols, rows]
        if kind == "adam":
            self.images.update(getattr(self, "scalar_image", {}))
        for k, image in self.images.items():
            image.set(self.buffers[k])
        self.func = f

    def scalar_values(self, names, values, scalar_buffer):
        """{name: Expr}: Params, or the elements of one 1-D buffer."""
        hl = self.hl
        if not scalar_buffer:
            params = {}
            for name, value in zip(names, values):
                params[name] = hl.Param(hl.Float(32), name)
                params[name].set(value)
            return params
        import numpy as np
        image = hl.ImageParam(hl.Float(32), 1, "scalars")
        self.scalar_array = np.array(values, np.float32)
        self.buffers["scalars"] = halide_buffer(hl, self.scalar_array)
        self.scalar_image = {"scalars": image}
        return {name: image[i] for i, name in enumerate(names)}

    def expert(self, target, threads):
        """The schedule a Halide programmer writes for this workload."""
        hl = self.hl
        f, x, y = self.func, self.x, self.y
        width = target.natural_vector_size(hl.Float(32))
        elements = 1
        for e in self.extents:
            elements *= e
        parallel = threads > 1 and elements >= PARALLEL_ELEMENTS
        if self.kind == "adam":
            xo, xi = hl.Var("xo"), hl.Var("xi")
            if parallel:
                f.split(x, xo, xi, max(width, elements // (threads * 8)))
                f.parallel(xo)
                f.vectorize(xi, width)
            else:
                f.vectorize(x, width)
            return
        cols, rows = self.extents
        f.vectorize(x, width)
        yo, yi = hl.Var("yo"), hl.Var("yi")
        if parallel:
            f.split(y, yo, yi, max(1, rows // (threads * 8)))
            f.parallel(yo)
            at = yi
        else:
            at = y
        for stat, r in self.stats:
            # The row's statistic with its reduction vectorized: partial
            # results per lane (rfactor), combined once per row.
            stat.compute_at(f, at)
            ro, ri = hl.RVar("ro"), hl.RVar("ri")
            u = hl.Var("u")
            stat.update().split(r.x, ro, ri, width)
            partial = stat.update().rfactor([(ri, u)])
            partial.compute_at(stat, y).vectorize(u)
            partial.update().vectorize(u)
        for g in getattr(self, "pointwise", []):
            g.compute_at(f, at).vectorize(x, width)

    def estimates(self):
        for k, image in self.images.items():
            arr_buf = self.buffers[k]
            for d in range(arr_buf.dimensions()):
                image.dim(d).set_estimate(0, arr_buf.dim(d).extent())
        if self.kind == "adam":
            self.func.set_estimate(self.x, 0, self.extents[0])
        else:
            self.func.set_estimate(self.x, 0, self.extents[0])
            self.func.set_estimate(self.y, 0, self.extents[1])

    def compile(self, target):
        self.pipeline = hl_pipeline = self.hl.Pipeline(self.func)
        hl_pipeline.compile_jit(target)
        outputs = self.outputs
        if len(outputs) == 1:
            out = outputs[0]
            return lambda keep=self: hl_pipeline.realize(out)
        return lambda keep=self: hl_pipeline.realize(outputs)


def quiet_stderr(fn):
    """Runs fn with file descriptor 2 sent to /dev/null (the
    autoschedulers print their search)."""
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        return fn()
    finally:
        os.dup2(saved, 2)
        os.close(null)
        os.close(saved)


def halide_forms(hl, target, threads, kind, arrays, out, loaded):
    """(label, call) for the expert schedule and each autoscheduler that
    schedules and compiles this workload; errors as (label, None, text)."""
    forms = []
    pipe = HalidePipeline(hl, kind, arrays, out)
    try:
        pipe.expert(target, threads)
        forms.append(("Halide expert", pipe.compile(target), None))
    except Exception as e:  # noqa: BLE001 - reported in the output
        forms.append(("Halide expert", None, str(e).splitlines()[0]))
    for name in loaded:
        pipe = HalidePipeline(hl, kind, arrays, out, scalar_buffer=True)
        pipe.estimates()
        try:
            p = hl.Pipeline(pipe.func)
            quiet_stderr(lambda: p.auto_schedule(
                name, target, hl.MachineParams(threads, 32 << 20, 40)))
            p.compile_jit(target)
            outs = pipe.outputs
            # The call keeps `pipe` alive: Halide's buffers do not keep the
            # NumPy arrays they view (the scalars' is pipe's own).
            call = ((lambda p=p, o=outs[0], keep=pipe: p.realize(o))
                    if len(outs) == 1 else
                    (lambda p=p, o=outs, keep=pipe: p.realize(o)))
            forms.append((f"Halide {name}", call, None))
        except Exception as e:  # noqa: BLE001
            forms.append((f"Halide {name}", None,
                          (str(e).splitlines() or [""])[0][:80]))
    return forms


def load_autoschedulers(hl):
    loaded = []
    for name in AUTOSCHEDULERS:
        try:
            hl.load_plugin(os.path.join(
                HALIDE_PLUGINS, f"libautoschedule_{name.lower()}.so"))
            loaded.append(name)
        except Exception as e:  # noqa: BLE001
            print(f"peers: Halide autoscheduler {name} did not load: {e}",
                  file=sys.stderr)
    return loaded


#===------------------------------------------------------------------------===#
# One process per thread count
#===------------------------------------------------------------------------===#


def run_child(threads, sizes, kinds, rounds, build):
    """Times every implementation of every (workload, size) on `threads`
    threads; returns {kind: {n: {label: median seconds}}} and the notes."""
    for var in ("OMP_NUM_THREADS", "HL_NUM_THREADS", "NUMBA_NUM_THREADS",
                "NUMEXPR_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    sys.path.insert(0, HERE)
    import bench  # noqa: E402 - after the thread counts are set
    import numpy as np
    bench.BUILD = build
    bench.load_bcast_package()
    bcast = bench.bcast
    if bcast is None:
        sys.exit("peers: needs the bcast Python package (build it first)")
    torch = bench.torch
    if torch is not None:
        torch.set_num_threads(threads)
    numexpr = bench.numexpr
    if numexpr is not None:
        numexpr.set_num_threads(threads)
    try:
        import numba
        numba.set_num_threads(threads)
        kernels = numba_kernels(numba, np)
    except ImportError:
        numba = kernels = None
    try:
        import halide as hl
        target = hl.get_jit_target_from_environment()
        loaded = load_autoschedulers(hl)
    except ImportError:
        hl = None
    results, notes = {}, []
    # {kind: {label: the largest error in f32 ULPs over the sizes}}, for
    # GELU, where the allclose check below admits results far less accurate
    # than bcast's (1 + erf cancels below -1). The other workloads' results
    # near 0 come from cancellation, where ULPs measure nothing useful.
    accuracy = {}
    for kind in kinds:
        for n in sizes:
            arrays = make_inputs(np, kind, n)
            out = (None if kind == "adam" else
                   np.empty_like(arrays["x" if "x" in arrays else "a"]))
            forms = [("bcast", bcast_form(bcast, np, kind, arrays, out,
                                          threads), None)]
            for label, maker in (
                    ("NumPy", lambda: numpy_form(np, kind, arrays, out)),
                    ("PyTorch", lambda: torch is not None and
                     torch_form(torch, kind, arrays, out)),
                    ("numexpr", lambda: numexpr is not None and
                     numexpr_form(numexpr, np, kind, arrays, out))):
                call = maker()
                if call:
                    forms.append((label, call, None))
            if kernels is not None:
                for parallel in ((False, True) if threads > 1 else (False,)):
                    forms.append((f"Numba {'parallel' if parallel else 'serial'}",
                                  numba_form(kernels, np, kind, arrays, out,
                                             parallel), None))
            if hl is not None:
                # Halide prints its scheduling warnings on stderr.
                forms += quiet_stderr(lambda: halide_forms(
                    hl, target, threads, kind, arrays, out, loaded))
            checked = []
            want = reference(np, kind, arrays)
            if kind == "gelu":
                exact_gelu = gelu_of_rounded_sum(np, arrays)
            saved = {k: v.copy() for k, v in arrays.items()}
            for label, call, error in forms:
                if call is None:
                    notes.append(f"{kind} {n} {threads} thr: {label} "
                                 f"failed to build: {error}")
                    continue
                for k, v in saved.items():
                    arrays[k][...] = v
                # The first call compiles (bcast, Numba) and is checked.
                result = call()
                got = ((arrays["p"], arrays["m"], arrays["v"])
                       if kind == "adam" else
                       (result.numpy() if label == "PyTorch" and
                        result is not None else out))
                pairs = zip(got, want) if kind == "adam" else [(got, want)]
                if not all(np.allclose(g, w, rtol=1e-4, atol=1e-5)
                           for g, w in pairs):
                    sys.exit(f"peers: {label} computed a wrong result for "
                             f"{kind} at {n} elements")
                if kind == "gelu":
                    worst = accuracy.setdefault(kind, {})
                    worst[label] = max(worst.get(label, 0.0),
                                       max_ulps(np, got, exact_gelu))
                checked.append((label, call))
            for k, v in saved.items():
                arrays[k][...] = v
            times = bench.time_interleaved(
                [call for _, call in checked], rounds,
                per_block=5 if n < 65536 else 3)
            medians = {label: statistics.median(t)
                       for (label, _), t in zip(checked, times)}
            results.setdefault(kind, {})[n] = medians
            print(f"{threads} thr {kind:10} {n:>9,}: " + ", ".join(
                f"{label} {m * 1e6:.2f}" for label, m in medians.items()),
                file=sys.stderr, flush=True)
    for kind, worst in accuracy.items():
        notes.append(f"{kind}: largest error against float64 (of the "
                     "float32 x + b), in float32 ULPs, over the sizes: " +
                     ", ".join(
                         f"{label} {u:.3g}" for label, u in worst.items()))
    return results, notes


def gelu64(np, y):
    """GELU of the float64 array `y`, through erfc rather than 1 + erf: the
    sum cancels for y below -1, which would leave too few digits there to
    measure ULPs with."""
    from math import erfc
    return 0.5 * y * np.vectorize(erfc)(-y / math.sqrt(2))


def gelu_of_rounded_sum(np, arrays):
    """GELU in float64 of the float32 sum x + b that every form computes
    first: the error of the GELU alone, not of the sum's rounding, which
    GELU's slope amplifies where it is tiny."""
    return gelu64(np, (arrays["x"] + arrays["b"]).astype(np.float64))


def max_ulps(np, got, want):
    """The largest error of float32 `got` against the float64 `want`, in
    units in the last place of `want` rounded to float32."""
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - want) / spacing))


def best_of(medians, prefix):
    keys = [k for k in medians if k.startswith(prefix)]
    if not keys:
        return None, None
    k = min(keys, key=lambda k: medians[k])
    return k, medians[k]


PEERS = ["Halide expert", "Halide auto", "Numba", "NumPy", "PyTorch",
         "numexpr"]


def peer_medians(medians):
    """{peer: (median, variant)}: Halide's autoschedulers and Numba's two
    forms each reduced to their fastest."""
    peers = {}
    for peer, prefix in (("Halide expert", "Halide expert"),
                         ("Halide auto", "Halide "),
                         ("Numba", "Numba"), ("NumPy", "NumPy"),
                         ("PyTorch", "PyTorch"), ("numexpr", "numexpr")):
        pool = {k: v for k, v in medians.items() if k.startswith(prefix) and
                (peer != "Halide auto" or k != "Halide expert")}
        k, m = best_of(pool, "")
        if k is not None:
            peers[peer] = (m, k)
    return peers


# Bytes the Adam step must move per element: p, m, v and g read, p, m and v
# written, f32.
ADAM_BYTES = 7 * 4


def report(all_results, plot_path, sizes, copy=None):
    """The tables (bcast's median, each peer's, the ratio), the Adam step
    against one pass over its bytes at the copy bandwidth `copy` (GB/s per
    thread count, measured in the same run), and the plot."""
    for threads, (results, notes) in all_results.items():
        print(f"peers, {threads} thread{'s' if threads > 1 else ''}: median "
              "us per call; ratio = fastest peer's median / bcast's (above "
              "1: bcast faster)")
        widths = [20, 10, 10] + [14] * len(PEERS) + [8, 16]
        print(bench_fmt(["workload", "elements", "bcast"] + PEERS +
                        ["ratio", "fastest peer"], widths))
        for kind, by_size in results.items():
            for n in sizes:
                if n not in by_size:
                    continue
                medians = by_size[n]
                peers = peer_medians(medians)
                fastest = min(peers.items(), key=lambda kv: kv[1][0])
                cols = [TITLES[kind], f"{n:,}",
                        f"{medians['bcast'] * 1e6:.2f}"]
                for peer in PEERS:
                    cols.append(f"{peers[peer][0] * 1e6:.2f}"
                                if peer in peers else "-")
                cols.append(f"{fastest[1][0] / medians['bcast']:.2f}")
                cols.append(fastest[1][1])
                print(bench_fmt(cols, widths))
        for n in sizes:
            if copy and n >= 1 << 22 and n in results.get("adam", {}):
                once = ADAM_BYTES * n / (copy[threads] * 1e9)
                ours = results["adam"][n]["bcast"]
                print(f"  Adam step, {n:,} elements: bcast {ours * 1e3:.2f} "
                      f"ms; one pass over its {ADAM_BYTES} B/element at the "
                      f"copy bandwidth ({copy[threads]:.1f} GB/s, "
                      f"{threads} thr) {once * 1e3:.2f} ms: "
                      f"{ours / once:.2f}x")
        for note in notes:
            print("  " + note)
        print()
    if plot_path:
        plot(all_results, plot_path, sizes)


def bench_fmt(cols, widths):
    return "  ".join(str(c).ljust(w) for c, w in zip(cols, widths)).rstrip()


def plot(all_results, path, sizes):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("peers: no matplotlib (python3-matplotlib); no plot")
        return
    figure, axes = plt.subplots(1, len(all_results),
                                figsize=(6 * len(all_results), 4.8),
                                sharey=True, squeeze=False)
    for axis, (threads, (results, _)) in zip(axes[0], all_results.items()):
        for kind, by_size in results.items():
            ns = [n for n in sizes if n in by_size]
            ratios = []
            for n in ns:
                peers = peer_medians(by_size[n])
                fastest = min(m for m, _ in peers.values())
                ratios.append(fastest / by_size[n]["bcast"])
            axis.plot(ns, ratios, marker="o", markersize=3,
                      label=TITLES[kind])
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_xscale("log", base=2)
        axis.set_yscale("log", base=2)
        axis.set_xlabel("elements (f32)")
        axis.set_title(f"{threads} thread{'s' if threads > 1 else ''}")
        axis.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("fastest peer's time / bcast's (above 1: bcast "
                          "faster)")
    axes[0][0].legend(fontsize=8)
    figure.suptitle("bcast @jit against Halide, Numba, NumPy, PyTorch and "
                    "numexpr")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"peers: plot written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--build", required=True)
    parser.add_argument("--json", required=True,
                        help="where the child writes its medians")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    kinds = args.workloads.split(",")
    for kind in kinds:
        if kind not in WORKLOADS:
            sys.exit(f"peers: unknown workload '{kind}' (known: "
                     f"{', '.join(WORKLOADS)})")
    results, notes = run_child(args.threads, sizes, kinds, args.rounds,
                               args.build)
    with open(args.json, "w") as f:
        json.dump({"results": results, "notes": notes}, f)


if __name__ == "__main__":
    main()
