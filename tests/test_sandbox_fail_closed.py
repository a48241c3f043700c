"""Fail closed (issue 25, item 1): where the kernel withholds a layer that carries one of the sandbox's promises, a
default `Sandbox()` refuses to start with an `IsolationError` naming each missing layer, what it needs and what to do,
instead of running the code with less (or failing with an opaque `OSError(22)`). Simulated here as the issue found it:
a process that is root in a user namespace where no further user namespace may be made (max_user_namespaces = 0)."""
import json, shutil, subprocess, sys
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

PROBE = '''
import json, warnings
from toolcall_lib.interp import Sandbox
warnings.simplefilter('ignore')
try:
    with Sandbox() as box: outcome = {'ran': box.run('import socket; socket.if_nameindex()').value}
except Exception as error: outcome = {'error': type(error).__name__, 'message': str(error)}
print(json.dumps(outcome))
'''


def run_without_user_namespaces() -> dict:
    "The probe, run as root of a user namespace in which no user namespace can be made."
    if not shutil.which('unshare'): pytest.skip('unshare(1) is not installed')
    script = f'echo 0 > /proc/sys/user/max_user_namespaces && exec {sys.executable} -c "$0"'
    completed = subprocess.run(['unshare', '--user', '--map-root-user', 'sh', '-c', script, PROBE],
                               capture_output=True, text=True, timeout=120, cwd='/')
    if completed.returncode != 0 and 'unshare failed' in completed.stderr: pytest.skip('this host allows no user namespace at all')
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout.splitlines()[-1])


def test_a_default_sandbox_without_namespaces_refuses_and_says_why():
    outcome = run_without_user_namespaces()
    assert outcome.get('error') == 'IsolationError', outcome  # it was SandboxError: "sandbox setup failed: OSError(22, ...)"
    lines = outcome['message'].splitlines()
    assert lines[0].startswith('isolation layers missing on this system: namespaces (the kernel refused the namespaces (')
    assert lines[1].startswith('- namespaces: needs user namespaces') and 'user.max_user_namespaces > 0' in lines[1]
    assert '--privileged' in lines[1] and lines[-1].startswith("or pass isolation='partial'")
