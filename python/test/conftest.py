"""pytest setup for bcast's Python tests: they import `bcast` from the build
tree (PYTHONPATH=build/python, set by lit or by hand)."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: needs a GPU and the CUDA runtime (skipped elsewhere)")
