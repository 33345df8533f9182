#!/usr/bin/python3
"""Differential fuzzing of bcast.torch.compile against eager PyTorch.

    PYTHONPATH=build/python /usr/bin/python3 fuzz/torch_differential.py \
        [--seed N] [--programs N] [--verbose]

Each program is a random PyTorch function of tensors, written out as
Python source: element-wise arithmetic with broadcasting and Python
scalars, integer division, remainders and bitwise ops, comparisons, `where`
and `masked_fill`, activations, casts, reductions with and without keepdim,
softmax and the normalizations, views (permute, transpose, unsqueeze,
expand, reshape, slices), joins, in-place updates of intermediates and of
inputs, and matrix products. Every statement is run in eager PyTorch as it
is generated and kept only if eager accepts it, so every program is valid.
The compiled function must then give eager's results (shape, dtype, the
strides of dims larger than 1, values) and leave the inputs as eager
leaves them, for the inputs it was compiled on, for new values of the same
signature, and for inputs laid out otherwise (transposed, strided); where
inputs require grad, the same gradients of a weighted sum of the float
results. A failure prints the program and its inputs, and the run exits 1
at the end. Not part of CI but for its smoke test (test/Python).
"""

import argparse
import random
import sys
import traceback
import warnings

import torch

FLOATS = [torch.float32, torch.float32, torch.float32, torch.float64]
UNARY = ["torch.relu({})", "torch.sigmoid({})", "torch.tanh({})",
         "torch.abs({})", "-{}", "torch.exp(torch.clamp({}, max=8.0))",
         "torch.sqrt(torch.abs({}) + 1)", "torch.nn.functional.gelu({})",
         "torch.nn.functional.silu({})", "({} * 0.5 + 1.25)",
         "torch.nn.functional.hardswish({})", "torch.clamp({}, -1.0, 1.0)",
         "torch.nn.functional.leaky_relu({}, 0.1)", "torch.square({})",
         "torch.rsqrt(torch.abs({}) + 0.5)", "torch.erf({})",
         "torch.log1p(torch.abs({}))"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / (torch.abs({}) + 1))",
          "torch.maximum({}, {})", "torch.minimum({}, {})",
          "torch.where({} > 0, {}, {})", "torch.add({}, {}, alpha=2)",
          "torch.sub({}, {}, alpha=0.5)"]
COMPARE = ["({} > {})", "({} <= {})", "({} == {})", "({} != {})"]
INPLACE = ["{}.add_({})", "{}.mul_({})", "{}.sub_({})", "{}.relu_()",
           "{}.mul_(2.0)", "{}.clamp_(min=-0.5)", "{}.sigmoid_()"]
SCALAR = ["({} * 3)", "({} + 2.5)", "(1 - {})", "({} ** 2)",
          "torch.pow({}, 3)", "({} / 4)", "torch.where({} > 0, {}, 0.0)",
          "{}.masked_fill({} < 0, 1.5)"]
INTEGER = ["torch.div({}, torch.abs({}) + 1, rounding_mode='floor')",
           "torch.div({}, torch.abs({}) + 1, rounding_mode='trunc')",
           "torch.remainder({}, torch.abs({}) + 1)", "({} // 2)",
           "({} & {})", "({} | {})", "({} ^ {})"]
SHAPES = ["{}[..., :1]", "{}[1:]", "{}[None]", "{}.flatten()",
          "torch.cat([{}, {}], -1)", "{}.contiguous()", "{}.clone()",
          "{}.t()", "{}.expand_as({})", "torch.stack([{}, {}])",
          "{}.view(-1)", "{}.sum(-1, keepdim=True).expand_as({})"]
NORMS = ["torch.nn.functional.layer_norm({}, {}.shape[-1:])",
         "torch.nn.functional.batch_norm({}, None, None, training=True)",
         "torch.nn.functional.group_norm({}, 1)",
         "torch.nn.functional.normalize({}, dim=-1)",
         "torch.nn.functional.softplus({})", "torch.nn.functional.elu({})",
         "torch.nn.functional.mse_loss({}, {})",
         "torch.nn.functional.dropout({}, 0.5, training=False)",
         "torch.logsumexp({}, -1)", "torch.nn.functional.hardtanh({})"]


