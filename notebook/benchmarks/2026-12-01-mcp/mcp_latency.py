#!/usr/bin/env python3
"""socratic mcp's latencies on the CPU test problem's campaign: start to the initialize answer,
a standing call (the campaign opened afresh from its trace) as the trace grows, and evaluate ->
result (job queued at once, then the evaluation itself). Usage: mcp_latency.py SOCRATIC SOURCE_DIR"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

socratic, source = sys.argv[1], sys.argv[2]
cpu = os.path.join(source, "tests", "tool", "cpu_problem")
root = tempfile.mkdtemp(prefix="socratic-mcp-bench-")
campaign = os.path.join(root, "c")
subprocess.run([socratic, "init", campaign, "--problem", "softmax_cpu", "--scenarios", os.path.join(cpu, "scenarios.json"),
                "--baseline", os.path.join(cpu, "baseline.cpp"), "--evaluator-command",
                "bash " + os.path.join(cpu, "evaluate.sh") + " {candidate} {scenarios}"], check=True, capture_output=True)
shutil.copy(os.path.join(cpu, "fast_fixed.cpp"), os.path.join(campaign, "workspace", "candidate.cpp"))

t0 = time.perf_counter()
p = subprocess.Popen([socratic, "mcp", "--campaign", os.path.join(campaign, "campaign.json")], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
n = 0
def rpc(method, params):
    global n
    n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == n:
            return m
rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
start_s = time.perf_counter() - t0
p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

def call(tool, args):
    t = time.perf_counter()
    r = rpc("tools/call", {"name": tool, "arguments": args})["result"]
    return r, time.perf_counter() - t

print(f"start to the initialize answer: {start_s * 1000:.1f} ms")
for rounds in (1, 10):
    for _ in range(rounds):  # grow the trace with evaluations
        job = call("evaluate", {})[0]["structuredContent"]["job"]
        queued = call("result", {"job": job})[1]
        t = time.perf_counter()
        while call("result", {"job": job, "wait_s": 30})[0]["structuredContent"]["status"] != "done":
            pass
        done_s = time.perf_counter() - t
    lines = sum(1 for _ in open(os.path.join(campaign, "state", "trace.jsonl")))
    times = [call("standing", {})[1] for _ in range(30)]
    print(f"trace of {lines} lines: standing median {statistics.median(times) * 1000:.1f} ms "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}) over 30 calls; "
          f"last evaluate->done {done_s:.2f} s; a result call while queued/running {queued * 1000:.1f} ms")
p.stdin.close()
p.wait(timeout=30)
shutil.rmtree(root)
