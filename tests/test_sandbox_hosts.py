"""Where the sandbox runs (issue 25, item 6): the hosts a user may have, simulated here, and what a default `Sandbox()`
does on each. It either refuses with an `IsolationError` that names each missing layer and what to do, or runs with
every promised layer (`status()` reports none missing): never in between. The hosts:

- a VM or machine as root, and as an ordinary user: the host itself;
- a Docker container with the default seccomp profile (`docker_like.py`: `unshare`, `setns` and the mount family
  refused with EPERM, `clone` with namespace flags refused, `clone3` ENOSYS, CAP_SYS_ADMIN out of the bounding set),
  as root and as an ordinary user; Kubernetes pods without CAP_SYS_ADMIN run under the same profile (RuntimeDefault);
- a Docker container whose profile allows user namespaces (`docker_like.py --allow-namespaces`);
- a host without user namespaces (`no_user_namespaces.py`: max_user_namespaces = 0), as root and as an unprivileged
  uid of that namespace.

The table in the interp docs (`nbs/04_interp/00_index.ipynb`) names the test behind each row."""
import json, os, pwd, shutil, subprocess, sys, textwrap
from pathlib import Path
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

HERE = Path(__file__).resolve().parent
LIBRARY = HERE.parent / 'toolcall_lib'  # loaded by path, so an unprivileged uid without the venv's site-packages runs it too
DOCKER_LIKE, NO_USER_NAMESPACES = str(HERE / 'docker_like.py'), str(HERE / 'no_user_namespaces.py')
PROMISED = ['namespaces', 'filesystem', 'unprivileged_user', 'background', 'memory', 'processes']

PROBE = textwrap.dedent('''
    import importlib.util, json, os, sys, warnings
    spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
    library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
    from toolcall_lib.interp import Sandbox
    warnings.simplefilter('error')  # a warning instead of a refusal counts as running with less
    try:
        with Sandbox() as box:
            outcome = {'missing': box.status().missing, 'value': box.run('import socket; socket.if_nameindex()').value,
                       'euid': os.geteuid(), 'terminals': box._worker.layers.get('terminals'),
                       'pts': box.run('import os; a, b = os.openpty(); sorted(os.listdir("/dev/pts")), os.ttyname(b)').value}
    except Exception as error: outcome = {'error': type(error).__name__, 'message': str(error), 'euid': os.geteuid()}
    print(json.dumps(outcome))
''')


def interpreter_for(user:str|None) -> str:
    "A Python that `user` (None: this process's user) can run."
    if user is None: return sys.executable
    if not shutil.which('runuser'): pytest.skip('runuser is not installed')
    for candidate in (sys.executable, '/usr/bin/python3'):
        check = ['runuser', '-u', user, '--', candidate, '-c', 'import ctypes, json']
        if shutil.which(candidate) and subprocess.run(check, capture_output=True).returncode == 0: return candidate
    pytest.skip(f'no Python that {user} can run')


def probe(*launcher:str, user:str|None=None, becomes:str|None=None) -> dict:
    """Run the probe on a simulated host: `launcher` (the launcher's command line), as `user` (runuser) if given;
    `becomes` is the user the launcher itself turns into, for whom the probe's interpreter must be runnable."""
    python = interpreter_for(user or becomes)
    through = [interpreter_for(user), *launcher] if launcher else []  # the launcher script, run by the same Python, execs the probe
    command = [*(['runuser', '-u', user, '--'] if user else []), *through, python, '-c', PROBE, str(LIBRARY)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=180, cwd='/')
    if 'unshare failed' in completed.stderr: pytest.skip('this host allows no user namespace at all')
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.splitlines()[-1])


def unprivileged_user() -> str:
    if os.geteuid() != 0: pytest.skip('needs root to become the unprivileged user')
    return pwd.getpwnam('nobody').pw_name


DOCKER_REFUSAL = '[Errno 1] unshare: Operation not permitted'  # the profile's EPERM
NO_NAMESPACE_LEFT = '[Errno 28] unshare: No space left on device'  # ENOSPC: max_user_namespaces reached (0)

def assert_refused_for_namespaces(outcome:dict, reason:str):
    "The refusal a user sees where the kernel refuses the namespaces (for `reason`): the exact lines and the way out."
    assert outcome.get('error') == 'IsolationError', outcome
    lines = outcome['message'].splitlines()
    assert lines[0] == f'isolation layers missing on this system: namespaces (the kernel refused the namespaces ({reason}))', lines
    assert lines[1].startswith('- namespaces: needs user namespaces') and 'user.max_user_namespaces > 0' in lines[1], lines
    assert 'seccomp profile that allows unshare and clone of namespaces, or --privileged' in lines[1], lines
    assert lines[2].startswith("or pass isolation='container' to run with Landlock, seccomp and rlimits in their place: no network"), lines
    assert 'given up: host file names and metadata stay visible' in lines[2], lines  # what container mode gives up, named
    assert lines[-1] == "or pass isolation='partial' to run without them (the code may then reach what they keep out)", lines
    assert len(lines) == 4, lines


