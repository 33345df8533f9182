# Runs bcast's GoogleTest unit tests (build/unittests/*Tests) under lit.

import os

import lit.formats

config.name = "BCAST-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.bcast_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