class Program:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.values = {}   # name -> eager value (on the example inputs)
        self.inputs = []

    def fresh(self):
        return f"v{len(self.values)}"

    def pick(self, predicate=lambda v: True):
        names = [n for n, v in self.values.items() if predicate(v)]
        return self.rng.choice(names) if names else None

    def attempt(self, expr, inplace_of=None):
        """Runs `expr` on the current values; keeps it as a new statement
        when eager accepts it and it gives a tensor."""
        env = dict(self.values)
        env["torch"] = torch
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with torch.no_grad():
                    value = eval(expr, env)
        except Exception:  # noqa: BLE001 - eager refused: not a program
            return False
        if not isinstance(value, torch.Tensor) or value.numel() > 4096:
            return False
        if inplace_of is not None:
            # An in-place statement on an intermediate: a statement of its
            # own, and the value keeps its name.
            self.lines.append(expr)
            return True
        name = self.fresh()
        self.values[name] = value
        self.lines.append(f"{name} = {expr}")
        return True


def random_shape(rng, rank):
    return [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(rank)]


def make_inputs(rng):
    count = rng.randint(1, 3)
    base = random_shape(rng, rng.randint(0, 4))
    inputs = []
    for _ in range(count):
        # Broadcast partners of one shape: dims dropped from the front or
        # set to 1.
        rank = rng.randint(0, len(base))
        shape = [1 if rng.random() < 0.3 else s
                 for s in base[len(base) - rank:]]
        r = rng.random()
        dtype = rng.choice(FLOATS) if r < 0.8 else (
            torch.int64 if r < 0.9 else torch.int32)
        inputs.append((shape, dtype))
    return inputs


def tensor(shape, dtype, gen):
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype, generator=gen)
    return torch.randint(-5, 6, shape, dtype=dtype, generator=gen)


def generate(seed):
    rng = random.Random(seed)
    p = Program(rng)
    gen = torch.Generator().manual_seed(seed)
    specs = make_inputs(rng)
    grad = rng.random() < 0.4
    for k, (shape, dtype) in enumerate(specs):
        name = f"x{k}"
        p.inputs.append((name, shape, dtype,
                         grad and dtype.is_floating_point))
        p.values[name] = tensor(shape, dtype, gen)
    steps = rng.randint(2, 9)
    tries = 0
    while steps and tries < 200:
        tries += 1
        kind = rng.random()
        a = p.pick()
        b = p.pick()
        floats = p.pick(lambda v: v.is_floating_point())
        family = rng.random()
        if family < 0.35:
            # The other forms: scalars, integer ops, slices and joins,
            # normalization, in place on an input.
            form = rng.choice([SCALAR, INTEGER, SHAPES, NORMS, None])
            if form is None:
                target = p.pick(lambda v: True)
                if grad or target is None or not target.startswith("x"):
                    continue
                form = rng.choice(INPLACE)
                ok = p.attempt(form.format(target, b) if form.count("{}")
                               == 2 else form.format(target),
                               inplace_of=target)
            else:
                text = rng.choice(form)
                names = [p.pick() for _ in range(text.count("{}"))]
                if text.count("{}") == 2 and rng.random() < 0.5:
                    names[1] = names[0]
                ok = p.attempt(text.format(*names))
        elif kind < 0.3 and floats:
            ok = p.attempt(rng.choice(UNARY).format(floats))
        elif kind < 0.55:
            form = rng.choice(BINARY)
            names = [p.pick() for _ in range(form.count("{}"))]
            ok = p.attempt(form.format(*names))
        elif kind < 0.6:
            ok = p.attempt(rng.choice(COMPARE).format(a, b))
        elif kind < 0.72:
            v = p.values[a]
            dims = list(range(v.dim()))
            if not dims:
                ok = p.attempt(f"{a}.sum()")
            else:
                dim = rng.sample(dims, rng.randint(1, len(dims)))
                keep = rng.random() < 0.5
                op = rng.choice(["sum", "mean", "amax", "var", "softmax",
                                 "log_softmax", "prod"])
                if op in ("softmax", "log_softmax"):
                    ok = p.attempt(f"torch.{op}({a}, {dim[0]})")
                elif op == "var":
                    ok = p.attempt(f"torch.var({a}, {dim}, keepdim={keep})")
                elif op == "prod":
                    ok = p.attempt(f"torch.prod({a}, {dim[0]}, "
                                   f"keepdim={keep})")
                else:
                    ok = p.attempt(f"torch.{op}({a}, {dim}, keepdim={keep})")
        elif kind < 0.84:
            v = p.values[a]
            r = rng.random()
            if v.dim() >= 2 and r < 0.3:
                perm = list(range(v.dim()))
                rng.shuffle(perm)
                ok = p.attempt(f"{a}.permute({perm})")
            elif v.dim() >= 2 and r < 0.45:
                ok = p.attempt(f"{a}.transpose({-1}, {-2})")
            elif r < 0.65:
                ok = p.attempt(f"{a}.unsqueeze({rng.randint(0, v.dim())})")
            elif r < 0.75:
                ok = p.attempt(f"{a}.expand({[3] + list(v.shape)})")
            elif r < 0.85 and v.numel() > 0:
                ok = p.attempt(f"{a}.reshape(-1)")
            elif r < 0.92:
                ok = p.attempt(f"{a}.squeeze()")
            else:
                ok = p.attempt(f"{a}.to({rng.choice(['torch.float32', 'torch.float64', 'torch.int64', 'torch.bool'])})")
        elif kind < 0.92:
            # In place on an intermediate (never an input: eager would
            # then need the input's version counter, which is fine, but
            # keeps the programs about the frontend's functionalization of
            # intermediates; inputs written in place are in the tests).
            target = p.pick(lambda v: v.is_floating_point())
            if target is None or target.startswith("x"):
                continue
            form = rng.choice(INPLACE)
            expr = form.format(target, b) if form.count("{}") == 2 else \
                form.format(target)
            ok = p.attempt(expr, inplace_of=target)
            if ok:
                # The statement ran on the value already: nothing else.
                pass
        else:
            v = p.values[floats] if floats else None
            if v is None or v.dim() == 0:
                continue
            # A product with a fresh weight input of a fitting shape.
            n = rng.choice([1, 2, 3, 4])
            wname = f"x{len(p.inputs)}"
            if v.dim() == 1:
                wshape = [v.shape[-1], n]
            else:
                wshape = [v.shape[-1], n] if rng.random() < 0.6 else \
                    [rng.choice([1, 2])] + [v.shape[-1], n]
            p.inputs.append((wname, wshape, v.dtype,
                             grad and v.dtype.is_floating_point))
            p.values[wname] = tensor(wshape, v.dtype, gen)
            ok = p.attempt(f"torch.matmul({floats}, {wname})")
            if not ok:
                del p.values[wname]
                p.inputs.pop()
        if ok:
            steps -= 1
    names = [n for n in p.values if not n.startswith("x")]
    if not names:
        return None
    outs = [names[-1]]
    if len(names) > 1 and rng.random() < 0.5:
        outs.append(rng.choice(names[:-1]))
    params = ", ".join(n for n, _, _, _ in p.inputs)
    body = "\n".join("    " + line for line in p.lines)
    source = f"def f({params}):\n{body}\n    return {', '.join(outs)}\n"
    return source, p.inputs


