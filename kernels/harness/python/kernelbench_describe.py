#!/usr/bin/env python3
"""kernelbench_describe.py FILE: a KernelBench problem file as a SOL-ExecBench definition and workload.

Prints one JSON object on stdout: {"definition": {...}, "workloads": [...], "kernelbench": {...}}
(docs/reference-worker.md, "The describer"). The Model's state (parameters and buffers) follows
the forward pass's inputs as inputs of kind `model_state`, filled by the reference worker. The problem's tensors are built on the meta device,
so no input or weight is allocated, whatever its size; the forward pass runs on meta tensors for
the outputs' shapes and dtypes, and when an operation has no meta kernel the outputs are reported
unknown with the reason. A file that cannot be used: one line on stderr naming it and the cause,
exit status 2.
"""

import hashlib
import json
import math
import os
import sys
import uuid

sys.dont_write_bytecode = True  # the folder ships read-only with the kernels' data

import torch  # noqa: E402

import dtype_names  # noqa: E402
from kernelbench_problem import (DEFAULT_SEED, TOLERANCE_BY_DTYPE, KernelBenchProblem, ProblemError,  # noqa: E402
                                 state_input_names)
from meta_tensors import on_meta_device  # noqa: E402

_PRECISION = "float32"  # KernelBench's default: inputs and weights cast to fp32
_UUID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/socratic/kernelbench-workload")


class AxisNamer:
    """Names each distinct dimension after the module constant of that value. Where several
    constants share the value (`batch_size = 128`, `out_channels = 128`), the value alone cannot
    say which: an input's shape takes its names from get_inputs()'s own source when a shape there
    matches (`torch.randn(batch_size, in_channels, height, width)`), any other dimension a generic
    name (d0, d1, ...) rather than a guess."""

    def __init__(self, constants, hints=()):
        self.by_value = {}
        for name, value in constants:
            self.by_value.setdefault(value, []).append(name)
        self.values = dict(constants)
        self.hints = list(hints)
        self.taken = {name for name, _ in constants}
        self.generic = {}
        self.axes = {}
        self.next_generic = 0

    def _generic(self, value):
        if value not in self.generic:
            while f"d{self.next_generic}" in self.taken:
                self.next_generic += 1
            self.generic[value] = f"d{self.next_generic}"
            self.taken.add(self.generic[value])
        return self.generic[value]

    def _add(self, name, value):
        self.axes.setdefault(name, {"type": "const", "value": value})
        return name

    def name(self, value):
        names = self.by_value.get(value, [])
        return self._add(names[0] if len(names) == 1 else self._generic(value), value)

    def shape(self, dims, hinted=False):
        """The names of a shape's dimensions; `hinted`: an input's, which may take a source hint."""
        if hinted:
            for i, hint in enumerate(self.hints):
                if [self.values.get(n) for n in hint] == dims:
                    del self.hints[i]
                    return [self._add(n, v) for n, v in zip(hint, dims)]
        return [self.name(v) for v in dims]


def _tensor_spec(tensor, namer, hinted=False):
    return {"shape": namer.shape([int(d) for d in tensor.shape], hinted), "dtype": dtype_names.name_of(tensor.dtype)}


def _json_value(value):
    """An init input as JSON: numbers, strings, lists as they are; a tensor as its shape and dtype."""
    if isinstance(value, torch.Tensor):
        return {"tensor": {"shape": list(value.shape), "dtype": dtype_names.name_of(value.dtype)}}
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return {"repr": repr(value)[:200]}


def _input_names(problem, count):
    names = problem.forward_parameter_names()
    if names is None or len(names) != count:
        return [f"input_{i}" for i in range(count)]
    return names


def _outputs(result):
    if isinstance(result, (list, tuple)):
        values = list(result)
        return [(f"output_{i}", v) for i, v in enumerate(values)]
    return [("output", result)]


