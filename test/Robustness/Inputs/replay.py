"""Replays inputs through the pipelines the fuzz targets run, with bcast-opt.

usage: replay.py FILE_OR_DIR BCAST_OPT [ARGS...]

For each input (every file of a directory but README.md and lit.local.cfg),
runs BCAST_OPT ARGS... with each pipeline of the fold, llvm and nvvm targets
(k<Target>Pipelines, read from fuzz/FuzzHarness.cpp) and checks that it
exits with status 0 or 1 within 60 s: a crash, a sanitizer report (status
!= 0, 1) or a hang fails. So does IR that does not verify after canonicalize
or cse: bcast-opt reports it as an error (status 1), like a diagnostic, but
those passes never fail, so a failed one in the IR dump after failure is
the verifier's (findings 5, 12 and 15; the fuzz targets abort on any pass).
"""

import os
import re
import subprocess
import sys

def fuzzer_pipelines():
    """The pipeline tables of fuzz/FuzzHarness.cpp, read from the source so
    that the replay cannot drift from what the fuzzers run."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "..", "..", "..", "fuzz", "FuzzHarness.cpp")
    with open(source) as f:
        text = f.read()
    pipelines = []
    for body in re.findall(r"k\w+Pipelines\[\] = \{(.*?)\};", text, re.S):
        pipelines += re.findall(r'"([^"]*)"', body)
    if not pipelines:
        sys.exit("replay.py: no pipelines found in " + source)
    return pipelines


PIPELINES = fuzzer_pipelines()


def inputs(paths):
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name not in ("README.md", "lit.local.cfg"):
                    yield os.path.join(path, name)
        else:
            yield path


def main():
    paths, tool = [sys.argv[1]], sys.argv[2:]
    bad = runs = 0
    for path in inputs(paths):
        for pipeline in PIPELINES:
            runs += 1
            command = tool + [path, "--pass-pipeline=builtin.module(%s)" % pipeline,
                       "--mlir-print-ir-after-failure", "-o", os.devnull]
            try:
                result = subprocess.run(command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, timeout=60)
            except subprocess.TimeoutExpired:
                print("%s: %s: timed out" % (path, pipeline))
                bad += 1
                continue
            stderr = result.stderr.decode(errors="replace")
            invalid = re.search(r"IR Dump After (Canonicalizer|CSE) .*Failed",
                                stderr)
            if invalid:
                print("%s: %s: %s produced IR that does not verify\n%s" % (
                    path, pipeline, invalid.group(1), stderr[:2000]))
                bad += 1
            elif result.returncode not in (0, 1):
                print("%s: %s: exit status %d\n%s" % (
                    path, pipeline, result.returncode, stderr[-2000:]))
                bad += 1
    print("%d runs, %d failed" % (runs, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
