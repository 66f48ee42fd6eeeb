#!/usr/bin/env python3
"""reference_worker.py: the judge's trusted PyTorch reference, in a process of its own.

The judge starts it once per evaluation and speaks JSON lines: one request per line on stdin, one
reply per line on stdout (docs/reference-worker.md). It loads a problem (a SOL-ExecBench or
FlashInfer-Bench definition, or a KernelBench file), then runs the reference on the judge's input
buffers and writes the outputs into the judge's output buffers, so the expected outputs stay in the
judge's memory and never reach the candidate. Every request gets a reply: a malformed one names the
field at fault, an exception in the reference names the exception; neither ends the worker.

It is also the suite's baseline when the judge asks (`time`): the reference in eager PyTorch, or
`torch.compile` of it when the load asked for it, run on the judge's inputs and timed by CUDA events
on the worker's own stream around the reference call alone; the judge interleaves it with the
candidate and checks its outputs as it checks a native baseline's.
"""

import contextlib
import json
import math
import os
import sys
import time as _time

sys.dont_write_bytecode = True  # the folder ships read-only with the kernels' data

import torch  # noqa: E402

import dtype_names  # noqa: E402
from reference_problems import KernelBenchReference, ReferenceRaised, SolReference  # noqa: E402
from safetensors_file import SafetensorsError, load_tensor  # noqa: E402
from shared_buffers import RequestError, open_buffer  # noqa: E402

PROTOCOL = 1
OPS = ("hello", "load", "run", "time", "make_inputs", "fill_inputs", "release", "quit")
# Untimed calls of the timed function before its first timed call on a new signature (shapes,
# dtypes, strides, scalar values): torch.compile compiles on the first, lazy initialisation
# (cuBLAS handles, autotuning) settles by the second.
WARM_CALLS = 2
# The L2 flush before a timed call reads at least this many bytes (the judge flushes >= 2x L2).
MIN_FLUSH_BYTES = 128 << 20


def _json_scalar(value):
    """A Python or 0-d result as JSON; NaN and infinities as strings (JSON has none)."""
    if isinstance(value, torch.Tensor):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def _is_scalar(value):
    return isinstance(value, (bool, int, float))


class CudaTimer:
    """CUDA events on the worker's stream. `prepare` waits for everything queued before the interval
    (the private copies of the inputs, the L2 flush), so that the start event lands on an idle GPU
    and the interval holds the reference's host-side launch work, as an unheld native call's does."""

    clock = "cuda_events"

    def __init__(self, stream):
        self.stream = stream
        self.begin = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def prepare(self):
        self.stream.synchronize()

    def start(self):
        self.begin.record(self.stream)

    def stop(self):
        self.end.record(self.stream)

    def elapsed_ms(self):
        self.end.synchronize()
        return float(self.begin.elapsed_time(self.end))


class CpuTimer:
    """A CPU reference has no events: the process's monotonic clock around the call."""

    clock = "cpu"

    def __init__(self, stream=None):
        self.begin = self.end = 0.0

    def prepare(self):
        pass

    def start(self):
        self.begin = _time.perf_counter()

    def stop(self):
        self.end = _time.perf_counter()

    def elapsed_ms(self):
        return (self.end - self.begin) * 1e3


def _signature(inputs):
    """What makes torch.compile (or a library's lazy set-up) start over: each input's dtype, shape
    and strides, each scalar's value."""
    key = []
    for name in sorted(inputs):
        value = inputs[name]
        if isinstance(value, torch.Tensor):
            key.append((name, str(value.dtype), tuple(value.shape), tuple(value.stride())))
        else:
            key.append((name, repr(value)))
    return tuple(key)


def _private_copies(inputs):
    return {name: value.clone() if isinstance(value, torch.Tensor) else value for name, value in inputs.items()}


