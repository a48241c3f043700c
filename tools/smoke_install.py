"""Smoke test of an installed toolcall_lib (a wheel or an sdist in a fresh venv): run it with that venv's python,
from a directory outside the checkout. It checks that the package comes from site-packages, then uses each part as a
user would: schema (with docments from a tool module written here), dispatch, parse, the sandbox, the `toolcall` CLI,
and that the installed package carries its type marker (PEP 561). Exits non-zero with the reason on the first failure.

    python -m venv /tmp/v && /tmp/v/bin/pip install dist/toolcall_lib-*.whl && cd /tmp && /tmp/v/bin/python /path/to/smoke_install.py"""
import json, os, subprocess, sys, sysconfig, tempfile
from pathlib import Path

TOOL_MODULE = '''
def get_forecast(
    city: str,  # City name, e.g. "Paris"
    days: int = 1,  # Days of forecast, 1 to 7
) -> str:  # The forecast
    "Get the weather forecast for a city."
    return f"{city}: sunny for the next {days} days"
'''


def check(condition, message):
    if not condition: sys.exit(f'smoke test failed: {message}')


def check_types(scratch):
    "With mypy in this venv (`.ci/run` installs it beside the wheel), mypy must read the package's own types (py.typed)."
    try: import mypy  # noqa: F401
    except ImportError: return print('mypy is not installed here: the py.typed check is only the file check above')
    (Path(scratch)/'uses_types.py').write_text('from toolcall_lib.schema import get_schema\n'
                                               'name: int = get_schema\n')
    done = subprocess.run([sys.executable, '-m', 'mypy', '--no-incremental', '--follow-imports=silent', 'uses_types.py'],
                          capture_output=True, text=True, timeout=300, cwd=scratch)
    check('missing library stubs or py.typed marker' not in done.stdout, f'mypy does not see the types: {done.stdout}')
    check('uses_types.py:2' in done.stdout and 'Incompatible types' in done.stdout, f'mypy did not type get_schema: {done.stdout}')


def main():
    import toolcall_lib
    site = Path(sysconfig.get_paths()['purelib']).resolve()
    location = Path(toolcall_lib.__file__).resolve()
    check(site in location.parents, f'toolcall_lib was imported from {location}, not from {site}')
    check((location.parent/'py.typed').is_file(), 'py.typed is missing from the installed package')
    with tempfile.TemporaryDirectory(prefix='toolcall-smoke-') as scratch:
        (Path(scratch)/'smoke_tools.py').write_text(TOOL_MODULE)
        sys.path.insert(0, scratch)
        from smoke_tools import get_forecast
        from toolcall_lib.schema import tool_schema
        schema = tool_schema(get_forecast, 'openai')
        check(schema['function']['parameters']['properties']['days']['description'] == 'Days of forecast, 1 to 7', schema)
        from toolcall_lib.dispatch import call_func
        check(call_func('get_forecast', '{"city": "Oslo", "days": "3"}', [get_forecast]) == 'Oslo: sunny for the next 3 days', 'dispatch')
        from toolcall_lib.parse import parse_tool_calls
        calls = parse_tool_calls('<tool_call>{"name": "get_forecast", "arguments": {"city": "Lima"}}</tool_call>', tools=['get_forecast']).calls
        check([(c.name, c.arguments) for c in calls] == [('get_forecast', {'city': 'Lima'})], f'parse: {calls}')
        from toolcall_lib.loop import run_tools
        reply = {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function',
                 'function': {'name': 'get_forecast', 'arguments': '{"city": "Paris", "days": "2"}'}}]}
        check(run_tools(reply, [get_forecast]) == [{'role': 'tool', 'tool_call_id': 'call_1', 'content': 'Paris: sunny for the next 2 days'}], 'loop')
        from toolcall_lib.interp import Sandbox
        with Sandbox() as sandbox:
            sandbox.run('import math\nradius = 2')
            check(sandbox.run('round(math.pi * radius ** 2, 2)').value == '12.57', 'sandbox state')
            check(sandbox.run('open("/etc/shadow").read()').error, 'sandbox read /etc/shadow')
        toolcall = Path(sys.executable).parent/'toolcall'
        def cli(*args):
            done = subprocess.run([str(toolcall), *args], capture_output=True, text=True, timeout=120, cwd=scratch)
            check(done.returncode == 0, f'toolcall {" ".join(args)}: {done.returncode} {done.stderr}')
            return done.stdout
        check(cli('--version').strip() == f'toolcall {toolcall_lib.__version__} (toolcall_lib)', 'toolcall --version')
        check(cli('python', '-c', 'sum(range(10))').strip() == '45', 'toolcall python -c')
        printed = json.loads(cli('schema', 'smoke_tools.py:get_forecast', '--format', 'anthropic'))
        check(printed['input_schema']['properties']['city']['description'] == 'City name, e.g. "Paris"', printed)
        check_types(scratch)
    print(f'smoke test passed: toolcall_lib {toolcall_lib.__version__} from {location.parent}')


if __name__ == '__main__': main()
