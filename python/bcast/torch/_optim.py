"""Optimizer steps: `bcast.torch.compile(opt.step)` for torch.optim.Adam.

An optimizer step is element-wise work over every parameter, written in
place; 1.13's Adam reads its step count with `.item()`, which make_fx cannot
trace, so the step is written here with the operations of
`torch.optim.adam._single_tensor_adam` (1.13), in its order, as one bcast
kernel over all parameters of a group (parameters, gradients and both
moments updated in place). The per-step numbers (bias corrections, step
size) are run-time scalar arguments: a new step or learning rate runs the
same kernel. Configurations it does not cover (amsgrad, maximize,
capturable, differentiable, foreach, fused, complex or sparse parameters,
a closure) run torch's own step, and `reason` says why.
"""

import math

import torch

import bcast


def _adam_kernel(count, weight_decay):
    def kernel(*args):
        params = args[0:count]
        grads = args[count:2 * count]
        exp_avgs = args[2 * count:3 * count]
        exp_avg_sqs = args[3 * count:4 * count]
        (beta1, one_minus_beta1, beta2, one_minus_beta2, neg_step_size,
         bias_correction2_sqrt, eps, decay) = args[4 * count:]
        for param, grad, exp_avg, exp_avg_sq in zip(params, grads, exp_avgs,
                                                    exp_avg_sqs):
            if weight_decay:
                grad = grad + param * decay
            # exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
            exp_avg *= beta1
            exp_avg += grad * one_minus_beta1
            # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            exp_avg_sq *= beta2
            exp_avg_sq += one_minus_beta2 * grad * grad
            # denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + eps
            # param.addcdiv_(exp_avg, denom, value=-step_size)
            param += neg_step_size * exp_avg / denom
    return kernel


class CompiledAdamStep:
    """opt.step with each parameter group's update as one bcast kernel."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.kernels = {}
        self.reason = None

    def _unsupported(self, group):
        for key in ("amsgrad", "maximize", "capturable", "differentiable",
                    "foreach", "fused"):
            if group.get(key):
                return f"Adam with {key}=True"
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.grad.is_sparse or torch.is_complex(p):
                return "sparse gradients or complex parameters"
            if p.device.type != "cpu":
                return f"parameters on {p.device}"
        return None

    def __call__(self, closure=None):
        opt = self.optimizer
        if closure is not None:
            self.reason = "a closure (torch's step runs it)"
            return opt.step(closure)
        for group in opt.param_groups:
            self.reason = self._unsupported(group)
            if self.reason is not None:
                return opt.step()
        with torch.no_grad():
            for group in opt.param_groups:
                self._group_step(group)
        return None

    def _group_step(self, group):
        opt = self.optimizer
        params = [p for p in group["params"] if p.grad is not None]
        if not params:
            return
        beta1, beta2 = group["betas"]
        steps = set()
        for p in params:
            state = opt.state[p]
            if len(state) == 0:
                # Adam's lazy initialization (1.13).
                state["step"] = torch.tensor(0.)
                state["exp_avg"] = torch.zeros_like(
                    p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(
                    p, memory_format=torch.preserve_format)
            state["step"] += 1
            steps.add(state["step"].item())
        # Parameters at different step counts (added to the optimizer
        # later) take their own bias corrections: one kernel per count.
        for step in sorted(steps):
            members = [p for p in params
                       if opt.state[p]["step"].item() == step]
            self._run(group, members, step, beta1, beta2)

    def _run(self, group, params, step, beta1, beta2):
        opt = self.optimizer
        lr, eps, decay = group["lr"], group["eps"], group["weight_decay"]
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        key = (len(params), decay != 0)
        kernel = self.kernels.get(key)
        if kernel is None:
            kernel = bcast.jit(_adam_kernel(len(params), decay != 0))
            self.kernels[key] = kernel
        kernel(*params, *[p.grad for p in params],
               *[opt.state[p]["exp_avg"] for p in params],
               *[opt.state[p]["exp_avg_sq"] for p in params],
               float(beta1), float(1 - beta1), float(beta2),
               float(1 - beta2), float(-step_size),
               float(math.sqrt(bias_correction2)), float(eps), float(decay))


class EagerStep:
    """An optimizer bcast has no step for: torch's own step, and why."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.reason = f"no bcast step for {type(optimizer).__name__}"

    def __call__(self, closure=None):
        return self.optimizer.step(closure)


def compile_step(optimizer):
    """The compiled form of `optimizer.step`."""
    if type(optimizer) is torch.optim.Adam:
        return CompiledAdamStep(optimizer)
    return EagerStep(optimizer)
