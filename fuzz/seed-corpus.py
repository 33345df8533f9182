#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus: every .mlir file of the test suite and
the examples, split at `// -----` (the -split-input-file marker) so that each
seed is one module, with RUN/CHECK comment lines dropped (they only cost the
fuzzer mutations). Seeds are named by content hash, so reruns add nothing.

Usage: seed-corpus.py SOURCE_ROOT CORPUS_DIR
"""

import hashlib
import os
import sys


def seeds(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for chunk in text.split("// -----"):
        lines = [line for line in chunk.splitlines()
                 if not line.lstrip().startswith("//")]
        seed = "\n".join(lines).strip() + "\n"
        if seed.strip():
            yield seed


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, corpus = sys.argv[1], sys.argv[2]
    os.makedirs(corpus, exist_ok=True)
    count = 0
    for top in ("test", "examples"):
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                for seed in seeds(os.path.join(directory, name)):
                    digest = hashlib.sha1(seed.encode()).hexdigest()
                    with open(os.path.join(corpus, digest), "w") as f:
                        f.write(seed)
                    count += 1
    print("wrote %d seeds to %s" % (count, corpus))


if __name__ == "__main__":
    main()
