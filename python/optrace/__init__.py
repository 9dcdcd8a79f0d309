"""optrace host helper for PyTorch / numpy users: save profiling buffers for `optrace collect`.

    import optrace
    out = my_op(x, ...)                  # the operator's last output is the profiling buffer
    torch_npu.npu.synchronize()          # the device must have finished writing it
    optrace.save_profiling_data(out[-1], rank, "profiling")   # -> ./profiling/rank<rank>.bin

then `optrace collect profiling --map build/point_map.json -o chrome_trace.json`.
"""
from .save import save_profiling_data, resolve_output_dir  # noqa: F401

__all__ = ["save_profiling_data", "resolve_output_dir"]
