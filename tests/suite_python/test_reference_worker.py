"""kernels/harness/python/reference_worker.py as the judge uses it: a subprocess speaking JSON lines,
inputs and outputs in files under /dev/shm, outputs checked against torch computed here."""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

from suite_test_support import HARNESS_PYTHON, HERE, require_torch

require_torch()
import torch  # noqa: E402

SOL = os.path.join(HERE, "sol")
KERNELBENCH = os.path.join(HERE, "kernelbench")
SHM = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


class WorkerTest(unittest.TestCase):
    """One worker per test class, started again only when a test has ended it: each start imports
    PyTorch (about 1.5 s of CPU), and the tests load what they use; a request the worker refuses
    leaves it serving, which the tests check."""

    _worker = None
    _stderr = None

    @classmethod
    def start_worker(cls):
        cls._stderr = tempfile.TemporaryFile()
        cls._worker = subprocess.Popen([sys.executable, os.path.join(HARNESS_PYTHON, "reference_worker.py")],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=cls._stderr,
                                       text=True)
        cls._next_id = 0

    @classmethod
    def stop_worker(cls):
        worker, cls._worker = cls._worker, None
        if worker is None:
            return
        if worker.poll() is None:
            worker.stdin.close()
            worker.wait(timeout=60)
        worker.stdout.close()
        if not worker.stdin.closed:
            worker.stdin.close()
        cls._stderr.close()

    @classmethod
    def tearDownClass(cls):
        cls.stop_worker()

    def setUp(self):
        cls = type(self)
        if cls._worker is None or cls._worker.poll() is not None:
            cls.stop_worker()
            cls.start_worker()
        self.worker, self.stderr = cls._worker, cls._stderr
        self.files = []

    def tearDown(self):
        for path in self.files:
            os.remove(path)

    @property
    def next_id(self):
        return type(self)._next_id

    @next_id.setter
    def next_id(self, value):
        type(self)._next_id = value

    def send_line(self, line):
        self.worker.stdin.write(line + "\n")
        self.worker.stdin.flush()
        answer = self.worker.stdout.readline()
        if not answer:
            self.stderr.seek(0)
            raise AssertionError(f"the worker ended: {self.stderr.read().decode()[-2000:]}")
        return json.loads(answer)

    def request(self, op, **fields):
        self.next_id += 1
        reply = self.send_line(json.dumps({"id": self.next_id, "op": op, **fields}))
        self.assertEqual(reply["id"], self.next_id)
        return reply

    def ok(self, op, **fields):
        reply = self.request(op, **fields)
        self.assertTrue(reply["ok"], reply)
        return reply

    def buffer(self, tensor, strides=None, offset=0):
        """A file under /dev/shm holding `tensor`'s elements (after `offset` bytes of padding)."""
        handle, path = tempfile.mkstemp(prefix="socratic-suite-test-", dir=SHM)
        os.close(handle)
        self.files.append(path)
        data = tensor.contiguous().view(-1)
        with open(path, "wb") as f:
            f.write(b"\0" * offset)
            f.write(data.view(torch.uint8).numpy().tobytes() if data.numel() else b"")
        spec = {"file": path, "dtype": str(tensor.dtype).replace("torch.", ""), "shape": list(tensor.shape)}
        if strides is not None:
            spec["strides"] = strides
        if offset:
            spec["offset"] = offset
        return spec

    def output_buffer(self, shape, dtype=torch.float32):
        return self.buffer(torch.full(shape, -7, dtype=dtype))

    @staticmethod
    def read(spec):
        dtype = getattr(torch, spec["dtype"])
        numel = 1
        for size in spec["shape"]:
            numel *= size
        return torch.from_file(spec["file"], shared=False, size=numel, dtype=dtype).view(spec["shape"])