def inputs_of(spec, gen, strided=False):
    """New inputs of the signature; `strided`: laid out otherwise (each
    of rank 2 or more a transposed copy, of rank 1 every other element of
    a longer tensor), which the guards must see."""
    values = []
    for _, shape, dtype, grad in spec:
        t = tensor(shape, dtype, gen)
        if strided and len(shape) >= 2:
            t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
        elif strided and len(shape) == 1:
            t = tensor([2 * shape[0]], dtype, gen)[::2]
        values.append(t.requires_grad_(grad) if grad else t)
    return values


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def compare(got, want, what, truth=None):
    assert type(got) is type(want) and len(as_tuple(got)) == \
        len(as_tuple(want)), f"{what}: {type(got).__name__} of " \
        f"{len(as_tuple(got))} for {type(want).__name__} of " \
        f"{len(as_tuple(want))}"
    _compare(got, want, what, truth)


def _compare(got, want, what, truth=None):
    """`truth`: the outputs computed in float64 (a callable), for values
    that differ from eager's by more than the tolerance: ours must then be
    as close to them as eager's is, within 8 times (LayerNorm over one
    element: eager's 1e-5 against our exact 0)."""
    truths = None
    for k, (g, w) in enumerate(zip(as_tuple(got), as_tuple(want))):
        assert g.shape == w.shape, f"{what} {k}: shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"{what} {k}: dtype {g.dtype} != {w.dtype}"
        # Strides of size-1 dims are never read (ATen's own contiguity
        # checks skip them).
        if w.numel() > 1 and [st for st, n in zip(g.stride(), g.shape)
                              if n > 1] != [st for st, n in zip(
                                  w.stride(), w.shape) if n > 1]:
            raise AssertionError(f"{what} {k}: strides {g.stride()} != "
                                 f"{w.stride()}")
        try:
            torch.testing.assert_close(g.detach(), w.detach(), rtol=1e-4,
                                       atol=1e-5, equal_nan=True,
                                       msg=lambda m: f"{what} {k}: {m}")
        except AssertionError:
            if truth is None or not w.is_floating_point():
                raise
            if truths is None:
                truths = as_tuple(truth())
            t = truths[k].detach().double()
            ours = (g.detach().double() - t).abs().nan_to_num(0).max()
            eager = (w.detach().double() - t).abs().nan_to_num(0).max()
            if ours > 8 * eager + 1e-12:
                raise


