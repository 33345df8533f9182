"""The public functions: compile, explain and profile."""

import torch

from . import _explain, _optim, _runtime


def compile(model_or_function, *, dynamic=False, cache=False,
            verbose=True, threads=None):
    """Compiles a module or function: each region of element-wise and
    normalization work becomes one fused bcast kernel, the rest runs in
    PyTorch.

    Returns a callable with the same signature; an nn.Module gives an
    nn.Module sharing the original's state (parameters, buffers, submodules,
    train/eval). It compiles on the first call for each guard signature
    (shapes, dtypes, strides, devices, requires_grad of every tensor,
    train/eval, grad mode, autocast, other arguments) and reuses the
    kernels after.
    An optimizer's bound `step` (torch.optim.Adam) becomes one kernel per
    parameter group that updates parameters and moments in place.

    dynamic: compile kernels with `?` sizes, so that a new batch size
        captures the graph again but reuses every kernel.
    cache: keep kernels on disk, as @bcast.jit(cache=True) does.
    verbose: a progress line on stderr when compiling takes over a second.
    threads: the kernels' thread count, as @bcast.jit's (None: PyTorch's,
        torch.get_num_threads() at the call; a change recompiles).
    """
    owner = getattr(model_or_function, "__self__", None)
    # opt.step is a bound method of the optimizer (its __name__ is that of
    # 1.13's decorator, _use_grad).
    if isinstance(owner, torch.optim.Optimizer) and \
            getattr(model_or_function, "__func__", None) is \
            getattr(type(owner).step, "__func__", type(owner).step):
        return _optim.compile_step(owner)
    if isinstance(model_or_function, torch.nn.Module):
        return _runtime.compile_module(model_or_function, dynamic, cache,
                                       verbose, threads)
    if not callable(model_or_function):
        raise TypeError("bcast.torch.compile takes an nn.Module or a "
                        f"callable, not {type(model_or_function).__name__}")
    compiled = _runtime.Compiled(model_or_function, None, dynamic, cache,
                                 verbose, threads)

    def function(*args, **kwargs):
        return compiled(*args, **kwargs)

    function.__wrapped__ = model_or_function
    function.__name__ = getattr(model_or_function, "__name__", "function")
    function.__doc__ = getattr(model_or_function, "__doc__", None)
    function._bcast_compiled = compiled
    return function


def explain(model, *example_inputs, **example_kwargs):
    """What bcast compiles of `model` for these inputs, in the mode (train
    or eval, grad or no grad) they are in: an Explanation (str() is the
    text report, .to_dict() the same for tools)."""
    return _explain.explain(model, example_inputs, example_kwargs)


def profile(model, *example_inputs, repeat=20, **example_kwargs):
    """Per region: the kernel's time, the call overhead around it and the
    eager time of the same ATen ops; totals for the element-wise share. A
    Profile (str() is a table, .to_dict() the numbers, in seconds)."""
    return _explain.profile(model, example_inputs, example_kwargs, repeat)
