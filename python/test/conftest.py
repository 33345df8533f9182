"""pytest setup for bcast's Python tests: they import `bcast` from the build
tree (PYTHONPATH=build/python, set by lit or by hand)."""
