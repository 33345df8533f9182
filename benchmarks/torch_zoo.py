#!/usr/bin/python3
"""torchvision's other models through bcast.torch.compile, checked against
eager: a sweep for what the census (torch_models.py) does not exercise.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/torch_zoo.py
        [--models squeezenet1_0,...] [--train] [--json out.json]

Each model runs in a child process of its own (random weights, seed 0;
BatchNorm statistics calibrated as in torch_models.py): eval() at batch 1,
the output judged by torch_models.accuracy (assert_close, or within 8x
eager's own float32 error against float64), and where both fail by the
issue's rule (no farther from eager than eager moves with every
element-wise output nudged by 1 ulp, 16 runs); coverage and any fallback
to eager from bcast.torch.explain. With --train, one training step at
batch 2 (dropout and stochastic depth at p=0): every parameter's gradient
by the same rules. Prints one line per model and exits 1 if any fails.
Minutes per model; not part of CI. docs/Torch.md has the results.
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, input size): classification models of torchvision 0.14 other than
# the census', small enough for a 2-core machine; and a segmentation and a
# video model.
ZOO = [("alexnet", 224), ("squeezenet1_0", 224), ("shufflenet_v2_x0_5", 224),
       ("mnasnet0_5", 224), ("mobilenet_v2", 224),
       ("mobilenet_v3_large", 224), ("googlenet", 224), ("densenet121", 224),
       ("resnet50", 224), ("resnext50_32x4d", 224), ("regnet_x_400mf", 224),
       ("efficientnet_v2_s", 224), ("vgg11_bn", 224), ("inception_v3", 299),
       ("vit_b_32", 224), ("swin_v2_t", 224), ("maxvit_t", 224),
       ("lraspp_mobilenet_v3_large", 128), ("r3d_18", 112)]
# Training steps at this size where the model allows it (maxvit_t's
# windows need 224).
TRAIN_SIZE = {"maxvit_t": 224, "vit_b_32": 224, "inception_v3": 299,
              "r3d_18": 112, "lraspp_mobilenet_v3_large": 128}
# As torch_models.SPREAD_RUNS: with 4 runs, three of regnet_x_400mf's
# gradients in its last block (2x2 pixels a channel at 64x64) were 3-5%
# past the spread found.
SPREAD_RUNS = 16


def build(name):
    import torch
    import torchvision
    torch.manual_seed(0)
    if name == "lraspp_mobilenet_v3_large":
        return torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            weights_backbone=None)
    if name == "r3d_18":
        return torchvision.models.video.r3d_18()
    kwargs = {}
    if name in ("googlenet", "inception_v3"):
        kwargs = {"aux_logits": False, "init_weights": False}
    model = getattr(torchvision.models, name)(**kwargs)
    if name.startswith("vit_"):
        # Its head starts at zero: an all-zeros output would pass.
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    return model


def make_input(name, size):
    import torch
    if name == "r3d_18":
        return lambda batch: torch.randn(batch, 3, 8, size, size)
    return lambda batch: torch.randn(batch, 3, size, size)


def output(y):
    return y["out"] if isinstance(y, dict) else y


def judge(ours, eager, truth, spreads):
    """'assert_close', 'ulp-spread', 'perturbation-spread' or None."""
    import torch_models as tm
    rule = tm.accuracy(ours, eager, truth)
    if rule is not None:
        return rule
    return "perturbation-spread" if tm.within_spread(ours, eager,
                                                     spreads()) else None


def child(name, size, train):
    import torch
    import torch_models as tm
    import bcast.torch as bt
    warnings.simplefilter("ignore")
    model, make = build(name), make_input(name, size)
    tm.calibrate(model, lambda batch: make(2))
    row = {"model": name}
    model.eval()
    truth = copy.deepcopy(model).double()
    compiled = bt.compile(model, verbose=False)
    torch.manual_seed(1)
    x = make(1)
    with torch.no_grad():
        ours, eager = output(compiled(x)), output(model(x))
        true = output(truth(x.double()))

        def spreads():
            runs = []
            for k in range(SPREAD_RUNS):
                with tm.Perturbed(seed=k):
                    runs.append(output(model(x)))
            return runs
        row["eval"] = judge(ours, eager, true, spreads)
        row["eval_error"] = (
            f"(from eager {tm.farthest(ours, eager):.2e}; error "
            f"{tm.farthest(ours, true):.2e}, eager's "
            f"{tm.farthest(eager, true):.2e}, scale "
            f"{true.double().abs().max().item():.2e})")
        d = bt.explain(compiled, x).to_dict()
    row.update(coverage=d["coverage"], regions=d["num_regions"],
               fallback=d["fallback"])
    if train:
        row["train"], row["train_float64"] = train_step(
            name, TRAIN_SIZE.get(name, 64))
    print(json.dumps(row), flush=True)


def train_step(name, size):
    """Gradients of one step at batch 2: the names of those no rule
    accepts (empty: all pass), and, when there are some, the largest
    difference of any gradient from eager's when both run in float64
    (relative to the gradient's scale: whether the float32 difference is
    bcast computing something else, or rounding the model amplifies).
    The perturbed runs reuse one copy of the model and keep, per
    parameter, only their largest distance from eager (16 copies of
    vgg11_bn's gradients would not fit in memory)."""
    import torch
    import torch_models as tm
    import bcast.torch as bt
    model, make = build(name), make_input(name, size)
    tm.calibrate(model, lambda batch: make(2))
    tm.no_dropout(model)
    model.train()
    eager, truth = copy.deepcopy(model), copy.deepcopy(model).double()
    perturbed = copy.deepcopy(model)
    compiled = bt.compile(model, verbose=False)
    torch.manual_seed(1)
    x = make(2)
    for m, inp in ((compiled, x), (eager, x), (truth, x.double())):
        output(m(inp)).square().mean().backward()
    reference = [p.grad for p in eager.parameters()]
    spread = [0.0] * len(reference)
    for k in range(SPREAD_RUNS):
        perturbed.zero_grad(set_to_none=True)
        with tm.Perturbed(seed=k):
            output(perturbed(x)).square().mean().backward()
        for j, (p, e) in enumerate(zip(perturbed.parameters(), reference)):
            if p.grad is not None:
                spread[j] = max(spread[j], tm.farthest(p.grad, e))
    failed = []
    for (n, p), e, t, reach in zip(model.named_parameters(), reference,
                                   [q.grad for q in truth.parameters()],
                                   spread):
        if p.grad is None or tm.accuracy(p.grad, e, t) is not None or \
                tm.farthest(p.grad, e) <= reach:
            continue
        failed.append(f"{n} (from eager {tm.farthest(p.grad, e):.2e}, "
                      f"spread {reach:.2e}; error {tm.farthest(p.grad, t):.2e}"
                      f", eager's {tm.farthest(e, t):.2e}, scale "
                      f"{t.double().abs().max().item():.2e})")
    if not failed:
        return failed, None
    double = copy.deepcopy(truth)
    double.zero_grad(set_to_none=True)
    output(bt.compile(double, verbose=False)(x.double())).square().mean() \
        .backward()
    return failed, max(
        tm.farthest(p.grad, t.grad) / (t.grad.abs().max().item() or 1.0)
        for p, t in zip(double.parameters(), truth.parameters())
        if t.grad is not None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(n for n, _ in ZOO))
    parser.add_argument("--train", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = dict(ZOO)
    if args.child:
        child(args.child, sizes[args.child], args.train)
        return 0
    rows, bad = [], []
    for name in args.models.split(","):
        if name not in sizes:
            parser.error(f"unknown model {name}; one of "
                         f"{', '.join(sizes)}")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", name]
        run = subprocess.run(cmd + (["--train"] if args.train else []),
                             capture_output=True, text=True)
        lines = [line for line in run.stdout.splitlines()
                 if line.startswith("{")]
        if run.returncode != 0 or not lines:
            row = {"model": name, "error": (run.stderr.strip().splitlines()
                                            or ["no output"])[-1]}
        else:
            row = json.loads(lines[-1])
        rows.append(row)
        ok = "error" not in row and row["eval"] is not None and \
            not row.get("train")
        if not ok:
            bad.append(name)
        print(f"{name}: " + (row["error"] if "error" in row else
                             f"eval {row['eval'] or 'FAILED'} "
                             f"{row['eval_error']}, coverage "
                             f"{row['coverage']:.3f}, {row['regions']} "
                             f"regions"
                             + (f", fallback: {row['fallback']}"
                                if row["fallback"] else "")
                             + ("" if "train" not in row else
                                ", train: " + ("gradients pass" if not
                                               row["train"] else
                                               "; ".join(row["train"][:3])
                                               + f"; in float64 every "
                                               f"gradient within "
                                               f"{row['train_float64']:.1e}"
                                               f" of eager's"))),
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if bad:
        print(f"failed: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))
    sys.path.insert(0, HERE)
    sys.exit(main())