class SolDefinitions(WorkerTest):
    def test_hello_names_the_protocol(self):
        reply = self.ok("hello")
        self.assertEqual(reply["protocol"], 1)
        # CUDA IPC buffers are offered exactly when this PyTorch has CUDA.
        self.assertEqual(reply["buffers"], ["file", "cuda_ipc"] if torch.cuda.is_available() else ["file"])
        self.assertIsInstance(reply["cuda"], bool)

    def test_rmsnorm_written_into_the_output_buffer(self):
        loaded = self.ok("load", definition=os.path.join(SOL, "rmsnorm_h64", "definition.json"))
        self.assertEqual((loaded["kind"], loaded["name"]), ("sol", "rmsnorm_h64"))
        self.assertEqual(loaded["inputs"], ["input", "weight", "eps"])
        self.assertEqual(loaded["outputs"], ["output"])
        x, w = torch.randn(3, 64), torch.rand(64) + 0.5
        out = self.output_buffer([3, 64])
        reply = self.ok("run", inputs={"input": self.buffer(x), "weight": self.buffer(w), "eps": 1e-6},
                        outputs={"output": out})
        self.assertEqual(reply["outputs"]["output"], {"ok": True, "dtype": "float32", "shape": [3, 64]})
        expected = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        self.assertTrue(torch.allclose(self.read(out), expected, atol=1e-6, rtol=1e-5))

    def test_two_outputs_and_strided_offset_buffers(self):
        self.ok("load", definition=os.path.join(SOL, "row_sum_and_argmax", "definition.json"))
        x = torch.randn(32, 5)  # stored column-major: x's transpose, read through strides [1, 5]
        view = {**self.buffer(x, offset=16), "shape": [5, 32], "strides": [1, 5]}
        total = self.output_buffer([5])
        largest = self.output_buffer([5], torch.int64)
        reply = self.ok("run", inputs={"x": view, "scale": 0.5}, outputs={"total": total, "largest": largest})
        self.assertEqual(reply["outputs"]["largest"]["dtype"], "int64")
        self.assertTrue(torch.allclose(self.read(total), x.t().sum(1) * 0.5, atol=1e-5))
        self.assertTrue(torch.equal(self.read(largest), x.t().argmax(1)))

    def test_a_reference_that_changes_its_input_leaves_the_judges_buffer_intact(self):
        definition = {"name": "add_in_place", "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
                      "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
                      "reference": "def run(x):\n    x.add_(1)\n    return x\n"}
        self.ok("load", definition=definition)
        x = torch.arange(6, dtype=torch.float32)
        given, out = self.buffer(x), self.output_buffer([6])
        self.ok("run", inputs={"x": given}, outputs={"y": out})
        self.assertTrue(torch.equal(self.read(out), x + 1))
        self.assertTrue(torch.equal(self.read(given), x))

    def test_custom_inputs_from_reference_py(self):
        self.ok("load", definition=os.path.join(SOL, "gather_rows", "definition.json"))
        table, index = self.output_buffer([10, 16]), self.output_buffer([7], torch.int64)
        reply = self.ok("make_inputs", seed=11, axes={"table_rows": 10, "picks": 7},
                        inputs={"table": table, "index": index})
        self.assertEqual(reply["inputs"]["index"], {"ok": True, "dtype": "int64", "shape": [7]})
        torch.manual_seed(11)
        expected_table = torch.randn(10, 16)
        expected_index = torch.randint(0, 10, (7,), dtype=torch.int64)
        self.assertTrue(torch.equal(self.read(table), expected_table))
        self.assertTrue(torch.equal(self.read(index), expected_index))
        rows = self.output_buffer([7, 16])
        self.ok("run", inputs={"table": table, "index": index}, outputs={"rows": rows})
        self.assertTrue(torch.equal(self.read(rows), expected_table[expected_index]))


    def write_safetensors(self, tensors):
        """A .safetensors file written here by hand (the format: an 8-byte header length, a JSON
        header of dtype, shape and data offsets, the data)."""
        names = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.bfloat16: "BF16"}
        header, data, offset = {}, b"", 0
        for key, t in tensors.items():
            raw = t.contiguous().view(-1).view(torch.uint8).numpy().tobytes()
            header[key] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
            data, offset = data + raw, offset + len(raw)
        header["__metadata__"] = {"format": "pt"}
        text = json.dumps(header).encode()
        handle, path = tempfile.mkstemp(prefix="socratic-suite-test-", suffix=".safetensors", dir=SHM)
        os.close(handle)
        self.files.append(path)
        with open(path, "wb") as f:
            f.write(len(text).to_bytes(8, "little") + text + data)
        return path

    def test_fill_inputs_custom_from_the_judges_seed_and_safetensors_from_the_file(self):
        self.ok("load", definition=os.path.join(SOL, "gather_rows", "definition.json"))
        stored = torch.randn(10, 16)
        path = self.write_safetensors({"weights": stored, "other": torch.arange(3, dtype=torch.int64)})
        table, index = self.output_buffer([10, 16]), self.output_buffer([7], torch.int64)
        sources = {"index": {"type": "custom"}, "table": {"type": "safetensors", "path": path, "tensor_key": "weights"}}
        reply = self.ok("fill_inputs", seed=123456789012345, axes={"table_rows": 10, "picks": 7},
                        inputs={"table": table, "index": index}, sources=sources)
        self.assertEqual(reply["inputs"]["index"], {"ok": True, "dtype": "int64", "shape": [7]})
        self.assertEqual(reply["inputs"]["table"], {"ok": True, "dtype": "float32", "shape": [10, 16]})
        self.assertTrue(torch.equal(self.read(table), stored))
        # custom: the entry point as SOL calls it, after torch.manual_seed(the judge's seed).
        torch.manual_seed(123456789012345)
        torch.randn(10, 16)
        expected_index = torch.randint(0, 10, (7,), dtype=torch.int64)
        self.assertTrue(torch.equal(self.read(index), expected_index))
        # Another round's seed, other values: nothing the candidate could know in advance.
        self.ok("fill_inputs", seed=987654321, axes={"table_rows": 10, "picks": 7},
                inputs={"index": index}, sources={"index": {"type": "custom"}})
        torch.manual_seed(987654321)
        torch.randn(10, 16)
        self.assertTrue(torch.equal(self.read(index), torch.randint(0, 10, (7,), dtype=torch.int64)))

    def test_fill_inputs_errors_name_the_file_the_key_and_the_definition(self):
        self.ok("load", definition=os.path.join(SOL, "gather_rows", "definition.json"))
        table = self.output_buffer([10, 16])
        wrong = self.write_safetensors({"weights": torch.randn(10, 16, dtype=torch.float64),
                                        "short": torch.randn(9, 16)})

        def refused(field, source, *fragments, **extra):
            fields = {"seed": 1, "inputs": {"table": table}, "sources": {"table": source}, **extra}
            reply = self.request("fill_inputs", **fields)
            self.assertFalse(reply["ok"], reply)
            self.assertEqual(reply["field"], field, reply)
            for fragment in fragments:
                self.assertIn(fragment, reply["error"])

        refused("sources.table", {"type": "safetensors", "path": wrong, "tensor_key": "weights"},
                f"{wrong} holds `weights` as float64 [10, 16]; the definition makes table float32 [10, 16]")
        refused("sources.table", {"type": "safetensors", "path": wrong, "tensor_key": "short"},
                "holds `short` as float32 [9, 16]; the definition makes table float32 [10, 16]")
        refused("sources.table", {"type": "safetensors", "path": wrong, "tensor_key": "bias"},
                "no tensor `bias` (its tensors: short, weights)")
        refused("sources.table", {"type": "safetensors", "path": "/no/such.safetensors", "tensor_key": "w"},
                "/no/such.safetensors: No such file or directory")
        refused("sources.table.type", {"type": "random"}, "must be custom, safetensors or model_state")
        refused("seed", {"type": "custom"}, "needs the judge's `seed`", seed=None)
        self.assertTrue(torch.equal(self.read(table), torch.full([10, 16], -7.0)))  # nothing written
        self.ok("hello")  # and the worker goes on


