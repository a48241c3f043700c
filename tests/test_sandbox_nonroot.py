"""The sandbox as an ordinary user. Run as root, this test drops to the `nobody` user with `runuser` and
repeats the key escapes there, then the whole attack suite of `sandbox_attacks.py`: without root, the fork bomb
is contained by RLIMIT_NPROC (not a cgroup), memory by per-process limits and a seccomp filter (no memory
cgroup), and every layer must still come up. Run as a normal user, it runs the same scripts directly."""
import json, os, pwd, shutil, subprocess, sys, tempfile, textwrap
from pathlib import Path
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

LIBRARY = Path(__file__).resolve().parents[1] / 'toolcall_lib'  # loaded by path, as a user without the venv would
ATTACKS = Path(__file__).resolve().parent / 'sandbox_attacks.py'
sys.path.insert(0, str(ATTACKS.parent))
import sandbox_attacks

SCRIPT = textwrap.dedent('''
    import importlib.util, json, os, sys
    spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
    library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
    import toolcall_lib.interp as interp
    codes = {'ids': 'import os; os.getuid() == %d, os.getpid()' % os.getuid(),
             'project': 'open(%r)' % sys.argv[2], 'tmp': 'open("/tmp/toolcall-nonroot-probe", "w")', 'tmp_in_view': 'os.path.exists("/tmp")',
             'fork_bomb': 'while True: os.fork()', 'after_bomb': 'pid = os.fork()\\nif pid == 0: os._exit(7)\\nos.waitpid(pid, 0)[1] >> 8',
             'memory': 'hog = bytearray(4 << 30)', 'connect': 'import socket; socket.create_connection(("127.0.0.1", 9), timeout=1)',
             'lock_scratch': 'os.makedirs("a/b"); os.chmod("a/b", 0); os.chmod("a", 0o500); os.chmod(".", 0o500); "locked"'}
    with interp.Sandbox(require_isolation=True, max_processes=16) as box:
        results = {name: str(box.run(code, timeout=10)).splitlines()[-1] for name, code in codes.items()}
        results['layers'] = {layer.name: layer.detail for layer in box.status().layers if layer.active}
    print(json.dumps({'uid': os.getuid(), **results}))
''')


def python_for(user:str) -> str|None:
    "An interpreter `user` can run (the venv's may live under root's home)."
    for candidate in (sys.executable, '/usr/bin/python3'):
        if shutil.which(candidate) and subprocess.run(['runuser', '-u', user, '--', candidate, '-c', 'import ctypes, json'],
                                                      capture_output=True).returncode == 0: return candidate
    return None


def unprivileged_command() -> list:
    "The start of a command line that runs Python as an unprivileged user (`nobody` when we are root)."
    if os.geteuid() != 0: return [sys.executable]
    if not shutil.which('runuser'): pytest.skip('running as root and runuser is not installed')
    user = pwd.getpwnam('nobody').pw_name
    interpreter = python_for(user)
    if interpreter is None: pytest.skip('no Python interpreter the nobody user can run')
    return ['runuser', '-u', user, '--', interpreter]


def test_sandbox_as_unprivileged_user():
    completed = subprocess.run(unprivileged_command() + ['-c', SCRIPT, str(LIBRARY), str(LIBRARY.parent / 'settings.ini')],
                               capture_output=True, text=True, timeout=120, cwd='/')
    assert completed.returncode == 0, completed.stderr
    results = json.loads(completed.stdout)
    assert results['uid'] != 0
    assert results['ids'] == '(True, 1)'
    assert results['project'].startswith('FileNotFoundError: [Errno 2] No such file or directory:')
    # /tmp is not in view, or only as the read-only parent of a mounted path (a checkout or interpreter under /tmp)
    assert results['tmp'] == ("OSError: [Errno 30] Read-only file system" if results['tmp_in_view'] == 'True' else
                              "FileNotFoundError: [Errno 2] No such file or directory") + ": '/tmp/toolcall-nonroot-probe'"
    assert results['fork_bomb'] == 'BlockingIOError: [Errno 11] Resource temporarily unavailable'
    assert results['after_bomb'] == '7'
    assert results['memory'] == 'MemoryError'
    assert results['connect'] == 'PermissionError: [Errno 13] Permission denied'
    assert 'RLIMIT_NPROC' in results['layers']['processes']
    assert 'memfd_create and SysV shared memory are refused' in results['layers']['memory']
    assert results['layers']['unprivileged_user'] == f"runs as host uid {results['uid']}, never root"
    assert results['lock_scratch'] == "'locked'"  # and nothing to clean up on the host: scratch is a tmpfs of the session
    assert not os.path.exists('/tmp/toolcall-nonroot-probe')


@pytest.fixture(scope='module')
def unprivileged_attack_outcomes():
    workdir = tempfile.mkdtemp(prefix='toolcall-attacks-')
    try:
        if os.geteuid() == 0: os.chown(workdir, pwd.getpwnam('nobody').pw_uid, -1)
        command = unprivileged_command() + [str(ATTACKS), str(LIBRARY), workdir]
        completed = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd='/')
        assert completed.returncode == 0, completed.stderr
        outcomes = json.loads(completed.stdout)
        return outcomes, sandbox_attacks.expected_outcomes(workdir, False, outcomes['_paths'])
    finally: shutil.rmtree(workdir, ignore_errors=True)


@pytest.mark.parametrize('attack', sorted(sandbox_attacks.expected_outcomes('/w', False, "('/p', '/s')")))
def test_attack_as_unprivileged_user(unprivileged_attack_outcomes, attack):
    outcomes, expected = unprivileged_attack_outcomes
    assert outcomes[attack] == expected[attack]
