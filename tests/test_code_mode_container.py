"""Code mode in container mode (issue 28: "as root and as an unprivileged user, and in the container mode"):
`Sandbox(isolation='container', tools=...)` on the Docker-like host of `test_sandbox_container_mode.py` (Docker's default
seccomp profile, no namespaces), as root (through `readable_python.py`) and as `nobody`. Under Landlock + seccomp + the
subreaper, a cell calls the host's tools over the session's channel as in full mode, the attacks on the channel are
refused as in full mode, and the isolation promises still hold with the tools attached."""
import json, os, shutil, subprocess, sys, textwrap
from pathlib import Path
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

HERE = Path(__file__).resolve().parent
LIBRARY = HERE.parent / 'toolcall_lib'
DOCKER_LIKE, READABLE = str(HERE / 'docker_like.py'), str(HERE / 'readable_python.py')

PROBE = textwrap.dedent('''
    import importlib.util, json, os, shutil, socket, sys, tempfile, time, warnings
    spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
    library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
    from toolcall_lib.interp import Sandbox
    warnings.simplefilter('error')
    calls = []
    def get_weather(city:str, unit:str='C') -> dict:
        "The weather in `city` today."
        calls.append(('get_weather', city)); return {'city': city, 'temperature': 21, 'unit': unit}
    def add(a:int, b:int) -> int:
        "Add two integers."
        calls.append(('add', a, b)); return a + b
    def nap(seconds:float) -> str:
        "Sleep, then say so."
        calls.append(('nap', seconds)); time.sleep(seconds); return 'awake'
    def hidden_tool():
        "Never offered."
        calls.append(('hidden_tool',)); return 'host secret'
    def error_of(result): return (result.error or '').strip().splitlines()[-1] if result.error else None
    def gone(pid, within=3.0):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try: os.kill(pid, 0)
            except ProcessLookupError: return True
            except PermissionError: pass
            time.sleep(0.02)
        return False
    def raw_call(frame, read=True):
        "Cell code that writes `frame` to the reply pipe itself (found through a tool function) and, if `read`, reads one frame back."
        return ('import json, os\\n'
                'channel = [cell.cell_contents for cell in add.__closure__ if type(cell.cell_contents).__name__ == "_Channel"][0]\\n'
                f'payload = json.dumps({frame!r}).encode()\\n'
                'os.write(channel.reply_fd, len(payload).to_bytes(4, "big") + payload)\\n'
                + ('size = int.from_bytes(os.read(channel.request_fd, 4), "big")\\njson.loads(os.read(channel.request_fd, size))["error"][:22]' if read else ''))
    outcome = {'euid': os.geteuid()}
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(('127.0.0.1', 0)); udp.settimeout(0.3)
    private = tempfile.mkdtemp(); os.chmod(private, 0o777)
    with open(os.path.join(private, 'secret.txt'), 'w') as file: file.write('host secret')
    os.chmod(os.path.join(private, 'secret.txt'), 0o644); outcome['secret'] = os.path.join(private, 'secret.txt')
    try:
        box = Sandbox(isolation='container', tools=[get_weather, add, nap], tool_timeout=1, timeout=20)
    except Exception as error:
        print(json.dumps({**outcome, 'error': type(error).__name__, 'message': str(error)})); sys.exit(0)
    with box:
        outcome['missing'] = box.status().missing
        outcome['typed'] = box.run('row = get_weather("Oslo")\\nrow, type(row).__name__, add("2", b=40), type(add(1, 1)).__name__').value
        gather = ('import asyncio, time\\nstarted = time.monotonic()\\n'
                  'found = await asyncio.gather(nap.call_async(0.4), nap.call_async(0.4), add.call_async(1, 1))\\n'
                  'found, time.monotonic() - started < 0.75')
        outcome['gather'] = box.run(gather).value
        outcome['gather_many'] = box.run('found = await asyncio.gather(*(add.call_async(n, 1) for n in range(300)))\\nfound == [n + 1 for n in range(300)]').value
        calls.clear()
        outcome['unlisted'] = [box.run(raw_call({'call': name, 'arguments': {}, 'call_id': 10_000})).value
                               for name in ('hidden_tool', 'os.system', 'add.__globals__')]
        outcome['unlisted_calls'] = list(calls)
        outcome['after_unlisted'] = box.run('add(1, 1)').value
        box.run('kept = 1')
        forged = box.run(raw_call({'call_id': 1, 'value': 'forged'}, read=False) + 'print("after")')
        outcome['forged'] = [forged.state_lost, 'forged' in forged.output + str(forged.value)]
        outcome['after_forged'] = box.run('add(20, 22)').value
        box.run('x = 7')
        started = time.monotonic()
        hung = box.run('try: nap(60)\\nexcept ToolCallError as error: print(error)\\nx')
        outcome['hang'] = [hung.output, hung.value]
        outcome['hang_seconds_under_5'] = time.monotonic() - started < 5
        outcome['after_hang'] = box.run('x, add(2, 3)').value
        box.run('import socket')
        outcome['udp'] = error_of(box.run(f"add(1, 1)\\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {udp.getsockname()[1]}))"))
        try: outcome['udp_received'] = udp.recv(10).decode()
        except socket.timeout: outcome['udp_received'] = None
        outcome['read_host_file'] = error_of(box.run(f"add(1, 1)\\nopen({private + '/secret.txt'!r}).read()"))
        outcome['read_through_a_tool'] = error_of(box.run(f"get_weather(open({private + '/secret.txt'!r}).read())"))
        box.run("open('daemon.py', 'w').write('import os, time\\\\nif os.fork() == 0:\\\\n    os.setsid()\\\\n    open(\\\\\\"pid\\\\\\", \\\\\\"w\\\\\\").write(str(os.getpid()))\\\\n    while True: time.sleep(1)\\\\n')")
        box.run('import subprocess, sys\\nadd(1, 1)\\nsubprocess.run([sys.executable, "daemon.py"]); time.sleep(0.3)\\nadd(2, 2)')
        pid = int(box.read_file('pid').decode())
        outcome['daemon_gone_after_cell'] = gone(pid)
        # a cell's child that calls a tool through the channel it inherits, left running: ended with the cell
        box.run('os.remove("pid")')
        box.run('if os.fork() == 0:\\n    open("pid", "w").write(str(os.getpid()))\\n    while True: time.sleep(0.05)\\n'
                'time.sleep(0.2)\\nadd(3, 3)')
        pid = int(box.read_file('pid').decode())
        outcome['child_gone_after_cell'] = gone(pid)
        outcome['after_children'] = box.run('add(4, 4)').value
    udp.close(); shutil.rmtree(private)
    with Sandbox(isolation='container', tools=[add, nap], approve=lambda call: call.name == 'add' or 'No naps.') as box:
        outcome['refused'] = box.run('import asyncio\\nfound = await asyncio.gather(nap.call_async(0.1), add.call_async(1, 2), return_exceptions=True)\\n'
                                     '[str(item) for item in found]').value
        outcome['refused_sync'] = error_of(box.run('nap(0.1)'))
        outcome['after_refused'] = box.run('add(5, 5)').value
    print(json.dumps(outcome))
''')


