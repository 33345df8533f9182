"""pytest setup for bcast's Python tests: they import `bcast` from the build
tree (PYTHONPATH=build/python, set by lit or by hand).

`--sweep-every N` keeps every Nth test of each module marked `sweep` (the
modules that compare every op and dtype with PyTorch): the sanitizer build's
run (test/Python/pytest.test) takes a quarter of them, since they go through
the same C++ as the rest of the suite and under ASan took two thirds of
its time."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--sweep-every", type=int, default=1, metavar="N",
                     help="run every Nth test of the modules marked sweep")


def pytest_configure(config):
    if config.getoption("--sweep-every") < 1:
        raise pytest.UsageError("--sweep-every must be positive")
    config.addinivalue_line(
        "markers", "gpu: needs a GPU and the CUDA runtime (skipped elsewhere)")
    config.addinivalue_line(
        "markers", "sweep: one of many cases of a comparison with PyTorch "
        "over every op and dtype (sampled by --sweep-every)")


def pytest_collection_modifyitems(config, items):
    every = config.getoption("--sweep-every")
    if every == 1:
        return
    kept, dropped, seen = [], [], {}
    for item in items:
        if item.get_closest_marker("sweep") is None:
            kept.append(item)
            continue
        index = seen.get(item.module, 0)
        seen[item.module] = index + 1
        (kept if index % every == 0 else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