class ErrorReplies(WorkerTest):
    def load_rmsnorm(self):
        self.ok("load", definition=os.path.join(SOL, "rmsnorm_h64", "definition.json"))

    def refused(self, op, field, *fragments, **fields):
        reply = self.request(op, **fields)
        self.assertFalse(reply["ok"], reply)
        self.assertEqual(reply["field"], field, reply)
        for fragment in fragments:
            self.assertIn(fragment, reply["error"])
        return reply

    def test_an_exception_in_the_reference_is_a_reply_and_the_worker_goes_on(self):
        self.ok("load", definition={"name": "fails", "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
                                    "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
                                    "reference": "def run(x):\n    raise ValueError('no luck today')\n"})
        reply = self.request("run", inputs={"x": self.buffer(torch.ones(3))}, outputs={"y": self.output_buffer([3])})
        self.assertFalse(reply["ok"])
        self.assertTrue(reply["reference_raised"])
        self.assertIn("ValueError", reply["error"])
        self.assertIn("no luck today", reply["error"])
        self.assertIn("definition.reference:2", reply["error"])
        self.ok("hello")

    def test_malformed_lines(self):
        reply = self.send_line("{not json")
        self.assertFalse(reply["ok"])
        self.assertIn("not JSON", reply["error"])
        reply = self.send_line("[1, 2]")
        self.assertIn("a request is a JSON object", reply["error"])
        self.refused("dance", "op", "unknown op 'dance'")
        self.refused("run", "op", "no problem is loaded", inputs={})
        self.refused("time", "op", "no problem is loaded", inputs={}, outputs={})
        self.refused("load", "load", "exactly one of")

    def test_run_fields_named(self):
        self.load_rmsnorm()
        x, w = self.buffer(torch.randn(3, 64)), self.buffer(torch.ones(64))
        self.refused("run", "inputs.weight", "inputs.weight is missing", inputs={"input": x, "eps": 1e-6})
        self.refused("run", "inputs.bias", "has no input bias", inputs={"input": x, "weight": w, "eps": 1.0, "bias": w})
        self.refused("run", "inputs.eps", "the definition makes eps a scalar (shape null)",
                     inputs={"input": x, "weight": w, "eps": w})
        self.refused("run", "inputs.weight", "the definition makes weight a buffer",
                     inputs={"input": x, "weight": 1.0, "eps": 1e-6})
        self.refused("run", "inputs.input.dtype", "'float33' is not one of",
                     inputs={"input": {**x, "dtype": "float33"}, "weight": w, "eps": 1e-6})
        self.refused("run", "inputs.input.dtype", "inputs.input.dtype is int32; the definition says float32",
                     inputs={"input": {**x, "dtype": "int32"}, "weight": w, "eps": 1e-6})
        self.refused("run", "inputs.input.file", "holds 768 bytes; the view needs 1024",
                     inputs={"input": {**x, "shape": [4, 64]}, "weight": w, "eps": 1e-6})
        self.refused("run", "inputs.input.strides", "2 entries for a 1-d shape",
                     inputs={"input": {**x, "shape": [192], "strides": [1, 1]}, "weight": w, "eps": 1e-6})
        self.refused("run", "inputs.input.offset", "multiple of 4",
                     inputs={"input": {**x, "offset": 2}, "weight": w, "eps": 1e-6})
        self.refused("run", "inputs.input.file", "No such file",
                     inputs={"input": {**x, "file": "/dev/shm/socratic-no-such-buffer"}, "weight": w, "eps": 1e-6})

    def test_a_cuda_ipc_buffer_that_cannot_be_opened_is_named(self):
        # Without CUDA the path is refused as such; with CUDA a handle of zeros does not open.
        self.load_rmsnorm()
        w = self.buffer(torch.ones(64))
        ipc = {"cuda_ipc": "00" * 64, "device": 0, "dtype": "float32", "shape": [3, 64]}
        expected = ("cudaIpcOpenMemHandle failed" if torch.cuda.is_available()
                    else "CUDA IPC buffers are not supported on this build")
        self.refused("run", "inputs.input.cuda_ipc", expected, inputs={"input": ipc, "weight": w, "eps": 1e-6})

    def test_without_cuda_the_worker_offers_files_only_and_release_closes_nothing(self):
        hello = self.ok("hello")
        if torch.cuda.is_available():
            self.skipTest("this PyTorch has CUDA: the GPU test (tests/suite_gpu) covers cuda_ipc")
        self.assertEqual(hello["buffers"], ["file"])
        self.assertIn("release", hello["ops"])
        self.assertEqual(self.ok("release")["released"], 0)

    def test_outputs_as_converts_the_declared_dtype_into_the_judges_fp32_buffer(self):
        definition = {"name": "half_double", "inputs": {"x": {"shape": ["n"], "dtype": "bfloat16"}},
                      "outputs": {"y": {"shape": ["n"], "dtype": "bfloat16"}},
                      "reference": "import torch\ndef run(x):\n    return x * 2\n"}
        self.ok("load", definition=definition)
        x = torch.tensor([1.5, -3.0, 0.0078125, 100.0], dtype=torch.bfloat16)
        out = self.output_buffer([4])
        reply = self.ok("run", inputs={"x": self.buffer(x)}, outputs={"y": out}, outputs_as="float32")
        self.assertEqual(reply["outputs"]["y"]["dtype"], "bfloat16")
        self.assertTrue(torch.equal(self.read(out), (x * 2).float()))
        # The buffer must be outputs_as's dtype, and outputs_as a float type.
        wrong = self.output_buffer([4], dtype=torch.bfloat16)
        reply = self.request("run", inputs={"x": self.buffer(x)}, outputs={"y": wrong}, outputs_as="float32")
        self.assertFalse(reply["ok"])
        self.assertIn("the buffer is bfloat16 [4] (outputs_as float32)", reply["outputs"]["y"]["error"])
        self.refused("run", "outputs_as", "float32 or float64", inputs={"x": self.buffer(x)},
                     outputs={"y": out}, outputs_as="int8")

    def test_a_malformed_cuda_ipc_handle_is_named(self):
        sys.path.insert(0, HARNESS_PYTHON)
        import cuda_ipc
        from shared_buffers import RequestError
        with self.assertRaises(RequestError) as short:
            cuda_ipc._handle("inputs.x", "00" * 10)
        self.assertEqual(short.exception.field, "inputs.x.cuda_ipc")
        self.assertIn("128 hex digits", str(short.exception))
        with self.assertRaises(RequestError) as bad:
            cuda_ipc._handle("inputs.x", "zz" * 64)
        self.assertIn("not hexadecimal", str(bad.exception))
        self.assertEqual(len(bytes(cuda_ipc._handle("inputs.x", "ab" * 64).reserved)), 64)

    def test_an_output_of_the_wrong_shape_is_not_written(self):
        self.load_rmsnorm()
        x, w = self.buffer(torch.randn(3, 64)), self.buffer(torch.ones(64))
        out = self.output_buffer([64, 3])
        reply = self.request("run", inputs={"input": x, "weight": w, "eps": 1e-6}, outputs={"output": out})
        self.assertFalse(reply["ok"])
        check = reply["outputs"]["output"]
        self.assertFalse(check["ok"])
        self.assertIn("returned float32 [3, 64]; the buffer is float32 [64, 3]", check["error"])
        self.assertTrue(torch.equal(self.read(out), torch.full((64, 3), -7.0)))

    def test_load_errors_name_the_cause(self):
        self.refused("load", "definition", "No such file", definition=os.path.join(SOL, "nothing", "definition.json"))
        self.refused("load", "definition.reference", "definition.reference:2: syntax error",
                     definition={"name": "broken", "inputs": {}, "outputs": {}, "reference": "import torch\ndef run(:\n  pass\n"})
        self.refused("load", "definition.reference", "defines no run",
                     definition={"name": "empty", "inputs": {}, "outputs": {}, "reference": "x = 1\n"})
        self.refused("load", "definition.outputs", "no `outputs`", definition={"name": "half", "inputs": {}})
        self.refused("load", "kernelbench", "syntax error",
                     kernelbench=os.path.join(HERE, "kernelbench_odd", "syntax_error.py"))
        self.refused("load", "device", "device must be", kernelbench=os.path.join(KERNELBENCH, "1_Matmul_small.py"),
                     device="tpu")

    def test_quit_and_end_of_input_end_the_worker_cleanly(self):
        self.ok("quit")
        self.assertEqual(self.worker.wait(timeout=60), 0)