def probe(user:str|None=None) -> dict:
    "Run the probe as root through `readable_python.py` on the Docker-like host, as `user` (runuser) if given."
    if os.geteuid() != 0: pytest.skip('the simulated hosts are made as root')
    if user and not shutil.which('runuser'): pytest.skip('runuser is not installed')
    as_user = ['runuser', '-u', user, '--'] if user else []
    command = [sys.executable, READABLE, *as_user, sys.executable, DOCKER_LIKE, sys.executable, '-c', PROBE, str(LIBRARY)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd='/')
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.splitlines()[-1])


REFUSED = 'PermissionError: [Errno 1] Operation not permitted'  # seccomp's EPERM

def assert_code_mode_holds(outcome:dict, root:bool):
    assert 'error' not in outcome, outcome
    assert outcome['missing'] == ['namespaces', 'filesystem', 'disk'], outcome  # without root RLIMIT_NPROC counts from the user's tasks
    # a call returns the tool's typed result, arguments coerced as for a model
    assert outcome['typed'] == "({'city': 'Oslo', 'temperature': 21, 'unit': 'C'}, 'dict', 42, 'int')", outcome
    # gathered calls run at once on the host: two naps of 0.4 s take under 0.75 s
    assert outcome['gather'] == "(['awake', 'awake', 2], True)" and outcome['gather_many'] == 'True', outcome
    # an unlisted name is refused and nothing runs; the channel stays in step
    assert outcome['unlisted'] == ["'There is no tool named'"] * 3 and outcome['unlisted_calls'] == [], outcome
    assert outcome['after_unlisted'] == '2', outcome
    # a result frame the cell writes forges nothing: the session is restarted, and goes on
    assert outcome['forged'] == [True, False] and outcome['after_forged'] == '42', outcome
    # a hanging tool is cut off at tool_timeout, and the session keeps its state
    assert outcome['hang'] == ["Tool 'nap' did not finish within 1 s; try a smaller request.\n", '7'], outcome
    assert outcome['hang_seconds_under_5'] and outcome['after_hang'] == '(7, 5)', outcome
    # with the tools attached: no network, no host files
    assert outcome['udp'] == REFUSED and outcome['udp_received'] is None, outcome
    assert outcome['read_host_file'] == f"PermissionError: [Errno 13] Permission denied: '{outcome['secret']}'", outcome
    assert outcome['read_through_a_tool'] == outcome['read_host_file'], outcome
    # nothing a cell starts outlives it, even a child holding the channel
    assert outcome['daemon_gone_after_cell'] and outcome['child_gone_after_cell'] and outcome['after_children'] == '8', outcome
    # approval refuses with the model's words, one call of gathered ones alone
    assert outcome['refused'] == "['No naps.', '3']" and outcome['refused_sync'] == 'toolcall_tools.ToolCallError: No naps.', outcome
    assert outcome['after_refused'] == '10', outcome


def test_code_mode_in_container_mode_as_root():
    outcome = probe()
    assert outcome['euid'] == 0; assert_code_mode_holds(outcome, root=True)

def test_code_mode_in_container_mode_as_a_user():
    outcome = probe(user='nobody')
    assert outcome['euid'] != 0; assert_code_mode_holds(outcome, root=False)
