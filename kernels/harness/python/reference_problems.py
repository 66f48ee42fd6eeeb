"""The references the worker runs: a SOL-ExecBench / FlashInfer-Bench definition's `run(...)`, or a
KernelBench file's `Model`. Both answer `run(named inputs) -> [(output name, value)]` in the order of
their outputs, and `make_inputs(...)` with the problem's own input generator. `function` is the
reference itself (what `torch.compile` compiles for the timed baseline), and `run_with(function,
inputs)` calls it, or its compiled form, the way the suite calls it.
"""

import json
import os
import sys
import types

import torch

from kernelbench_problem import DEFAULT_SEED, KernelBenchProblem, ProblemError, state_input_names
from meta_tensors import on_meta_device
from shared_buffers import RequestError


class ReferenceRaised(Exception):
    """The reference's own code raised: the message names the exception and where."""


def _call_reference(what, function, *args, **kwargs):
    try:
        with torch.no_grad():
            return function(*args, **kwargs)
    except (Exception, SystemExit) as error:
        import traceback
        frames = traceback.extract_tb(error.__traceback__)
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        text = " ".join(str(error).split())
        raise ReferenceRaised(f"{what} raised {type(error).__name__}{where}: {text}"[:1000])


def _as_list(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _load_device(request):
    device = request.get("device", "cpu")
    if device not in ("cpu", "cuda"):
        raise RequestError("device", f"device must be \"cpu\" or \"cuda\", not {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise RequestError("device", "device cuda: this PyTorch has no usable CUDA device")
    return torch.device(device)


class SolReference:
    """A definition (definition.json, or the object itself) whose `reference` string defines run();
    without one there, reference.py beside definition.json."""

    kind = "sol"

    def __init__(self, request):
        self.device = _load_device(request)
        value = request["definition"]
        folder = None
        if isinstance(value, str):
            folder = os.path.dirname(os.path.abspath(value))
            try:
                with open(value) as f:
                    value = json.load(f)
            except OSError as error:
                raise RequestError("definition", f"definition {request['definition']}: {error.strerror}")
            except ValueError as error:
                raise RequestError("definition", f"definition {request['definition']} is not JSON: {error}")
        if not isinstance(value, dict):
            raise RequestError("definition", "definition must be a path to definition.json or its object")
        for key in ("name", "inputs", "outputs"):
            if key not in value:
                raise RequestError(f"definition.{key}", f"the definition has no `{key}`")
        self.definition = value
        self.name = value["name"]
        self.input_names = list(value["inputs"])
        self.output_names = list(value["outputs"])
        self.namespace = self._reference_namespace(value.get("reference"), folder)

    def _reference_namespace(self, code, folder):
        # reference.py (where present) first, then the definition's own `reference` string over
        # it: the string is the specification, reference.py adds what it lacks (the custom inputs'
        # entry point, or run() itself when the string is empty).
        sources = []
        if folder and os.path.exists(os.path.join(folder, "reference.py")):
            path = os.path.join(folder, "reference.py")
            with open(path) as f:
                sources.append((path, f.read()))
        if isinstance(code, str) and code.strip():
            sources.append(("definition.reference", code))
        # A module registered under its name, not a bare dict: torch.compile (Dynamo) imports the
        # module a function's globals name, and a dict of globals has no module to import.
        module = types.ModuleType("socratic_reference")
        sys.modules["socratic_reference"] = module
        namespace = module.__dict__
        for origin, source in sources:
            namespace["__file__"] = origin
            try:
                exec(compile(source, origin, "exec"), namespace)
            except SyntaxError as error:
                raise RequestError("definition.reference", f"{origin}:{error.lineno}: syntax error: {error.msg}")
            except Exception as error:
                raise RequestError("definition.reference", f"{origin}: loading the reference raised "
                                                           f"{type(error).__name__}: {error}")
        if not callable(namespace.get("run")):
            raise RequestError("definition.reference", "the definition's reference defines no run(...) "
                                                       "(nor does a reference.py beside definition.json)")
        return namespace

    @property
    def function(self):
        return self.namespace["run"]

    def run(self, inputs):
        return self.run_with(self.function, inputs)

    def run_with(self, function, inputs):
        results = _as_list(_call_reference("the reference run()", function, **inputs))
        return list(zip(self.output_names, results)), len(results)

    def make_inputs(self, request):
        entry = self.definition.get("custom_inputs_entrypoint")
        if not entry:
            raise RequestError("op", f"{self.name} has no custom_inputs_entrypoint: its inputs are the "
                                     "judge's to generate (random, scalar, safetensors)")
        function = self.namespace.get(entry)
        if not callable(function):
            raise RequestError("op", f"the reference defines no {entry}(...) (custom_inputs_entrypoint)")
        axes = request.get("axes", {})
        if not isinstance(axes, dict):
            raise RequestError("axes", "axes must map axis and scalar names to their values")
        torch.manual_seed(request.get("seed", DEFAULT_SEED))
        generated = _call_reference(f"{entry}()", function, dict(axes), self.device)
        if not isinstance(generated, dict):
            raise ReferenceRaised(f"{entry}() returned a {type(generated).__name__}, not a dict of inputs")
        return generated


class KernelBenchReference:
    """A KernelBench file: Model(*get_init_inputs()) built as KernelBench builds it (seeded, under
    no_grad, moved to the device and precision)."""

    kind = "kernelbench"

    def __init__(self, request):
        self.device = _load_device(request)
        path = request["kernelbench"]
        if not isinstance(path, str):
            raise RequestError("kernelbench", "kernelbench must be the path of a problem file")
        precision = request.get("precision", "float32")
        if precision not in ("float32", "float16", "bfloat16"):
            raise RequestError("precision", f"precision must be float32, float16 or bfloat16, not {precision!r}")
        self.seed = request.get("seed", DEFAULT_SEED)
        if not isinstance(self.seed, int):
            raise RequestError("seed", f"seed must be an integer, not {self.seed!r}")
        try:
            self.problem = KernelBenchProblem(path)
            torch.manual_seed(self.seed)
            init_inputs = [v.to(self.device) if isinstance(v, torch.Tensor) else v
                           for v in self.problem.init_inputs()]
            torch.manual_seed(self.seed)
            with torch.no_grad():
                model = self.problem.build_model(init_inputs)
            with on_meta_device():  # the count of inputs, without allocating them
                count = len(self.problem.inputs())
        except ProblemError as error:
            raise RequestError("kernelbench", str(error))
        self.model = model.to(device=self.device, dtype=getattr(torch, precision))
        self.name = os.path.splitext(os.path.basename(self.problem.path))[0]
        names = self.problem.forward_parameter_names()
        self.forward_names = names if names is not None and len(names) == count else [f"input_{i}" for i in range(count)]
        # The Model's state follows as inputs (the describer names them alike): a C entry point
        # gets the weights this Model computes with; fill_inputs copies them into the judge's buffers.
        self.state_inputs = state_input_names(list(self.model.state_dict()), self.forward_names)
        self.input_names = self.forward_names + list(self.state_inputs)
        self.output_names = None  # known after the first run: output, or output_0, output_1, ...

    def state_value(self, name):
        """The Model's tensor that fills the state input `name` (by its state_dict key)."""
        return self.model.state_dict()[self.state_inputs[name]]

    @property
    def function(self):
        return self.model

    def run(self, inputs):
        return self.run_with(self.model, inputs)

    def run_with(self, function, inputs):
        results = _as_list(_call_reference("Model.forward", function, *[inputs[n] for n in self.forward_names]))
        names = ["output"] if len(results) == 1 else [f"output_{i}" for i in range(len(results))]
        self.output_names = names
        return list(zip(names, results)), len(results)

    def make_inputs(self, request):
        torch.manual_seed(request.get("seed", self.seed))
        values = _as_list(_call_reference("get_inputs()", self.problem.namespace["get_inputs"]))
        made = dict(zip(self.forward_names, values))
        made.update({name: self.state_value(name) for name in self.state_inputs})
        return made
