"""reactlab's benchmarks: the agent task suite, its runner and report, the parser comparison.

Scripts, not package code: run them from the repository root (`make bench` runs them all via
`benchmarks/run_all.py`). See benchmarks/README.md.
"""
