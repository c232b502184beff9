"""Benchmarks: the harness behind `casebook bench` and the realistic workload it reads."""
