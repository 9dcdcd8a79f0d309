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


def save_profiling_data(profiling_raw=None, rank_id=None, output_dir="profiling_data", base_h_path=None, **names):
    """Writes `profiling_raw` (torch tensor or numpy array of int64) to <output_dir>/rank<rank_id>.bin.

    The seed's signature and defaults, so it drops in for the legacy trace_utils.save_profiling_data:
    save_profiling_data(profiling_raw, rank_id, output_dir="profiling_data", base_h_path=None).
    base_h_path is accepted and unused: the legacy reader needed the base header for PROF_SIZE and
    the core counts; native slots describe themselves. buffer= / rank= / out_dir= are accepted too.

    Returns the absolute path written. Raises ValueError for an all-zero buffer (the device was
    not synchronised) or a negative rank, TypeError for a buffer that is not int64.
    """
    aliases = {"buffer": "profiling_raw", "rank": "rank_id", "out_dir": "output_dir"}
    unknown = set(names) - set(aliases)
    if unknown:
        raise TypeError(f"save_profiling_data() got unexpected keyword argument(s) {sorted(unknown)}")
    buffer = names.get("buffer", profiling_raw)
    rank = names.get("rank", rank_id)
    out_dir = names.get("out_dir", output_dir)
    if buffer is None or rank is None:
        raise TypeError("save_profiling_data(profiling_raw, rank_id, output_dir='profiling_data') needs the "
                        "profiling output and the rank")
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
    sys.exit("import optrace and call save_profiling_data(profiling_raw, rank_id, output_dir)")
