"""Tests of python/optrace's save_profiling_data with numpy (torch is duck-typed)."""
import os
import struct
import tempfile
import unittest

import numpy as np

import optrace


class FakeTensor:
    """Just enough of a torch tensor: detach().cpu().numpy()."""

    def __init__(self, array):
        self.array = array
        self.calls = []

    def detach(self):
        self.calls.append("detach")
        return self

    def cpu(self):
        self.calls.append("cpu")
        return self

    def numpy(self):
        self.calls.append("numpy")
        return self.array


def one_slot():
    """A minimal v1 slot: magic|version|header words, then a few non-zero words."""
    words = np.zeros(16, dtype=np.int64)
    words[0] = 0x5254504F | (1 << 32) | (8 << 48)
    words[1] = 2
    words[5] = 1
    words[8] = 42
    return words


class SaveProfilingDataTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.old_cwd = os.getcwd()
        os.chdir(self.tmp.name)
        self.addCleanup(os.chdir, self.old_cwd)

    def test_writes_raw_int64_bytes_as_rank_file(self):
        words = one_slot()
        path = optrace.save_profiling_data(words, 3, "out")
        self.assertEqual(path, os.path.join(os.path.realpath(self.tmp.name), "out", "rank3.bin"))
        with open(path, "rb") as f:
            data = f.read()
        self.assertEqual(len(data), 16 * 8)
        self.assertEqual(struct.unpack("<q", data[64:72])[0], 42)

    def test_relative_dir_resolves_against_the_callers_cwd_not_the_module(self):
        path = optrace.save_profiling_data(one_slot(), 0, "nested/dir")
        self.assertTrue(path.startswith(os.path.realpath(self.tmp.name)))
        module_dir = os.path.dirname(os.path.abspath(optrace.__file__))
        self.assertFalse(path.startswith(module_dir))
        self.assertTrue(os.path.exists(os.path.join(self.tmp.name, "nested", "dir", "rank0.bin")))

    def test_accepts_the_seeds_signature_and_default_directory(self):
        # Seed 000: save_profiling_data(profiling_raw, rank_id, output_dir="profiling_data", base_h_path=None).
        path = optrace.save_profiling_data(profiling_raw=one_slot(), rank_id=2, base_h_path="op_kernel/moe_base.h")
        self.assertEqual(path, os.path.join(os.getcwd(), "profiling_data", "rank2.bin"))
        self.assertTrue(os.path.exists(path))
        path = optrace.save_profiling_data(one_slot(), 1, "dumps", None)
        self.assertEqual(path, os.path.join(os.getcwd(), "dumps", "rank1.bin"))

    def test_unknown_keyword_is_a_type_error(self):
        with self.assertRaises(TypeError):
            optrace.save_profiling_data(one_slot(), 0, outdir="x")

    def test_accepts_a_torch_like_tensor(self):
        t = FakeTensor(one_slot())
        path = optrace.save_profiling_data(t, 1, "out")
        self.assertEqual(t.calls, ["detach", "cpu", "numpy"])
        self.assertTrue(os.path.exists(path))

    def test_refuses_an_all_zero_buffer_with_the_synchronise_hint(self):
        with self.assertRaises(ValueError) as ctx:
            optrace.save_profiling_data(np.zeros(64, dtype=np.int64), 0, "out")
        self.assertIn("synchronize()", str(ctx.exception))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "out", "rank0.bin")))

    def test_refuses_a_buffer_that_is_not_int64(self):
        with self.assertRaises(TypeError):
            optrace.save_profiling_data(np.ones(8, dtype=np.float32), 0, "out")

    def test_refuses_a_negative_rank(self):
        with self.assertRaises(ValueError):
            optrace.save_profiling_data(one_slot(), -1, "out")

    def test_multi_dimensional_buffers_are_flattened_in_row_major_order(self):
        words = np.stack([one_slot(), one_slot()])
        path = optrace.save_profiling_data(words, 0, "out")
        self.assertEqual(os.path.getsize(path), 2 * 16 * 8)


if __name__ == "__main__":
    unittest.main()
