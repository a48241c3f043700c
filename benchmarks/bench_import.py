"""How long the first import of toolcall_lib's common names takes, beside `import json` and pydantic's own import.

Run: python benchmarks/bench_import.py [ROUNDS]

Each statement runs in a fresh interpreter (`python -c`), timed inside it from just before the statement to just after,
so interpreter start-up is left out and nothing is cached in memory between runs (the .pyc files on disk are, as for
any user after the first run). The statements take turns within each round and each figure is the best of ROUNDS
(default 7), so a burst of load on a shared machine hits them alike; CPU time (`time.process_time`) is printed beside
wall time, and the ratios use CPU time: waiting for a core is the machine's load, not the import's cost.

Peers: `import json` (the floor: a stdlib module every program has) and `import pydantic` (toolcall_lib's heaviest
required dependency, imported by dispatch to convert arguments, so its cost is part of `run_tools`'s).
Goal (issue 43): `from toolcall_lib import run_tools, Chat` loads no jsonschema, mcp or provider SDK module
(tests/test_imports.py asserts that) and costs a small multiple of `import json`; the table prints the multiple.
"""
import json, subprocess, sys

STATEMENTS = [
    ('import json', 'import json'),
    ('import pydantic', 'import pydantic'),
    ('import toolcall_lib', 'import toolcall_lib'),
    ('get_schema', 'from toolcall_lib import get_schema'),
    ('parse_tool_calls', 'from toolcall_lib import parse_tool_calls'),
    ('call_func', 'from toolcall_lib import call_func'),
    ('run_tools, Chat', 'from toolcall_lib import run_tools, Chat'),
    ('jsonschema (for reference)', 'import jsonschema'),
]

CHILD = """import time
wall, cpu = time.perf_counter(), time.process_time()
{statement}
print(time.perf_counter() - wall, time.process_time() - cpu)"""

def timed(statement:str) -> tuple:
    "(wall seconds, CPU seconds) of `statement` in a fresh interpreter"
    out = subprocess.run([sys.executable, '-c', CHILD.format(statement=statement)], capture_output=True, text=True, check=True)
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu

def run(rounds:int=7) -> list:
    "One row per statement: best wall and CPU milliseconds, and CPU time as a multiple of `import json`'s and pydantic's"
    best = {label: (float('inf'), float('inf')) for label, _ in STATEMENTS}
    for _ in range(rounds):
        for label, statement in STATEMENTS:
            wall, cpu = timed(statement)
            best[label] = (min(best[label][0], wall), min(best[label][1], cpu))
    json_cpu, pydantic_cpu = best['import json'][1], best['import pydantic'][1]
    return [dict(case=label, statement=statement, wall_ms=best[label][0] * 1e3, cpu_ms=best[label][1] * 1e3,
                 vs_json=best[label][1] / max(json_cpu, 1e-6), vs_pydantic=best[label][1] / max(pydantic_cpu, 1e-6))
            for label, statement in STATEMENTS]

def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    rows = run(rounds)
    print(f'First import in a fresh interpreter, best of {rounds} ({sys.executable})')
    print(f"{'statement':<44} {'wall ms':>9} {'CPU ms':>9} {'x json':>8} {'x pydantic':>11}")
    for r in rows:
        print(f"{r['statement']:<44} {r['wall_ms']:>9.1f} {r['cpu_ms']:>9.1f} {r['vs_json']:>8.1f} {r['vs_pydantic']:>11.2f}")

if __name__ == '__main__': main()