def assert_fully_isolated(outcome:dict):
    assert 'error' not in outcome, outcome
    assert outcome['missing'] == [], outcome  # every layer, the promised ones included
    assert outcome['value'] == '[(1, \'lo\')]', outcome  # its own network namespace: a loopback, nothing of the host's
    assert outcome['terminals'] and outcome['pts'] == "(['0', 'ptmx'], '/dev/pts/0')", outcome  # its own devpts instance


def test_vm_as_root():
    if os.geteuid() != 0: pytest.skip('needs root')
    outcome = probe()
    assert_fully_isolated(outcome); assert outcome['euid'] == 0

def test_vm_as_a_user(): assert_fully_isolated(probe(user=unprivileged_user()))

def test_docker_default_profile_as_root():
    if os.geteuid() != 0: pytest.skip('needs root')
    outcome = probe(DOCKER_LIKE)
    assert_refused_for_namespaces(outcome, DOCKER_REFUSAL); assert outcome['euid'] == 0

def test_docker_default_profile_as_a_user():
    outcome = probe(DOCKER_LIKE, user=unprivileged_user())
    assert_refused_for_namespaces(outcome, DOCKER_REFUSAL); assert outcome['euid'] != 0

def test_docker_with_user_namespaces_allowed():
    if os.geteuid() != 0: pytest.skip('needs root')
    assert_fully_isolated(probe(DOCKER_LIKE, '--allow-namespaces'))

def test_no_user_namespaces_as_root():
    outcome = probe(NO_USER_NAMESPACES)
    assert_refused_for_namespaces(outcome, NO_NAMESPACE_LEFT); assert outcome['euid'] == 0

def test_no_user_namespaces_as_an_unprivileged_uid():
    if os.geteuid() != 0: pytest.skip('needs root to map the uid range')
    user = unprivileged_user()
    outcome = probe(NO_USER_NAMESPACES, '--uid', str(pwd.getpwnam(user).pw_uid), becomes=user)
    assert_refused_for_namespaces(outcome, NO_NAMESPACE_LEFT); assert outcome['euid'] == pwd.getpwnam(user).pw_uid


LAUNCHER_CHECK = textwrap.dedent('''
    import ctypes, json, os
    libc = ctypes.CDLL(None, use_errno=True)
    def errno_of(result): return 0 if result == 0 else ctypes.get_errno()
    clone3 = {'x86_64': 435, 'aarch64': 435}[os.uname().machine]
    pid = os.fork()
    if pid == 0: os._exit(0)
    print(json.dumps({'unshare_user': errno_of(libc.unshare(0x10000000)), 'unshare_net': errno_of(libc.unshare(0x40000000)),
                      'mount': errno_of(libc.mount(b'none', b'/mnt', b'tmpfs', 0, None)),
                      'clone3': errno_of(libc.syscall(clone3, None, 0)), 'fork': os.waitpid(pid, 0)[1]}))
''')

def launcher_errors(*launcher:str) -> dict:
    completed = subprocess.run([sys.executable, *launcher, sys.executable, '-c', LAUNCHER_CHECK], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout)

def test_the_simulated_hosts_refuse_what_the_real_ones_do():
    "The launchers are what the tests above rely on: the errors the kernel gives there, while fork still works."
    EPERM, ENOSPC, ENOSYS = 1, 28, 38
    test_docker = launcher_errors(DOCKER_LIKE)
    assert test_docker == {'unshare_user': EPERM, 'unshare_net': EPERM, 'mount': EPERM, 'clone3': ENOSYS, 'fork': 0}, test_docker
    without = launcher_errors(NO_USER_NAMESPACES)
    assert without['unshare_user'] == ENOSPC and without['fork'] == 0 and without['clone3'] != ENOSYS, without


@pytest.mark.parametrize('platform', ['darwin', 'win32'])
def test_macos_and_windows_are_refused(monkeypatch, platform):
    "Not Linux: no kernel layer to build on, so a Sandbox refuses at once (the check reads sys.platform at each start)."
    from toolcall_lib.interp import Sandbox, IsolationError
    monkeypatch.setattr(sys, 'platform', platform)
    with pytest.raises(IsolationError) as caught: Sandbox()
    assert str(caught.value) == (f'the sandbox is built from Linux kernel features and cannot run on {platform}; '
                                 'use run_python_here for trusted code, or run on Linux')