class Worker:
    # Seams for the CPU tests: what compiles the reference, and the timer of each device type.
    compiler = staticmethod(getattr(torch, "compile", None))
    timers = {"cuda": CudaTimer, "cpu": CpuTimer}

    def __init__(self):
        self.problem = None
        self.done = False
        self.compile = False
        self.timed_function = None  # the loaded reference, or its compiled form
        self.warm = set()           # signatures the timed function has been warmed on
        self.stream = None
        self.flush_buffer = None

    # -- requests ------------------------------------------------------------------------------

    def hello(self, request):
        return {"worker": "socratic-reference-worker", "protocol": PROTOCOL, "torch": torch.__version__,
                "cuda": torch.cuda.is_available(),
                "buffers": ["file", "cuda_ipc"] if torch.cuda.is_available() else ["file"],
                "ops": list(OPS), "compile": self.compiler is not None}

    def load(self, request):
        kinds = [key for key in ("definition", "kernelbench") if key in request]
        if len(kinds) != 1:
            raise RequestError("load", "load takes exactly one of `definition` (a SOL/FlashInfer-Bench "
                                       "definition.json or its object) and `kernelbench` (a problem file)")
        compile_it = request.get("compile", False)
        if not isinstance(compile_it, bool):
            raise RequestError("compile", f"compile must be true or false, not {compile_it!r}")
        if compile_it and self.compiler is None:
            raise RequestError("compile", f"compile: this PyTorch ({torch.__version__}) has no torch.compile "
                                          "(PyTorch 2 or later)")
        self.problem, self.timed_function, self.compile = None, None, False
        self.warm = set()
        self.problem = SolReference(request) if kinds[0] == "definition" else KernelBenchReference(request)
        # The fp32 references (`run`) always come from the reference as written; only `time` uses
        # the compiled form. torch.compile is lazy: it compiles on the first warm-up call of `time`.
        self.compile = compile_it
        self.timed_function = self.compiler(self.problem.function) if compile_it else self.problem.function
        return {"kind": self.problem.kind, "name": self.problem.name, "inputs": self.problem.input_names,
                "outputs": self.problem.output_names, "compile": compile_it}

    def run(self, request):
        problem = self._loaded()
        inputs = self._inputs(request.get("inputs"))
        buffers = self._output_buffers(request.get("outputs"))
        outputs_as = self._outputs_as(request)
        if "seed" in request:
            torch.manual_seed(self._integer(request, "seed"))
        results, count = problem.run(inputs)
        ok, reply_outputs = self._deliver_all(results, count, buffers, outputs_as)
        self._synchronize()
        return {"ok": ok, "outputs": reply_outputs}

    def time(self, request):
        """The baseline's timed call: the loaded reference (compiled when the load asked) on private
        copies of the judge's inputs, timed around the reference call alone; then its results, in
        their own dtype, copied into the judge's output buffers, outside the interval."""
        problem = self._loaded()
        buffers = self._output_buffers(request.get("outputs"))
        if not buffers:
            raise RequestError("outputs", "time writes the reference's outputs into the judge's buffers: "
                                          "give one per output")
        timer = self.timers[problem.device.type](self._stream())
        with self._on_stream():
            inputs = self._inputs(request.get("inputs"))
            signature = _signature(inputs)
            warm_calls = 0
            if signature not in self.warm:
                for _ in range(WARM_CALLS):  # each on fresh copies: a reference may change its inputs
                    problem.run_with(self.timed_function, _private_copies(inputs))
                    warm_calls += 1
                self.warm.add(signature)
            self._flush_l2()
            timer.prepare()
            timer.start()
            results, count = problem.run_with(self.timed_function, inputs)
            timer.stop()
            ok, reply_outputs = self._deliver_all(results, count, buffers)
            event_ms = timer.elapsed_ms()
        self._synchronize()
        return {"ok": ok, "outputs": reply_outputs, "event_ms": event_ms, "clock": timer.clock,
                "warm_calls": warm_calls, "compiled": self.compile}

    def make_inputs(self, request):
        problem = self._loaded()
        buffers = self._output_buffers(request.get("inputs"), field="inputs")
        generated = problem.make_inputs(request)
        reply_inputs, ok = {}, True
        for name, value in generated.items():
            check = self._deliver(f"inputs.{name}", value, buffers.get(name))
            ok = ok and check["ok"]
            reply_inputs[name] = check
        for name in buffers:
            if name not in generated:
                ok = False
                reply_inputs[name] = {"ok": False, "error": f"inputs.{name}: the generator made no input {name}"}
        self._synchronize()
        return {"ok": ok, "inputs": reply_inputs}

    def fill_inputs(self, request):
        """The inputs the judge's runner cannot make, written into its buffers: a workload's
        `custom` inputs from the reference's custom_inputs_entrypoint, called as SOL-ExecBench
        calls it (`entrypoint(axes_and_scalars, device)`) after torch.manual_seed(seed), the seed
        the judge's secret for this round; its `safetensors` inputs from the file the workload
        names; a KernelBench Model's state (`model_state`, its state_dict `key`) from the Model the
        worker built. Each checked against the buffer (the definition's dtype and shape), never cast."""
        problem = self._loaded()
        if request.get("seed") is None:
            raise RequestError("seed", "fill_inputs needs the judge's `seed` (custom inputs are drawn from it)")
        seed = self._integer(request, "seed")
        sources = request.get("sources")
        if not isinstance(sources, dict) or not sources:
            raise RequestError("sources", "sources must map each input to fill to {\"type\": \"custom\"} or "
                                          "{\"type\": \"safetensors\", \"path\": ..., \"tensor_key\": ...}")
        buffers = self._output_buffers(request.get("inputs"), field="inputs")
        declared = getattr(problem, "definition", {}).get("inputs", {})
        for name, source in sources.items():
            field = f"sources.{name}"
            if name not in problem.input_names:
                raise RequestError(field, f"{field}: {problem.name} has no input {name}")
            if not isinstance(source, dict) or source.get("type") not in ("custom", "safetensors", "model_state"):
                raise RequestError(f"{field}.type", f"{field}.type must be custom, safetensors or model_state, not "
                                                    f"{source.get('type') if isinstance(source, dict) else source!r}")
            if source["type"] == "model_state" and name not in getattr(problem, "state_inputs", {}):
                raise RequestError(field, f"{field}: {name} is not a tensor of {problem.name}'s Model state")
            if source["type"] == "model_state" and source.get("key") != problem.state_inputs[name]:
                raise RequestError(f"{field}.key", f"{field}.key is {source.get('key')!r}; {name} is the Model's "
                                                   f"{problem.state_inputs[name]!r}")
            if name not in buffers:
                raise RequestError(f"inputs.{name}", f"inputs.{name}: no buffer was given for this input")
        values, reply_inputs, ok = {}, {}, True
        custom = [name for name, source in sources.items() if source["type"] == "custom"]
        if custom:
            axes = request.get("axes", {})
            generated = problem.make_inputs({"seed": seed, "axes": axes})
            for name in custom:
                if name in generated:
                    values[name] = generated[name]
                else:
                    ok = False
                    reply_inputs[name] = {"ok": False, "error": f"inputs.{name}: the custom_inputs_entrypoint "
                                                                f"made no input {name}"}
        for name, source in sources.items():
            if source["type"] == "safetensors":
                values[name] = self._safetensors_input(name, source, buffers[name], declared.get(name, {}))
            elif source["type"] == "model_state":
                values[name] = problem.state_value(name)
        for name, value in values.items():
            check = self._deliver(f"inputs.{name}", value, buffers[name])
            ok = ok and check["ok"]
            reply_inputs[name] = check
        self._synchronize()
        return {"ok": ok, "inputs": reply_inputs}

    @staticmethod
    def _safetensors_input(name, source, buffer, declared):
        field = f"sources.{name}"
        path, key = source.get("path"), source.get("tensor_key")
        if not isinstance(path, str) or not path:
            raise RequestError(f"{field}.path", f"{field}.path must be the file's path")
        if not isinstance(key, str) or not key:
            raise RequestError(f"{field}.tensor_key", f"{field}.tensor_key must name the tensor in the file")
        try:
            dtype_name, tensor = load_tensor(path, key)
        except SafetensorsError as error:
            raise RequestError(field, f"{field}: {error}")
        want_dtype = declared.get("dtype", dtype_names.name_of(buffer.dtype))
        if tensor is None:
            raise RequestError(field, f"{field}: {path} holds `{key}` as {dtype_name}, which this PyTorch "
                                      f"({torch.__version__}) lacks")
        if dtype_name != want_dtype or list(tensor.shape) != list(buffer.shape):
            raise RequestError(field, f"{field}: {path} holds `{key}` as {dtype_name} {list(tensor.shape)}; "
                                      f"the definition makes {name} {want_dtype} {list(buffer.shape)}")
        return tensor.to(buffer.device)

    def release(self, request):
        """Closes the judge's CUDA IPC buffers this worker opened (the judge frees them next)."""
        if not torch.cuda.is_available():
            return {"released": 0}
        import cuda_ipc
        return {"released": cuda_ipc.release_all()}

    def quit(self, request):
        self.done = True
        return {}

    # -- helpers ---------------------------------------------------------------------------------

    def _stream(self):
        """The worker's own stream (CUDA), made once."""
        if self.problem.device.type != "cuda":
            return None
        if self.stream is None:
            self.stream = torch.cuda.Stream(device=self.problem.device)
        return self.stream

    def _on_stream(self):
        stream = self._stream()
        return torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext()

    def _flush_l2(self):
        """Reads a buffer of at least twice the L2 on the worker's stream (the judge's flush ran in its
        own context before the request; the private copies of the inputs have filled the L2 since)."""
        if self.problem.device.type != "cuda":
            return
        if self.flush_buffer is None:
            props = torch.cuda.get_device_properties(self.problem.device)
            l2 = getattr(props, "L2_cache_size", 0) or 0
            count = max(2 * l2, MIN_FLUSH_BYTES) // 4
            self.flush_buffer = torch.ones(count, dtype=torch.float32, device=self.problem.device)
        torch.sum(self.flush_buffer)

    def _deliver_all(self, results, count, buffers, outputs_as=None):
        reply_outputs, ok = {}, True
        produced = {name for name, _ in results}
        for name, value in results:
            check = self._deliver(f"outputs.{name}", value, buffers.get(name), outputs_as)
            ok = ok and check["ok"]
            reply_outputs[name] = check
        for name in buffers:
            if name not in produced:
                ok = False
                reply_outputs[name] = {"ok": False, "error": f"outputs.{name}: the reference returned "
                                                            f"{count} output(s) and none named {name}"}
        return ok, reply_outputs

    def _loaded(self):
        if self.problem is None:
            raise RequestError("op", "no problem is loaded: send `load` first")
        return self.problem

    @staticmethod
    def _integer(request, key):
        value = request[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise RequestError(key, f"{key} must be an integer, not {value!r}")
        return value

    def _inputs(self, given):
        if not isinstance(given, dict):
            raise RequestError("inputs", "inputs must map each input's name to a buffer or a scalar")
        expected = self.problem.input_names
        for name in given:
            if name not in expected:
                raise RequestError(f"inputs.{name}", f"inputs.{name}: {self.problem.name} has no input "
                                                     f"{name} (its inputs: {', '.join(expected)})")
        declared = getattr(self.problem, "definition", {}).get("inputs", {})
        # A KernelBench Model's state inputs may be left out: the reference computes with its own
        # Model (they are the candidate's copy of it).
        required = getattr(self.problem, "forward_names", expected)
        inputs = {}
        for name in expected:
            field = f"inputs.{name}"
            if name not in given:
                if name not in required:
                    continue
                raise RequestError(field, f"{field} is missing")
            value = given[name]
            if name in declared and (declared[name].get("shape") is None) != _is_scalar(value):
                wanted = "a scalar (shape null)" if declared[name].get("shape") is None else "a buffer"
                raise RequestError(field, f"{field}: the definition makes {name} {wanted}")
            if _is_scalar(value):
                inputs[name] = value
                continue
            tensor = open_buffer(field, value, writable=False).to(self.problem.device)
            want = declared.get(name, {}).get("dtype")
            if want and dtype_names.torch_dtype(want) != tensor.dtype:
                raise RequestError(f"{field}.dtype", f"{field}.dtype is {value.get('dtype')}; "
                                                     f"the definition says {want}")
            inputs[name] = tensor
        return inputs

    @staticmethod
    def _outputs_as(request):
        """`outputs_as`: the dtype every output buffer has, the results converted to it (the
        judge's fp32 references); absent: each buffer has its output's own dtype."""
        if "outputs_as" not in request:
            return None
        name = request["outputs_as"]
        if name not in ("float32", "float64"):
            raise RequestError("outputs_as", f"outputs_as must be float32 or float64, not {name!r}")
        return dtype_names.torch_dtype(name)

    def _output_buffers(self, given, field="outputs"):
        if given is None:
            return {}
        if not isinstance(given, dict):
            raise RequestError(field, f"{field} must map names to buffers")
        return {name: open_buffer(f"{field}.{name}", spec, writable=True) for name, spec in given.items()}

    def _deliver(self, field, value, buffer, outputs_as=None):
        """Writes one result into its buffer after checking its dtype and shape; a scalar result
        comes back in the reply. With `outputs_as`, the result must have the dtype the definition
        declares and is converted to the buffer's (`outputs_as`); otherwise it is never cast."""
        if _is_scalar(value) or (isinstance(value, torch.Tensor) and buffer is None and value.dim() == 0):
            if buffer is not None:
                return {"ok": False, "error": f"{field}: the reference returned a scalar, the request gave a buffer"}
            return {"ok": True, "value": _json_scalar(value)}
        if not isinstance(value, torch.Tensor):
            return {"ok": False, "error": f"{field}: the reference returned a {type(value).__name__}"}
        check = {"dtype": dtype_names.name_of(value.dtype), "shape": list(value.shape)}
        if buffer is None:
            return {**check, "ok": False, "error": f"{field}: no buffer was given for this output"}
        if outputs_as is not None:
            declared = getattr(self.problem, "definition", {}).get("outputs", {}).get(field.split(".", 1)[1], {})
            want = dtype_names.torch_dtype(declared["dtype"]) if declared.get("dtype") in dtype_names.NAMES else None
            if buffer.dtype != outputs_as or list(value.shape) != list(buffer.shape) or \
                    (want is not None and value.dtype != want):
                return {**check, "ok": False,
                        "error": f"{field}: the reference returned {check['dtype']} {check['shape']}; the "
                                 f"definition says {declared.get('dtype', '?')}, the buffer is "
                                 f"{dtype_names.name_of(buffer.dtype)} {list(buffer.shape)} (outputs_as "
                                 f"{dtype_names.name_of(outputs_as)})"}
            buffer.copy_(value.to(outputs_as))
            return {**check, "ok": True}
        if value.dtype != buffer.dtype or list(value.shape) != list(buffer.shape):
            return {**check, "ok": False,
                    "error": f"{field}: the reference returned {check['dtype']} {check['shape']}; the "
                             f"buffer is {dtype_names.name_of(buffer.dtype)} {list(buffer.shape)}"}
        buffer.copy_(value)
        return {**check, "ok": True}

    def _synchronize(self):
        if self.problem is not None and self.problem.device.type == "cuda":
            torch.cuda.synchronize()

    # -- the loop --------------------------------------------------------------------------------

    def handle(self, line):
        try:
            request = json.loads(line)
        except ValueError as error:
            return {"id": None, "ok": False, "field": "", "error": f"the request is not JSON: {error}"}
        if not isinstance(request, dict):
            return {"id": None, "ok": False, "field": "", "error": "a request is a JSON object"}
        reply = {"id": request.get("id")}
        op = request.get("op")
        handler = getattr(self, op, None) if op in OPS else None
        try:
            if handler is None:
                raise RequestError("op", f"unknown op {op!r}: {', '.join(OPS)}")
            answer = handler(request)
            reply.update({"ok": True, **answer})
        except RequestError as error:
            reply.update({"ok": False, "field": error.field, "error": str(error)})
        except ReferenceRaised as error:
            reply.update({"ok": False, "field": "", "reference_raised": True, "error": str(error)})
        except Exception as error:  # the worker's own fault: still a reply, and the worker goes on
            reply.update({"ok": False, "field": "", "error": f"the worker failed: {type(error).__name__}: {error}"})
        return reply


def main():
    # Replies own the real stdout; anything the reference prints (Python or C) goes to stderr.
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    worker = Worker()
    for line in sys.stdin:
        if not line.strip():
            continue
        replies.write(json.dumps(worker.handle(line)) + "\n")
        if worker.done:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
