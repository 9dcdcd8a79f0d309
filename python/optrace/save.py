"""save_profiling_data: write one rank's raw profiling buffer as <out_dir>/rank<N>.bin.

The file is the buffer's bytes as int64 little-endian, nothing else (SPEC section 4): slots
describe themselves, so no core count, slot size or clock rate needs to be passed along.
"""
import os
import sys

_SYNC_HINT = ("the profiling buffer is all zeros: no core wrote its slot. Synchronise the device "
              "before saving (torch_npu.npu.synchronize() / torch.cuda.synchronize()), and check that "
              "the kernel was built with ENABLE_MOE_PROFILING=1 and that the profiling output is the "
              "operator's last output")


def resolve_output_dir(out_dir):
    """out_dir as an absolute path, relative paths taken against the caller's working directory.

    Never against this module's directory (the legacy trace_utils.py did that: seed gate G5).
    Resolve before multiprocessing.spawn so every worker writes to the same place.
    """
    return os.path.abspath(os.path.expanduser(os.fspath(out_dir)))


def _as_int64_array(buffer):
    import numpy as np

    if hasattr(buffer, "detach") and hasattr(buffer, "cpu"):  # a torch tensor, duck-typed
        buffer = buffer.detach().cpu().numpy()
    arr = np.asarray(buffer)
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize != 8:
        raise TypeError(f"the profiling buffer must hold int64 words, got dtype {arr.dtype}; pass the "
                        "operator's profiling output unchanged")
    return np.ascontiguousarray(arr, dtype="<i8")


def save_profiling_data(buffer, rank, out_dir):
    """Writes `buffer` (torch tensor or numpy array of int64) to <out_dir>/rank<rank>.bin.

    Returns the absolute path written. Raises ValueError for an all-zero buffer (the device was
    not synchronised) or a negative rank, TypeError for a buffer that is not int64.
    """
    if isinstance(rank, bool) or int(rank) != rank or rank < 0:
        raise ValueError(f"rank must be a non-negative integer, got {rank!r}")
    arr = _as_int64_array(buffer)
    if arr.size == 0:
        raise ValueError("the profiling buffer is empty; pass the operator's profiling output")
    if not arr.any():
        raise ValueError(_SYNC_HINT)
    directory = resolve_output_dir(out_dir)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"rank{int(rank)}.bin")
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(arr.tobytes())
    os.replace(tmp, path)
    return path


if __name__ == "__main__":  # pragma: no cover
    sys.exit("import optrace and call save_profiling_data(buffer, rank, out_dir)")
