"""The disk cache (cache=True): compiled kernels' object code kept on disk
under the sha256 of everything that decides it, for this and later
processes.
"""

import hashlib
import json
import os
import tempfile

from . import _bcast


# The version in the disk cache's key: a kernel compiled by another version,
# or by another build of the extension, is never loaded.
_VERSION = "0.1.0"


def _cache_version():
    try:
        stat = os.stat(_bcast.__file__)
        build = f"{stat.st_size}-{stat.st_mtime_ns}"
    except OSError:
        build = "unknown"
    return f"bcast {_VERSION} extension {build}"


class _DiskCache:
    """Compiled kernels on disk: one file per key (the sha256 of the traced
    IR, the pipeline options, the shared libraries, bcast's version and the
    host CPU), holding a header line (key, size and sha256 of the object
    code) and the object code. A file that does not match its header, or
    does not link, is ignored and rewritten."""

    MAGIC = b"BCASTOBJ1\n"

    def __init__(self, directory=None):
        self.directory = (directory or os.environ.get("BCAST_CACHE_DIR") or
                          os.path.join(os.path.expanduser("~"), ".cache",
                                       "bcast"))

    @staticmethod
    def key(text, options, libs):
        material = "\n".join([_cache_version(), _bcast.host_cpu(), options,
                              ";".join(libs), text])
        return hashlib.sha256(material.encode()).hexdigest()

    def path(self, key):
        return os.path.join(self.directory, key + ".bcastobj")

    def load(self, key, libs):
        """The kernel stored under `key`, or None."""
        try:
            with open(self.path(key), "rb") as f:
                data = f.read()
        except OSError:
            return None
        if not data.startswith(self.MAGIC):
            return None
        header, newline, payload = data[len(self.MAGIC):].partition(b"\n")
        try:
            header = json.loads(header)
        except ValueError:
            return None
        if (not newline or not isinstance(header, dict) or
                header.get("key") != key or
                header.get("size") != len(payload) or
                header.get("sha256") != hashlib.sha256(payload).hexdigest()):
            return None
        try:
            return _bcast.Kernel.from_object(payload, libs)
        except _bcast.MLIRError:
            return None

    def store(self, key, kernel):
        """Writes `kernel`'s object code under `key` (atomically: a reader
        sees the old file or the new one). A cache that cannot be written is
        no error: the kernel is simply not kept."""
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd, object_path = tempfile.mkstemp(dir=self.directory,
                                               suffix=".o.tmp")
            os.close(fd)
            try:
                kernel.save_object(object_path)
                with open(object_path, "rb") as f:
                    payload = f.read()
            finally:
                os.unlink(object_path)
            header = json.dumps({"key": key, "size": len(payload),
                                 "sha256": hashlib.sha256(payload).hexdigest()})
            fd, temporary = tempfile.mkstemp(dir=self.directory,
                                             suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(self.MAGIC + header.encode() + b"\n" + payload)
            os.replace(temporary, self.path(key))
        except OSError:
            pass