def _kernelbench_module(name):
    spec = importlib.util.spec_from_file_location(f"kb_{name}", os.path.join(KERNELBENCH, name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class KernelBenchFiles(WorkerTest):
    def test_matmul(self):
        loaded = self.ok("load", kernelbench=os.path.join(KERNELBENCH, "1_Matmul_small.py"))
        self.assertEqual((loaded["kind"], loaded["inputs"]), ("kernelbench", ["A", "B"]))
        a, b = torch.randn(64, 32), torch.randn(32, 48)
        out = self.output_buffer([64, 48])
        reply = self.ok("run", inputs={"A": self.buffer(a), "B": self.buffer(b)}, outputs={"output": out})
        self.assertEqual(reply["outputs"]["output"]["shape"], [64, 48])
        self.assertTrue(torch.allclose(self.read(out), a @ b, atol=1e-5, rtol=1e-5))

    def test_conv_weights_are_seeded_as_kernelbench_seeds_them(self):
        self.ok("load", kernelbench=os.path.join(KERNELBENCH, "3_Conv2d_BatchNorm_ReLU.py"))
        module = _kernelbench_module("3_Conv2d_BatchNorm_ReLU.py")
        torch.manual_seed(42)
        init = module.get_init_inputs()
        torch.manual_seed(42)
        model = module.Model(*init)
        x = torch.randn(2, 3, 16, 16)
        out = self.output_buffer([2, 8, 14, 14])
        self.ok("run", inputs={"x": self.buffer(x)}, outputs={"output": out})
        with torch.no_grad():
            self.assertTrue(torch.allclose(self.read(out), model(x), atol=1e-5, rtol=1e-5))

    def test_the_models_state_filled_into_the_judges_buffers(self):
        loaded = self.ok("load", kernelbench=os.path.join(KERNELBENCH, "3_Conv2d_BatchNorm_ReLU.py"))
        self.assertEqual(loaded["inputs"][:3], ["x", "conv_weight", "conv_bias"])
        module = _kernelbench_module("3_Conv2d_BatchNorm_ReLU.py")
        torch.manual_seed(42)
        init = module.get_init_inputs()
        torch.manual_seed(42)
        model = module.Model(*init)
        weight, bias, count = self.output_buffer([8, 3, 3, 3]), self.output_buffer([8]), self.output_buffer([], torch.int64)
        sources = {"conv_weight": {"type": "model_state", "key": "conv.weight"},
                   "conv_bias": {"type": "model_state", "key": "conv.bias"},
                   "norm_num_batches_tracked": {"type": "model_state", "key": "norm.num_batches_tracked"}}
        self.ok("fill_inputs", seed=7, inputs={"conv_weight": weight, "conv_bias": bias,
                                               "norm_num_batches_tracked": count}, sources=sources)
        self.assertTrue(torch.equal(self.read(weight), model.conv.weight.detach()))
        self.assertTrue(torch.equal(self.read(bias), model.conv.bias.detach()))
        # A key that is not the input's, or an input that is no state: refused, naming it.
        wrong = self.request("fill_inputs", seed=7, inputs={"conv_weight": weight},
                             sources={"conv_weight": {"type": "model_state", "key": "conv.bias"}})
        self.assertFalse(wrong["ok"])
        self.assertIn("conv_weight is the Model's 'conv.weight'", wrong["error"])
        x_buffer = self.output_buffer([2, 3, 16, 16])
        notstate = self.request("fill_inputs", seed=7, inputs={"x": x_buffer},
                                sources={"x": {"type": "model_state", "key": "x"}})
        self.assertFalse(notstate["ok"])
        self.assertIn("x is not a tensor of", notstate["error"])
        # The reference computes with its own Model: run takes the state inputs or leaves them out.
        x = torch.randn(2, 3, 16, 16)
        out = self.output_buffer([2, 8, 14, 14])
        self.ok("run", inputs={"x": self.buffer(x), "conv_weight": weight}, outputs={"output": out})
        with torch.no_grad():
            self.assertTrue(torch.allclose(self.read(out), model(x), atol=1e-5, rtol=1e-5))

    def test_scalar_input_and_learned_weight(self):
        self.ok("load", kernelbench=os.path.join(KERNELBENCH, "4_RMSNorm_eps.py"))
        module = _kernelbench_module("4_RMSNorm_eps.py")
        torch.manual_seed(42)
        model = module.Model(*module.get_init_inputs())
        x = torch.randn(8, 40)
        out = self.output_buffer([8, 40])
        self.ok("run", inputs={"x": self.buffer(x), "eps": 1e-5}, outputs={"output": out})
        with torch.no_grad():
            self.assertTrue(torch.allclose(self.read(out), model(x, 1e-5), atol=1e-6, rtol=1e-5))

    def test_two_outputs_and_the_problems_own_inputs(self):
        self.ok("load", kernelbench=os.path.join(KERNELBENCH, "5_Softmax_and_argmax.py"))
        logits = self.output_buffer([6, 50])
        self.ok("make_inputs", seed=3, inputs={"logits": logits})
        torch.manual_seed(3)
        expected = torch.randn(6, 50)
        self.assertTrue(torch.equal(self.read(logits), expected))
        soft, arg = self.output_buffer([6, 50]), self.output_buffer([6], torch.int64)
        reply = self.ok("run", inputs={"logits": logits}, outputs={"output_0": soft, "output_1": arg})
        self.assertEqual(set(reply["outputs"]), {"output_0", "output_1"})
        self.assertTrue(torch.allclose(self.read(soft), torch.softmax(expected, 1), atol=1e-6))
        self.assertTrue(torch.equal(self.read(arg), expected.argmax(1)))

    def test_the_problems_prints_do_not_break_the_protocol(self):
        self.ok("load", kernelbench=os.path.join(HERE, "kernelbench_odd", "prints_while_loading.py"))
        out = self.output_buffer([12])
        x = torch.randn(12)
        self.ok("run", inputs={"x": self.buffer(x)}, outputs={"output": out})
        self.assertTrue(torch.equal(self.read(out), x * 2))


if __name__ == "__main__":
    unittest.main(verbosity=2)
