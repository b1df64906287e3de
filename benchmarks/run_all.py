"""`make bench`: every benchmark in one command; results go to benchmarks/results/.

1. benchmarks/bench_server.py (if present): the server's overhead and the prefix cache
   -> results/server.md
2. benchmarks/run_agents.py: the task suite under the default configurations (resumable: an
   interrupted `make bench` continues where it stopped) -> results/agents_runs.jsonl
3. benchmarks/report.py -> results/agents.md + agents_*.png
4. benchmarks/parsers_compare.py (creates benchmarks/.venv-parsers on first use)
   -> results/parsers.md
5. benchmarks/bench_calculator.py: the calculator's 0.5 s contract -> results/calculator.md

Usage: .venv/bin/python benchmarks/run_all.py [--quick] [--configs …] [--tasks …]
       [--skip-server] [--skip-agents] [--skip-parsers]
A step that fails is reported and the others still run; the exit code is non-zero if any did.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def step(title: str, cmd: list[str]) -> int:
    print(f"\n=== {title}: {' '.join(cmd[1:])}", flush=True)
    t0 = time.monotonic()
    rc = subprocess.call(cmd, cwd=HERE.parent)
    print(f"=== {title}: {'ok' if rc == 0 else f'FAILED (exit {rc})'} "
          f"in {(time.monotonic() - t0) / 60:.1f} min", flush=True)
    return rc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run every benchmark; results in benchmarks/results/.")
    ap.add_argument("--quick", action="store_true", help="agents: 11 tasks x 2 configurations")
    ap.add_argument("--configs", help="agents: passed to run_agents.py --configs")
    ap.add_argument("--tasks", help="agents: passed to run_agents.py --tasks")
    ap.add_argument("--skip-server", action="store_true")
    ap.add_argument("--skip-agents", action="store_true")
    ap.add_argument("--skip-parsers", action="store_true")
    args = ap.parse_args(argv)
    py = sys.executable
    failed = []
    server = HERE / "bench_server.py"
    if not args.skip_server and server.exists() and step("server", [py, str(server)]):
        failed.append("server")
    if not args.skip_agents:
        cmd = [py, str(HERE / "run_agents.py")]
        cmd += ["--quick"] if args.quick else []
        cmd += ["--configs", args.configs] if args.configs else []
        cmd += ["--tasks", args.tasks] if args.tasks else []
        if step("agents", cmd):
            failed.append("agents")
    if step("report", [py, str(HERE / "report.py")]):
        failed.append("report")
    if not args.skip_parsers and step("parsers", [py, str(HERE / "parsers_compare.py")]):
        failed.append("parsers")
    if step("calculator", [py, str(HERE / "bench_calculator.py")]):
        failed.append("calculator")
    print(f"\nresults in {HERE / 'results'}" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