def check(source, spec, seed):
    import bcast.torch as bt
    scope = {"torch": torch}
    exec(source, scope)
    f = scope["f"]
    compiled = bt.compile(f, verbose=False)
    gen = torch.Generator().manual_seed(seed + 1)
    for round in range(3):
        # The same values in the same layouts for both sides (clone()
        # would make a strided input contiguous).
        state = gen.get_state()
        args = inputs_of(spec, gen, strided=round == 2)
        mine = inputs_of(spec, torch.Generator().set_state(state),
                         strided=round == 2)
        originals = [a.detach().clone() for a in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = f(*args)
            except RuntimeError:
                # Eager refuses these inputs (an in-place update of a view
                # of an input that requires grad): nothing to compare.
                return False
            got = compiled(*mine)
        def truth():
            doubles = [a.double() if a.is_floating_point() else a.clone()
                       for a in originals]
            with torch.no_grad():
                return f(*doubles)
        compare(got, want, f"round {round} output", truth)
        # Inputs written through views, as eager wrote them.
        for k, (m, a) in enumerate(zip(mine, args)):
            torch.testing.assert_close(
                m.detach(), a.detach(), rtol=1e-4, atol=1e-5,
                equal_nan=True, msg=lambda msg: f"round {round} input "
                f"x{k} after the call: {msg}")
        outs = [(g, w) for g, w in zip(as_tuple(got), as_tuple(want))
                if w.is_floating_point() and w.requires_grad]
        if not outs:
            continue
        weights = [torch.randn(w.shape, dtype=w.dtype, generator=gen)
                   for _, w in outs]
        try:
            sum((w * k).sum() for (_, w), k in zip(outs, weights)).backward()
        except RuntimeError:
            # Eager's autograd refuses (a tensor it saved was written in
            # place); the compiled graph, functional, has no such limit.
            continue
        sum((g * k).sum() for (g, _), k in zip(outs, weights)).backward()
        truths = None
        for k, (a, m) in enumerate(zip(args, mine)):
            if a.requires_grad and a.grad is not None:
                assert m.grad is not None, f"round {round}: no grad of x{k}"
                try:
                    torch.testing.assert_close(
                        m.grad, a.grad, rtol=1e-4, atol=1e-5, equal_nan=True,
                        msg=lambda msg: f"round {round} grad of x{k}: {msg}")
                except AssertionError:
                    # As for outputs: as close to float64's as eager's.
                    if truths is None:
                        truths = grads64(f, originals, spec, outs, weights)
                    t = truths[k].double()
                    ours = (m.grad.double() - t).abs().nan_to_num(0).max()
                    theirs = (a.grad.double() - t).abs().nan_to_num(0).max()
                    # Normalizing identical values (a batch norm of an
                    # expanded tensor) gives rounding noise times
                    # 1/sqrt(eps) in both, and eager's is sometimes 0.
                    if ours > 8 * theirs + 2e-4 * max(
                            1.0, t.abs().max().item()):
                        raise
    return True


def grads64(f, originals, spec, outs, weights):
    """The gradients of the weighted sum in float64."""
    doubles = [a.double().requires_grad_(g) if a.is_floating_point() else
               a.clone() for a, (_, _, _, g) in zip(originals, spec)]
    results = as_tuple(f(*doubles))
    float_results = [r for r in results if r.is_floating_point() and
                     r.requires_grad]
    sum((r * k.double()).sum()
        for r, k in zip(float_results, weights)).backward()
    return [d.grad if d.is_floating_point() else None for d in doubles]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    failures = 0
    checked = 0
    for seed in range(args.seed, args.seed + args.programs):
        program = generate(seed)
        if program is None:
            continue
        source, spec = program
        checked += 1
        if args.verbose:
            print(f"--- seed {seed}\n{source}", flush=True)
        try:
            if not check(source, spec, seed):
                checked -= 1
        except Exception as e:  # noqa: BLE001 - every difference is reported
            failures += 1
            print(f"=== seed {seed}: {type(e).__name__}: "
                  f"{str(e).splitlines()[0] if str(e) else ''}")
            print("inputs: " + ", ".join(
                f"{n} {list(s)} {d}{' requires_grad' if g else ''}"
                for n, s, d, g in spec))
            print(source)
            if args.verbose:
                traceback.print_exc()
    print(f"{checked} programs, {failures} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
