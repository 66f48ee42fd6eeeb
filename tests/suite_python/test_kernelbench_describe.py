"""kernels/harness/python/kernelbench_describe.py on Socratic's own KernelBench-style files."""

import hashlib
import json
import os
import resource
import unittest
import uuid

from suite_test_support import HERE, require_torch, run_tool

KERNELBENCH = os.path.join(HERE, "kernelbench")
ODD = os.path.join(HERE, "kernelbench_odd")


def describe(path):
    result = run_tool("kernelbench_describe.py", path)
    if result.returncode != 0:
        raise AssertionError(f"describing {path} exited {result.returncode}: {result.stderr}")
    return json.loads(result.stdout)


def refused(test, path, *fragments):
    result = run_tool("kernelbench_describe.py", path)
    test.assertEqual(result.returncode, 2, result.stdout + result.stderr)
    test.assertEqual(result.stdout, "")
    lines = result.stderr.strip().splitlines()
    test.assertEqual(len(lines), 1, result.stderr)
    for fragment in fragments:
        test.assertIn(fragment, lines[0])


class DescribesProblems(unittest.TestCase):
    def test_matmul_axes_inputs_outputs_and_workload(self):
        path = os.path.join(KERNELBENCH, "1_Matmul_small.py")
        d = describe(path)
        definition = d["definition"]
        self.assertEqual(definition["name"], "1_Matmul_small")
        self.assertEqual(definition["op_type"], "kernelbench")
        self.assertEqual(definition["reference"], path)
        self.assertEqual(definition["axes"], {"M": {"type": "const", "value": 64},
                                              "K": {"type": "const", "value": 32},
                                              "N": {"type": "const", "value": 48}})
        self.assertEqual(list(definition["inputs"]), ["A", "B"])  # forward's parameter order
        self.assertEqual(definition["inputs"]["A"], {"shape": ["M", "K"], "dtype": "float32"})
        self.assertEqual(definition["inputs"]["B"], {"shape": ["K", "N"], "dtype": "float32"})
        self.assertEqual(set(d["workloads"][0]["inputs"]), {"A", "B"})  # a Model without state: nothing more
        self.assertEqual(definition["outputs"], {"output": {"shape": ["M", "N"], "dtype": "float32"}})
        [workload] = d["workloads"]
        self.assertEqual(workload["axes"], {})
        self.assertEqual(workload["inputs"], {"A": {"type": "random"}, "B": {"type": "random"}})
        self.assertEqual(workload["correctness"]["max_atol"], 1e-4)
        self.assertEqual(workload["correctness"]["required_matched_ratio"], 1.0)
        kernelbench = d["kernelbench"]
        self.assertEqual(kernelbench["init_inputs"], [])
        self.assertEqual((kernelbench["atol"], kernelbench["rtol"]), (1e-4, 1e-4))
        self.assertEqual(kernelbench["tolerance_by_precision"]["float16"], 1e-2)
        self.assertEqual(kernelbench["seed"], 42)
        self.assertNotIn("outputs_unknown", kernelbench)

    def test_workload_uuid_follows_the_file_content(self):
        first = describe(os.path.join(KERNELBENCH, "1_Matmul_small.py"))["workloads"][0]["uuid"]
        again = describe(os.path.join(KERNELBENCH, "1_Matmul_small.py"))["workloads"][0]["uuid"]
        other = describe(os.path.join(KERNELBENCH, "5_Softmax_and_argmax.py"))["workloads"][0]["uuid"]
        self.assertEqual(first, again)
        self.assertNotEqual(first, other)
        self.assertEqual(str(uuid.UUID(first)), first)
        with open(os.path.join(KERNELBENCH, "1_Matmul_small.py"), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        namespace = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/socratic/kernelbench-workload")
        self.assertEqual(first, str(uuid.uuid5(namespace, digest)))

    def test_an_8_gib_input_is_described_without_allocating_it(self):
        d = describe(os.path.join(KERNELBENCH, "2_Gelu_8GiB.py"))
        self.assertEqual(d["definition"]["inputs"]["x"], {"shape": ["batch_size", "dim"], "dtype": "float32"})
        self.assertEqual(d["definition"]["outputs"]["output"]["shape"], ["batch_size", "dim"])
        self.assertEqual(d["definition"]["axes"]["dim"]["value"], 32768)
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.assertLess(peak_kib, 2 * 1024 * 1024, "the describer allocated the problem's tensors")

    def test_the_models_state_follows_the_forward_inputs(self):
        d = describe(os.path.join(KERNELBENCH, "3_Conv2d_BatchNorm_ReLU.py"))
        inputs, sources = d["definition"]["inputs"], d["workloads"][0]["inputs"]
        self.assertEqual(list(inputs), ["x", "conv_weight", "conv_bias", "norm_weight", "norm_bias",
                                        "norm_running_mean", "norm_running_var", "norm_num_batches_tracked"])
        self.assertEqual(sources["conv_weight"], {"type": "model_state", "key": "conv.weight"})
        self.assertTrue(inputs["conv_weight"]["description"].startswith("the Model's conv.weight"))
        # A buffer too, with its own dtype: a 0-d int64 tensor, not a Python scalar.
        self.assertEqual(inputs["norm_num_batches_tracked"]["shape"], [])
        self.assertEqual(inputs["norm_num_batches_tracked"]["dtype"], "int64")
        self.assertNotIn("learned_parameters", d["kernelbench"])

    def test_conv_init_inputs_and_a_generic_axis(self):
        d = describe(os.path.join(KERNELBENCH, "3_Conv2d_BatchNorm_ReLU.py"))
        definition = d["definition"]
        self.assertEqual(d["kernelbench"]["init_inputs"], [3, 8, 3])
        # height == width (16): the input's shape is named as get_inputs() writes it. 16 - 3 + 1 =
        # 14 is no module constant, and 3 is two (in_channels, kernel_size): generic names there,
        # not a guess.
        self.assertEqual(definition["inputs"]["x"]["shape"], ["batch_size", "in_channels", "height", "width"])
        self.assertEqual(definition["axes"]["width"], {"type": "const", "value": 16})
        self.assertEqual(definition["inputs"]["conv_weight"]["shape"], ["out_channels", "d0", "d0", "d0"])
        self.assertEqual(definition["axes"]["d0"], {"type": "const", "value": 3})
        self.assertEqual(definition["outputs"]["output"]["shape"], ["batch_size", "out_channels", "d1", "d1"])
        self.assertEqual(definition["axes"]["d1"], {"type": "const", "value": 14})

    def test_dimensions_of_a_shared_value_named_as_get_inputs_writes_them(self):
        d = describe(os.path.join(KERNELBENCH, "6_Heads_share_a_size.py"))
        definition = d["definition"]
        # batch_size == num_heads == 4: the inputs' shapes from get_inputs()'s own calls; the
        # output's 4s have no call to name them, so a generic name, not batch_size twice.
        self.assertEqual(definition["inputs"]["q"]["shape"], ["batch_size", "num_heads", "seq_len", "head_dim"])
        self.assertEqual(definition["inputs"]["k"]["shape"], ["batch_size", "num_heads", "seq_len", "head_dim"])
        self.assertEqual(definition["outputs"]["output"]["shape"], ["d0", "d0", "seq_len", "seq_len"])
        self.assertEqual(definition["axes"]["d0"], {"type": "const", "value": 4})

    def test_scalar_input_and_float_init_input(self):
        d = describe(os.path.join(KERNELBENCH, "4_RMSNorm_eps.py"))
        self.assertEqual(d["definition"]["inputs"]["eps"], {"shape": None, "dtype": "float32"})
        self.assertEqual(d["workloads"][0]["inputs"]["eps"], {"type": "scalar", "value": 1e-5})
        self.assertEqual(d["kernelbench"]["init_inputs"], [40, 1.5])

    def test_two_outputs_with_their_dtypes(self):
        outputs = describe(os.path.join(KERNELBENCH, "5_Softmax_and_argmax.py"))["definition"]["outputs"]
        self.assertEqual(outputs, {"output_0": {"shape": ["rows", "columns"], "dtype": "float32"},
                                   "output_1": {"shape": ["rows"], "dtype": "int64"}})

    def test_an_op_without_meta_kernel_leaves_outputs_unknown_with_the_reason(self):
        d = describe(os.path.join(ODD, "no_meta_kernel.py"))
        self.assertEqual(d["definition"]["outputs"], {})
        self.assertEqual(d["definition"]["inputs"]["x"], {"shape": ["size"], "dtype": "int64"})
        reason = d["kernelbench"]["outputs_unknown"]
        self.assertIn("meta", reason)
        self.assertIn("NotImplementedError", reason)

    def test_the_problems_prints_stay_off_stdout(self):
        d = describe(os.path.join(ODD, "prints_while_loading.py"))
        self.assertEqual(d["definition"]["outputs"]["output"], {"shape": ["size"], "dtype": "float32"})


class RefusesBrokenFiles(unittest.TestCase):
    def test_syntax_error_names_file_and_line(self):
        path = os.path.join(ODD, "syntax_error.py")
        refused(self, path, f"{path}:6:", "syntax error")

    def test_no_model(self):
        path = os.path.join(ODD, "no_model.py")
        refused(self, path, path, "no `class Model(nn.Module)`")

    def test_get_inputs_raising_names_the_line_and_the_cause(self):
        path = os.path.join(ODD, "get_inputs_raises.py")
        refused(self, path, f"{path}:11:", "get_inputs() raised ValueError: the inputs are not ready")

    def test_missing_file(self):
        path = os.path.join(ODD, "there_is_no_such_problem.py")
        refused(self, path, path, "cannot read the problem file")

    def test_usage(self):
        result = run_tool("kernelbench_describe.py")
        self.assertEqual(result.returncode, 2)
        self.assertIn("usage: kernelbench_describe.py FILE", result.stderr)


if __name__ == "__main__":
    require_torch()
    unittest.main(verbosity=2)
