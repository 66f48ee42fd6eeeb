"""The reference worker's `time` op (the suite's eager / torch.compile baseline, timed by the judge's
protocol): in-process on CPU, with the worker's seams (its timer, its compiler) replaced by
recorders, so that what lies inside the timed interval, the warm-up before the first timed call and
the compiled form are checked here; the CUDA events and the IPC buffers are the device test's
(tests/suite_gpu/device_check.sh)."""

import json
import os
import sys
import tempfile
import unittest

from suite_test_support import HARNESS_PYTHON, HERE, require_torch

require_torch()
import torch  # noqa: E402

sys.path.insert(0, HARNESS_PYTHON)
import reference_worker  # noqa: E402

SOL = os.path.join(HERE, "sol")
SHM = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


class Log(list):
    pass


def recording_timer(log):
    class RecordingTimer(reference_worker.CpuTimer):
        def prepare(self):
            log.append("prepare")

        def start(self):
            log.append("start")
            super().start()

        def stop(self):
            super().stop()
            log.append("stop")

        def elapsed_ms(self):
            log.append("elapsed")
            return super().elapsed_ms()
    return RecordingTimer


class TimeOp(unittest.TestCase):
    def setUp(self):
        self.files = []
        self.log = Log()
        self.worker = reference_worker.Worker()
        self.worker.timers = {"cpu": recording_timer(self.log)}
        self.next_id = 0

    def tearDown(self):
        for path in self.files:
            os.remove(path)

    # -- helpers (as test_reference_worker.py, in-process) --

    def request(self, op, **fields):
        self.next_id += 1
        reply = self.worker.handle(json.dumps({"id": self.next_id, "op": op, **fields}))
        self.assertEqual(reply["id"], self.next_id)
        return reply

    def ok(self, op, **fields):
        reply = self.request(op, **fields)
        self.assertTrue(reply["ok"], reply)
        return reply

    def buffer(self, tensor):
        handle, path = tempfile.mkstemp(prefix="socratic-time-test-", dir=SHM)
        os.close(handle)
        self.files.append(path)
        data = tensor.contiguous().view(-1)
        with open(path, "wb") as f:
            f.write(data.view(torch.uint8).numpy().tobytes() if data.numel() else b"")
        return {"file": path, "dtype": str(tensor.dtype).replace("torch.", ""), "shape": list(tensor.shape)}

    def output_buffer(self, shape, dtype=torch.float32):
        return self.buffer(torch.full(shape, -7, dtype=dtype))

    @staticmethod
    def read(spec):
        dtype = getattr(torch, spec["dtype"])
        numel = 1
        for size in spec["shape"]:
            numel *= size
        return torch.from_file(spec["file"], shared=False, size=numel, dtype=dtype).view(spec["shape"])

    def record_reference_calls(self):
        """Every call of the reference (eager or compiled) goes into the log as `reference`."""
        problem = self.worker.problem
        inner = problem.run_with

        def run_with(function, inputs):
            self.log.append("reference")
            return inner(function, inputs)
        problem.run_with = run_with

    def record_steps(self):
        for name, label in (("_flush_l2", "flush"), ("_deliver_all", "deliver"), ("_inputs", "inputs")):
            inner = getattr(self.worker, name)

            def wrapped(*args, _inner=inner, _label=label, **kwargs):
                self.log.append(_label)
                return _inner(*args, **kwargs)
            setattr(self.worker, name, wrapped)

    def bf16_double(self):
        definition = {"name": "bf16_double", "inputs": {"x": {"shape": ["n"], "dtype": "bfloat16"}},
                      "outputs": {"y": {"shape": ["n"], "dtype": "bfloat16"}},
                      "reference": "def run(x):\n    return x * 2\n"}
        return definition

    # -- the tests --

    def test_the_interval_holds_the_reference_call_alone(self):
        self.ok("load", definition=os.path.join(SOL, "rmsnorm_h64", "definition.json"))
        self.record_reference_calls()
        self.record_steps()
        x, w = torch.randn(3, 64), torch.rand(64) + 0.5
        out = self.output_buffer([3, 64])
        reply = self.ok("time", inputs={"input": self.buffer(x), "weight": self.buffer(w), "eps": 1e-6},
                        outputs={"output": out})
        # Inputs copied, warmed (first call on this signature), flushed and waited for, then the
        # interval around the reference, then the copy into the judge's buffer, then the reading.
        self.assertEqual(self.log, ["inputs", "reference", "reference", "flush", "prepare", "start", "reference",
                                    "stop", "deliver", "elapsed"])
        self.assertEqual(reply["clock"], "cpu")
        self.assertEqual(reply["warm_calls"], reference_worker.WARM_CALLS)
        self.assertFalse(reply["compiled"])
        self.assertGreater(reply["event_ms"], 0)
        expected = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        self.assertTrue(torch.allclose(self.read(out), expected, atol=1e-6, rtol=1e-5))
        # The same signature again: no warm-up, one reference call, inside the interval.
        del self.log[:]
        reply = self.ok("time", inputs={"input": self.buffer(x), "weight": self.buffer(w), "eps": 1e-6},
                        outputs={"output": out})
        self.assertEqual(self.log, ["inputs", "flush", "prepare", "start", "reference", "stop", "deliver", "elapsed"])
        self.assertEqual(reply["warm_calls"], 0)
        # Another shape, or another scalar value, is a new signature: warmed again.
        for x2, eps in ((torch.randn(5, 64), 1e-6), (x, 1e-5)):
            del self.log[:]
            out2 = self.output_buffer(list(x2.shape))
            reply = self.ok("time", inputs={"input": self.buffer(x2), "weight": self.buffer(w), "eps": eps},
                            outputs={"output": out2})
            self.assertEqual(reply["warm_calls"], reference_worker.WARM_CALLS)
            self.assertEqual(self.log.count("reference"), 1 + reference_worker.WARM_CALLS)

    def test_the_interval_measures_the_reference(self):
        definition = {"name": "slow", "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
                      "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
                      "reference": "import time\ndef run(x):\n    time.sleep(0.03)\n    return x + 1\n"}
        self.ok("load", definition=definition)
        reply = self.ok("time", inputs={"x": self.buffer(torch.ones(4))}, outputs={"y": self.output_buffer([4])})
        self.assertGreaterEqual(reply["event_ms"], 30)
        self.assertLess(reply["event_ms"], 1000)

    def test_outputs_are_written_in_their_own_dtype_never_cast(self):
        self.ok("load", definition=self.bf16_double())
        x = torch.tensor([1.5, -3.0, 0.0078125, 100.0], dtype=torch.bfloat16)
        out = self.output_buffer([4], torch.bfloat16)
        reply = self.ok("time", inputs={"x": self.buffer(x)}, outputs={"y": out})
        self.assertEqual(reply["outputs"]["y"], {"ok": True, "dtype": "bfloat16", "shape": [4]})
        self.assertTrue(torch.equal(self.read(out), x * 2))
        # An fp32 buffer for a bf16 output is refused, and left as it was.
        wrong = self.output_buffer([4])
        reply = self.request("time", inputs={"x": self.buffer(x)}, outputs={"y": wrong})
        self.assertFalse(reply["ok"])
        self.assertIn("returned bfloat16 [4]; the buffer is float32 [4]", reply["outputs"]["y"]["error"])
        self.assertTrue(torch.equal(self.read(wrong), torch.full((4,), -7.0)))

    def test_a_reference_that_changes_its_inputs_times_the_judges_values(self):
        # The warm-up calls run on copies of their own: the timed call sees the judge's inputs, and
        # the judge's buffer is left as it was.
        definition = {"name": "add_in_place", "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
                      "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
                      "reference": "def run(x):\n    x.add_(1)\n    return x\n"}
        self.ok("load", definition=definition)
        x = torch.arange(6, dtype=torch.float32)
        given, out = self.buffer(x), self.output_buffer([6])
        self.ok("time", inputs={"x": given}, outputs={"y": out})
        self.assertTrue(torch.equal(self.read(out), x + 1))
        self.assertTrue(torch.equal(self.read(given), x))

    def test_compile_times_the_compiled_form_warmed_first_and_references_stay_eager(self):
        compiled_calls, compiles = [], []

        def fake_compile(function):
            compiles.append(function)

            def compiled(*args, **kwargs):
                compiled_calls.append(len(self.log))
                self.log.append("compiled")
                return function(*args, **kwargs)
            return compiled
        self.worker.compiler = fake_compile
        loaded = self.ok("load", definition=self.bf16_double(), compile=True)
        self.assertTrue(loaded["compile"])
        self.assertEqual(compiles, [self.worker.problem.function])
        x = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
        out = self.output_buffer([2], torch.bfloat16)
        reply = self.ok("time", inputs={"x": self.buffer(x)}, outputs={"y": out})
        self.assertTrue(reply["compiled"])
        # Compiled (on its first call) and warmed before the interval; the interval times it too.
        self.assertEqual(self.log, ["compiled"] * reference_worker.WARM_CALLS + ["prepare", "start", "compiled",
                                                                                 "stop", "elapsed"])
        # The fp32 reference (`run`) is the reference as written, never the compiled form.
        del self.log[:]
        ref = self.output_buffer([2])
        self.ok("run", inputs={"x": self.buffer(x)}, outputs={"y": ref}, outputs_as="float32")
        self.assertEqual(self.log, [])
        self.assertTrue(torch.equal(self.read(ref), (x * 2).float()))
        self.assertEqual(len(compiles), 1)
        # A new load without compile times the eager reference.
        self.ok("load", definition=self.bf16_double())
        del self.log[:]
        self.ok("time", inputs={"x": self.buffer(x)}, outputs={"y": out})
        self.assertNotIn("compiled", self.log)

    def test_compile_refusals_name_the_field(self):
        reply = self.request("load", definition=self.bf16_double(), compile="yes")
        self.assertEqual((reply["ok"], reply["field"]), (False, "compile"))
        self.worker.compiler = None  # a PyTorch without torch.compile (Debian's 1.13)
        reply = self.request("load", definition=self.bf16_double(), compile=True)
        self.assertEqual((reply["ok"], reply["field"]), (False, "compile"))
        self.assertIn("has no torch.compile", reply["error"])
        self.assertIsNone(self.worker.problem)

    def test_time_needs_a_loaded_problem_and_output_buffers(self):
        reply = self.request("time", inputs={}, outputs={})
        self.assertEqual((reply["ok"], reply["field"]), (False, "op"))
        self.ok("load", definition=self.bf16_double())
        reply = self.request("time", inputs={"x": self.buffer(torch.ones(2, dtype=torch.bfloat16))})
        self.assertEqual((reply["ok"], reply["field"]), (False, "outputs"))
        reply = self.request("time", inputs={"x": self.buffer(torch.ones(2, dtype=torch.bfloat16))},
                             outputs={"z": self.output_buffer([2], torch.bfloat16)})
        self.assertFalse(reply["ok"])
        self.assertIn("none named z", reply["outputs"]["z"]["error"])

    def test_kernelbench_models_are_timed_too(self):
        self.ok("load", kernelbench=os.path.join(HERE, "kernelbench", "1_Matmul_small.py"))
        a, b = torch.randn(64, 32), torch.randn(32, 48)
        out = self.output_buffer([64, 48])
        reply = self.ok("time", inputs={"A": self.buffer(a), "B": self.buffer(b)}, outputs={"output": out})
        self.assertGreater(reply["event_ms"], 0)
        self.assertTrue(torch.allclose(self.read(out), a @ b, atol=1e-5, rtol=1e-5))

    def test_hello_offers_time_and_says_whether_it_can_compile(self):
        reply = self.ok("hello")
        self.assertIn("time", reply["ops"])
        self.assertEqual(reply["compile"], hasattr(torch, "compile"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
