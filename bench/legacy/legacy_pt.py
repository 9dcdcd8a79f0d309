"""Legacy torch.save files without torch: write and read rank<NNN>.pt the way torch does.

torch.save (zip format) writes a zip of stored entries:
    <archive>/data.pkl     pickle (protocol 2) of the object; tensors refer to storages by
                           persistent id ('storage', torch.LongStorage, key, location, numel)
    <archive>/byteorder    "little"
    <archive>/data/<key>   raw storage bytes
    <archive>/version      "3"
write_pt() emits the same opcodes torch emits for a list of int64 tensors (or one tensor);
read_pt() loads such a file with zipfile + a restricted Unpickler into numpy arrays.
Standard library and numpy only.
"""
import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np


class _PickleWriter:
    """Hand-rolled protocol-2 pickle emitter mirroring torch.save's output for tensors."""

    def __init__(self):
        self.out = io.BytesIO()
        self.memo = 0
        self.globals = {}  # torch memoizes each global once and refers back with BINGET

    def op(self, b):
        self.out.write(b)

    def put(self):
        if self.memo < 256:
            self.op(b"q" + bytes([self.memo]))
        else:
            self.op(b"r" + struct.pack("<I", self.memo))
        self.memo += 1

    def glob(self, module, name):
        if (module, name) in self.globals:
            idx = self.globals[(module, name)]
            self.op(b"h" + bytes([idx]) if idx < 256 else b"j" + struct.pack("<I", idx))
            return
        self.op(b"c" + module.encode() + b"\n" + name.encode() + b"\n")
        self.globals[(module, name)] = self.memo
        self.put()

    def string(self, s):
        data = s.encode("utf-8")
        self.op(b"X" + struct.pack("<I", len(data)) + data)
        self.put()

    def integer(self, v):
        if 0 <= v < 256:
            self.op(b"K" + bytes([v]))
        elif 0 <= v < 65536:
            self.op(b"M" + struct.pack("<H", v))
        elif -2**31 <= v < 2**31:
            self.op(b"J" + struct.pack("<i", v))
        else:
            raw = v.to_bytes(8, "little", signed=True)
            self.op(b"\x8a" + bytes([8]) + raw)

    def int_tuple(self, values):
        if len(values) == 0:
            self.op(b")")
        elif len(values) <= 3:
            for v in values:
                self.integer(v)
            self.op(bytes([0x84 + len(values)]))
        else:
            self.op(b"(")
            for v in values:
                self.integer(v)
            self.op(b"t")
        self.put()

    def tensor(self, key, shape, numel, storage_type="LongStorage", offset=0):
        # _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks)
        self.glob("torch._utils", "_rebuild_tensor_v2")
        self.op(b"(")
        self.op(b"(")
        self.string("storage")
        self.glob("torch", storage_type)
        self.string(key)
        self.string("cpu")
        self.integer(numel)
        self.op(b"t")
        self.put()
        self.op(b"Q")
        self.integer(offset)
        self.int_tuple(list(shape))
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
        self.int_tuple(strides)
        self.op(b"\x89")  # requires_grad False
        self.glob("collections", "OrderedDict")
        self.op(b")")
        self.put()
        self.op(b"R")
        self.put()
        self.op(b"t")
        self.put()
        self.op(b"R")
        self.put()


def write_pt(path, tensors, bare=False, storage_type="LongStorage", storage_pad=0):
    """Writes `tensors` (int64 numpy arrays) as torch.save would: a list, or one tensor if bare.
    storage_pad > 0: each tensor is a view into a larger storage, as torch.save writes a slice:
    storage_pad values before it (the tensor's storage offset) and storage_pad after it."""
    archive = os.path.splitext(os.path.basename(path))[0]
    w = _PickleWriter()
    w.op(b"\x80\x02")
    if not bare:
        w.op(b"]")
        w.put()
        w.op(b"(")
    for key, t in enumerate(tensors):
        w.tensor(str(key), t.shape, int(t.size) + 2 * storage_pad, storage_type, offset=storage_pad)
    if not bare:
        w.op(b"e")
    w.op(b".")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(f"{archive}/data.pkl", w.out.getvalue())
        z.writestr(f"{archive}/byteorder", "little")
        for key, t in enumerate(tensors):
            pad = np.full(storage_pad, 7, dtype="<i8").tobytes()
            z.writestr(f"{archive}/data/{key}", pad + np.ascontiguousarray(t, dtype="<i8").tobytes() + pad)
        z.writestr(f"{archive}/version", "3\n")


class _Storage:
    def __init__(self, array):
        self.array = array


def _rebuild_tensor_v2(storage, offset, size, stride, *rest):
    flat = storage.array
    if len(size) == 0:
        return flat[offset:offset + 1].reshape(())
    itemsize = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=tuple(size),
                                           strides=tuple(s * itemsize for s in stride)).copy()


class _LongStorage:
    dtype = np.dtype("<i8")


class _TorchUnpickler(pickle.Unpickler):
    def __init__(self, f, zf, prefix):
        super().__init__(f)
        self.zf = zf
        self.prefix = prefix

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if (module, name) == ("torch", "LongStorage"):
            return _LongStorage
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        raise pickle.UnpicklingError(f"unsupported global {module}.{name}")

    def persistent_load(self, pid):
        kind, storage_type, key, _location, numel = pid
        if kind != "storage" or storage_type is not _LongStorage:
            raise pickle.UnpicklingError("not an int64 storage")
        data = self.zf.read(f"{self.prefix}data/{key}")
        return _Storage(np.frombuffer(data, dtype="<i8", count=numel))


def read_pt(path):
    """Returns a list of int64 numpy arrays (a bare tensor becomes a one-item list)."""
    with zipfile.ZipFile(path) as zf:
        pkl = next(n for n in zf.namelist() if n.endswith("/data.pkl"))
        prefix = pkl[:-len("data.pkl")]
        obj = _TorchUnpickler(io.BytesIO(zf.read(pkl)), zf, prefix).load()
    if isinstance(obj, np.ndarray):
        return [obj]
    return list(obj)
