"""A KernelBench problem file, loaded: `class Model(nn.Module)`, `get_inputs()`, `get_init_inputs()`
and its module-level shape constants.

Shared by the describer (on meta tensors) and the reference worker (on real ones). Every failure is
a ProblemError whose message names the file, the line where known, and the cause.
"""

import ast
import contextlib
import os
import sys
import traceback

# KernelBench's own defaults (src/kernelbench/eval.py): the seed set before get_init_inputs(),
# before Model(...) and before get_inputs(); allclose with atol = rtol = this, per precision.
DEFAULT_SEED = 42
TOLERANCE_BY_DTYPE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def state_input_names(keys, taken):
    """The entry point's names for a Model's state_dict `keys`, in order, as {name: key}:
    `conv.weight` -> `conv_weight`, made unlike the names in `taken` (the forward pass's inputs)
    and each other. The describer and the reference worker both name them so."""
    names, used = {}, set(taken)
    for key in keys:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in key)
        if not base or base[0].isdigit():
            base = "state_" + base
        name, n = base, 2
        while name in used:
            name, n = f"{base}_{n}", n + 1
        used.add(name)
        names[name] = key
    return names


class ProblemError(Exception):
    """A problem file that cannot be used; the message is one line naming the file and the cause."""


def _line_in(path, tb):
    """The last line of `path` in a traceback, or None."""
    line = None
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == path:
            line = frame.lineno
    return line


def _where(path, tb):
    line = _line_in(path, tb)
    return f"{path}:{line}" if line else path


def _one_line(error):
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class KernelBenchProblem:
    """The loaded module of one problem file."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        try:
            with open(self.path, "rb") as f:
                self.source_bytes = f.read()
        except OSError as error:
            raise ProblemError(f"{self.path}: cannot read the problem file: {error.strerror}")
        source = self.source_bytes.decode("utf-8", errors="replace")
        try:
            code = compile(source, self.path, "exec")
        except SyntaxError as error:
            raise ProblemError(f"{self.path}:{error.lineno}: syntax error: {error.msg}")
        self.namespace = {"__name__": "kernelbench_problem", "__file__": self.path}
        try:
            with self.quiet():
                exec(code, self.namespace)
        except Exception as error:
            raise ProblemError(f"{_where(self.path, error.__traceback__)}: running the file raised "
                               f"{_one_line(error)}")
        for name, what in (("Model", "class Model(nn.Module)"), ("get_inputs", "def get_inputs()"),
                           ("get_init_inputs", "def get_init_inputs()")):
            if not callable(self.namespace.get(name)):
                raise ProblemError(f"{self.path}: no `{what}`: a KernelBench problem defines Model, "
                                   "get_inputs and get_init_inputs at module level")
        tree = ast.parse(source)
        self.constants = self._int_constants(code_tree=tree)
        self.shape_hints = self._shape_hints(tree)

    @contextlib.contextmanager
    def quiet(self):
        """The problem's prints go to stderr: stdout carries only the tool's own answer."""
        with contextlib.redirect_stdout(sys.stderr):
            yield

    def call(self, what, function, *args):
        """function(*args); an exception becomes a ProblemError naming `what` and the line."""
        try:
            with self.quiet():
                return function(*args)
        except Exception as error:
            raise ProblemError(f"{_where(self.path, error.__traceback__)}: {what} raised {_one_line(error)}")

    def init_inputs(self):
        values = self.call("get_init_inputs()", self.namespace["get_init_inputs"])
        return list(values) if isinstance(values, (list, tuple)) else [values]

    def inputs(self):
        values = self.call("get_inputs()", self.namespace["get_inputs"])
        return list(values) if isinstance(values, (list, tuple)) else [values]

    def build_model(self, init_inputs):
        return self.call("Model(*get_init_inputs())", self.namespace["Model"], *init_inputs)

    def forward_parameter_names(self):
        """Names of Model.forward's parameters after self, or None when it takes *args."""
        import inspect
        try:
            parameters = list(inspect.signature(self.namespace["Model"].forward).parameters.values())
        except (TypeError, ValueError):
            return None
        names = []
        for parameter in parameters[1:]:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                return None
            names.append(parameter.name)
        return names

    def _shape_hints(self, code_tree):
        """The shapes get_inputs() writes with module constants, in its source order: each call
        whose arguments (or one tuple or list of them) are all names of int constants, as
        `torch.randn(batch_size, in_channels, height, width)`, gives (batch_size, in_channels,
        height, width). They name an input's dimensions where constants share a value."""
        ints = {n: v for n, v in ((n, self.namespace.get(n)) for n in self.namespace)
                if isinstance(v, int) and not isinstance(v, bool)}
        hints = []
        for node in code_tree.body:
            if not (isinstance(node, ast.FunctionDef) and node.name == "get_inputs"):
                continue
            for call in ast.walk(node):
                if not isinstance(call, ast.Call):
                    continue
                args = call.args
                if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                    args = args[0].elts
                if args and all(isinstance(a, ast.Name) and a.id in ints for a in args):
                    hints.append(((call.lineno, call.col_offset), tuple(a.id for a in args)))
        return [names for _, names in sorted(hints)]  # in source order (ast.walk is breadth-first)

    def _int_constants(self, code_tree):
        """Module-level `NAME = ...` whose value is an int (not a bool), in the file's order."""
        constants = []
        for node in code_tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            names = []
            for target in targets:
                names += target.elts if isinstance(target, ast.Tuple) else [target]
            for target in names:
                if isinstance(target, ast.Name):
                    value = self.namespace.get(target.id)
                    if isinstance(value, int) and not isinstance(value, bool):
                        constants.append((target.id, value))
        return constants