def describe(path):
    problem = KernelBenchProblem(path)
    torch.manual_seed(DEFAULT_SEED)
    with on_meta_device():
        init_inputs = problem.init_inputs()
        torch.manual_seed(DEFAULT_SEED)
        with torch.no_grad():
            model = problem.build_model(init_inputs)
        inputs = problem.inputs()
        outputs_unknown = None
        result = None
        try:
            with torch.no_grad(), problem.quiet():
                result = model(*inputs)
        except Exception as error:
            first_sentence = " ".join(str(error).split()).split(". ")[0][:300]
            outputs_unknown = ("the forward pass on meta tensors failed (an operation without a meta "
                               f"kernel, or one that reads values): {type(error).__name__}: {first_sentence}")

    namer = AxisNamer(problem.constants, problem.shape_hints)
    definition_inputs, workload_inputs = {}, {}
    for name, value in zip(_input_names(problem, len(inputs)), inputs):
        if isinstance(value, torch.Tensor):
            definition_inputs[name] = _tensor_spec(value, namer, hinted=True)
            workload_inputs[name] = {"type": "random"}
        elif isinstance(value, (bool, int, float)):
            definition_inputs[name] = {"shape": None, "dtype": dtype_names.scalar_dtype_name(value)}
            workload_inputs[name] = {"type": "scalar", "value": value}
        else:
            raise ProblemError(f"{problem.path}: get_inputs() returned a {type(value).__name__} as "
                               f"`{name}`: only tensors and Python scalars can be described")
    # The Model's state (its parameters and buffers, in state_dict order): inputs of the entry
    # point after the forward pass's, which the judge's reference worker fills from the seeded
    # Model it runs (`model_state`), so a C entry point computes with the same weights.
    state = model.state_dict()
    for name, key in state_input_names(list(state), list(definition_inputs)).items():
        value = state[key]
        spec = _tensor_spec(value, namer)
        spec["description"] = f"the Model's {key} (its state, filled from the Model the reference builds)"
        definition_inputs[name] = spec
        workload_inputs[name] = {"type": "model_state", "key": key}
    definition_outputs = {}
    if outputs_unknown is None:
        for name, value in _outputs(result):
            if isinstance(value, torch.Tensor):
                definition_outputs[name] = _tensor_spec(value, namer)
            elif isinstance(value, (bool, int, float)):
                definition_outputs[name] = {"shape": None, "dtype": dtype_names.scalar_dtype_name(value)}
            else:
                outputs_unknown = f"the forward pass returned a {type(value).__name__} as `{name}`"
                definition_outputs = {}
                break

    tolerance = TOLERANCE_BY_DTYPE[_PRECISION]
    name = os.path.splitext(os.path.basename(problem.path))[0]
    definition = {
        "name": name,
        "description": f"KernelBench problem {os.path.basename(problem.path)} (described on meta tensors)",
        "op_type": "kernelbench",
        "axes": namer.axes,
        "inputs": definition_inputs,
        "outputs": definition_outputs,
        "reference": problem.path,
    }
    workload = {
        "uuid": str(uuid.uuid5(_UUID_NAMESPACE, hashlib.sha256(problem.source_bytes).hexdigest())),
        "axes": {},
        "inputs": workload_inputs,
        "correctness": {"max_atol": tolerance, "max_rtol": tolerance, "required_matched_ratio": 1.0},
    }
    kernelbench = {
        "file": problem.path,
        "seed": DEFAULT_SEED,
        "init_inputs": [_json_value(v) for v in init_inputs],
        "precision": _PRECISION,
        "atol": tolerance,
        "rtol": tolerance,
        "tolerance_by_precision": TOLERANCE_BY_DTYPE,
    }
    if outputs_unknown is not None:
        kernelbench["outputs_unknown"] = outputs_unknown
    return {"definition": definition, "workloads": [workload], "kernelbench": kernelbench}


def main(argv):
    if len(argv) != 2:
        print("usage: kernelbench_describe.py FILE (a KernelBench problem .py)", file=sys.stderr)
        return 2
    try:
        description = describe(argv[1])
    except ProblemError as error:
        print(f"kernelbench_describe: {error}", file=sys.stderr)
        return 2
    json.dump(description, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
