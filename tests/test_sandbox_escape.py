"""Escape suite for the sandboxed `python` tool (toolcall_lib.interp).

Every test tries one way out of the sandbox and asserts the exact outcome: the error the code sees,
and that nothing changed outside. The sandbox is created with `require_isolation=True`, so on a kernel
without user namespaces or Landlock these tests fail loudly instead of passing on a weaker sandbox.
The attacks of issue 10 live in `sandbox_attacks.py`, shared with `test_sandbox_nonroot.py`, which runs
them again as an unprivileged user."""
import os, pprint, signal, socket, sys, tempfile, time
from pathlib import Path
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

from toolcall_lib import interp
from toolcall_lib.interp import Sandbox, python
import sandbox_attacks

PROJECT = Path(__file__).resolve().parents[1]
SECRET_NAME, SECRET_VALUE = 'TOOLCALL_ESCAPE_TEST_API_KEY', 'sk-escape-test-0123456789'
SETUP = 'import ctypes, os, signal, socket, sys\nlibc = ctypes.CDLL(None, use_errno=True)'  # re-run after a restart


def last_line(result) -> str:
    "The last line of a result's error (the exception and its message)."
    assert result.error is not None, f'expected an error, got {result}'
    return result.error.splitlines()[-1]


@pytest.fixture(scope='module')
def sandbox():
    os.environ[SECRET_NAME] = SECRET_VALUE
    try:
        with Sandbox(require_isolation=True, timeout=10, grace=1) as box:
            box.run(SETUP)
            yield box
    finally: os.environ.pop(SECRET_NAME, None)


def test_every_layer_is_active(sandbox):
    status = sandbox.status()
    assert status.missing == []
    assert {layer.name for layer in status.layers} == {'process', 'namespaces', 'filesystem', 'unprivileged_user', 'nested_namespaces',
        'landlock_fs', 'landlock_net', 'landlock_scope', 'seccomp', 'memory', 'disk', 'cpu', 'processes', 'files', 'no_new_privs',
        'environment', 'background', 'replies'}


def test_the_installed_filter_is_exactly_the_table(sandbox):
    """The worker reports the digest of the seccomp program it installed: it is the program the table gives for this
    mode, and a few calls no row lists (and no workload uses) are refused."""
    from toolcall_lib.interp.isolation import _SYSCALLS, _prebuilt_filter
    layers, machine = sandbox._worker.layers, os.uname().machine
    assert layers['seccomp_digest'] == _prebuilt_filter(machine, not layers.get('cgroup_memory'), False, True)[2]
    numbers = [_SYSCALLS[machine][name] for name in ('acct', 'syslog', 'userfaultfd', 'kexec_load')]
    code = f'import ctypes; libc = ctypes.CDLL(None, use_errno=True); [(libc.syscall(n, 0, 0, 0), ctypes.get_errno()) for n in {numbers}]'
    assert sandbox.run(code).value == '[(-1, 1), (-1, 1), (-1, 1), (-1, 1)]'


# --- the attacks of issue 10, and more of the same kinds (also run as an unprivileged user) -----------

@pytest.fixture(scope='module')
def attack_outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('attacks'); workdir.chmod(0o755)
    outcomes = sandbox_attacks.run_attacks(interp, str(workdir))
    return outcomes, sandbox_attacks.expected_outcomes(str(workdir), os.geteuid() == 0, outcomes['_paths'])


@pytest.mark.parametrize('attack', sorted(sandbox_attacks.expected_outcomes('/w', True, "('/p', '/s')")))
def test_attack(attack_outcomes, attack):
    outcomes, expected = attack_outcomes
    assert outcomes[attack] == expected[attack]


# --- files -----------------------------------------------------------------------------------------

def test_scratch_directory_is_writable(sandbox):
    assert sandbox.run('open("notes.txt", "w").write("kept")').value == '4'
    assert sandbox.run('os.getcwd()').value == repr(sandbox.scratch) == "'/scratch'"
    assert sandbox.read_file('notes.txt') == b'kept' and 'notes.txt' in sandbox.files()


@pytest.mark.parametrize('target, error', [
    ('/tmp/toolcall-escape-probe', 'FileNotFoundError: [Errno 2] No such file or directory'),  # not in the sandbox's view
    ('/usr/escape-probe', 'OSError: [Errno 30] Read-only file system'),
    (str(PROJECT / 'escape-probe'), 'OSError: [Errno 30] Read-only file system'),  # only .venv and toolcall_lib are shown here
    ('/escape-probe', 'OSError: [Errno 30] Read-only file system')])
def test_write_outside_scratch_is_denied(sandbox, target, error):
    if target.startswith('/tmp/') and sandbox.run('os.path.exists("/tmp")').value == 'True':
        error = 'OSError: [Errno 30] Read-only file system'  # /tmp only as the read-only parent of a path in view (a checkout under /tmp)
    result = sandbox.run(f'open({target!r}, "w")')
    assert last_line(result) == f"{error}: {target!r}"
    assert not os.path.exists(target)


def test_dev_null_and_own_terminals_are_the_only_writable_devices(sandbox):
    assert sandbox.run('open("/dev/null", "w").write("gone")').value == '4'
    assert last_line(sandbox.run('open("/dev/zero", "w")')) == "PermissionError: [Errno 13] Permission denied: '/dev/zero'"  # Landlock
    assert last_line(sandbox.run('open("/dev/null-probe", "w")')) == "OSError: [Errno 30] Read-only file system: '/dev/null-probe'"
    assert sandbox.run('sorted(os.listdir("/dev"))').value == pprint.pformat(  # wrapped, as IPython wraps it
        ['fd', 'full', 'null', 'ptmx', 'pts', 'random', 'stderr', 'stdin', 'stdout', 'urandom', 'zero'], width=79)
    # the session's own pseudo-terminals (a private devpts instance): nothing can be made there, nothing runs from there
    assert sandbox.run('os.readlink("/dev/ptmx"), sorted(os.listdir("/dev/pts"))').value == "('pts/ptmx', ['ptmx'])"
    assert last_line(sandbox.run('os.mknod("/dev/pts/9", 0o20666, os.makedev(136, 9))')) == 'PermissionError: [Errno 13] Permission denied'
    assert last_line(sandbox.run('open("/dev/pts/probe", "w")')) == "PermissionError: [Errno 13] Permission denied: '/dev/pts/probe'"
    flags = sandbox.run('[flag for flag in ("ST_NOSUID", "ST_NOEXEC", "ST_NODEV") if os.statvfs("/dev/pts").f_flag & getattr(os, flag)]')
    assert flags.value == "['ST_NOSUID', 'ST_NOEXEC']"
    assert not os.path.exists('/dev/null-probe')


def test_home_directory_is_not_visible(sandbox):
    probe = Path(os.path.expanduser('~')) / 'toolcall-escape-home-probe.txt'
    probe.write_text('private')
    try: assert sandbox.run(f'os.path.exists({str(probe)!r})').value == 'False'
    finally: probe.unlink()


def test_project_checkout_is_not_visible(sandbox):
    for path in (PROJECT / 'settings.ini', PROJECT / '.git'):
        assert last_line(sandbox.run(f'open({str(path)!r}).read()')) == f"FileNotFoundError: [Errno 2] No such file or directory: {str(path)!r}"
    # the package itself is shown (read-only), so `import toolcall_lib` works inside
    assert sandbox.run(f'os.path.exists({str(PROJECT / "toolcall_lib" / "interp" / "worker.py")!r})').value == 'True'


def test_script_directory_and_added_import_paths_are_not_visible(tmp_path):
    """`python app.py` run from a directory puts that directory on sys.path (and a program may add any other): the
    sandbox shows installed packages, never such a directory, which may be a home directory or a checkout with its
    secrets. Run in a fresh interpreter, as a user's program would. (An import path entry from a .pth file, such as
    the project root of a legacy `pip install -e .`, is the case `test_project_checkout_is_not_visible` meets.)"""
    (tmp_path/'.env').write_text('API_KEY=sk-live-secret')
    other = tmp_path/'project'; other.mkdir(); (other/'secrets.txt').write_text('hunter2')
    (tmp_path/'app.py').write_text(
        'import sys\n'
        f'sys.path.append({str(other)!r})\n'
        'from toolcall_lib.interp import Sandbox\n'
        'with Sandbox(require_isolation=True) as box:\n'
        f'    print(box.run("open({str(tmp_path / ".env")!r}).read()").error.splitlines()[-1])\n'
        f'    print(box.run("open({str(other / "secrets.txt")!r}).read()").error.splitlines()[-1])\n'
        '    print(box.run("import toolcall_lib.interp; 1").value)\n')
    import subprocess
    run = subprocess.run([sys.executable, str(tmp_path/'app.py')], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == [
        f"FileNotFoundError: [Errno 2] No such file or directory: {str(tmp_path / '.env')!r}",
        f"FileNotFoundError: [Errno 2] No such file or directory: {str(other / 'secrets.txt')!r}",
        '1']


def test_symlink_hardlink_and_proc_root_reach_nothing(sandbox):
    target = str(PROJECT / 'settings.ini')
    assert last_line(sandbox.run(f'os.symlink({target!r}, "link"); open("link").read()')) == \
        "FileNotFoundError: [Errno 2] No such file or directory: 'link'"
    assert last_line(sandbox.run(f'os.link({target!r}, "hard")')) == \
        f"FileNotFoundError: [Errno 2] No such file or directory: {target!r} -> 'hard'"
    assert last_line(sandbox.run(f'open("/proc/self/root" + {target!r}).read()')) == \
        f"FileNotFoundError: [Errno 2] No such file or directory: '/proc/self/root{target}'"
    assert last_line(sandbox.run('os.link(sys.executable, "python-link")')) == \
        f"OSError: [Errno 18] Invalid cross-device link: {sys.executable!r} -> 'python-link'"


def test_file_size_limit():
    with Sandbox(require_isolation=True, max_file_mb=1) as box:
        assert last_line(box.run('f = open("big", "wb"); f.write(b"0" * (2 << 20)); f.flush()')) == \
            'OSError: [Errno 27] File too large'
        assert len(box.read_file('big')) <= 1 << 20


def test_open_files_limit():
    with Sandbox(require_isolation=True, max_open_files=64) as box:
        assert last_line(box.run('files = [open("/dev/null") for _ in range(100)]')) == \
            "OSError: [Errno 24] Too many open files: '/dev/null'"
        assert box.run('1 + 1').value == '2'


# --- network -------------------------------------------------------------------------------------

def test_connect_to_loopback_port_is_denied(sandbox):
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0)); listener.listen(); listener.settimeout(0.2)
    port = listener.getsockname()[1]
    with listener:
        result = sandbox.run(f'socket.create_connection(("127.0.0.1", {port}), timeout=2)')
        assert last_line(result) == 'PermissionError: [Errno 13] Permission denied'  # Landlock, before routing
        with pytest.raises(socket.timeout): listener.accept()


def test_udp_has_no_route(sandbox):
    # Landlock has no UDP rules; the empty network namespace (not even loopback is up) stops it.
    result = sandbox.run('socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 53))')
    assert last_line(result) == 'OSError: [Errno 101] Network is unreachable'


@pytest.mark.parametrize('family', [1, 40, 17, 38, 31])  # AF_UNIX, AF_VSOCK, AF_PACKET, AF_ALG, AF_BLUETOOTH
def test_socket_families_outside_the_network_namespace_are_refused(sandbox, family):
    # vsock reaches a VM's hypervisor and unix sockets the host's daemons, whatever the network namespace
    result = sandbox.run(f'socket.socket({family}, socket.SOCK_SEQPACKET)')
    assert last_line(result) == 'PermissionError: [Errno 1] Operation not permitted'


def test_resolving_a_host_name_fails(sandbox):
    result = sandbox.run('socket.getaddrinfo("example.com", 443)')
    assert last_line(result) == 'socket.gaierror: [Errno -3] Temporary failure in name resolution'


# --- secrets and signals ---------------------------------------------------------------------------

def test_host_environment_is_not_visible(sandbox):
    assert sandbox.run(f'os.environ.get({SECRET_NAME!r})').value is None
    # the sandbox's own variables, and what a Jupyter kernel sets for the commands a cell runs (colour, no pager)
    assert sandbox.run('sorted(os.environ)').value == pprint.pformat(
        ['CLICOLOR', 'CLICOLOR_FORCE', 'FORCE_COLOR', 'GIT_PAGER', 'HOME', 'LANG', 'MKL_NUM_THREADS', 'MPLBACKEND', 'MPLCONFIGDIR',
         'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PAGER', 'PATH', 'TERM', 'TMPDIR'], width=79)
    assert sandbox.run('open("/proc/1/environ").read()').value == "''"  # the worker itself: the template started with no environment
    assert last_line(sandbox.run(f'open("/proc/{os.getpid()}/environ").read()')) == \
        f"FileNotFoundError: [Errno 2] No such file or directory: '/proc/{os.getpid()}/environ'"  # the host: not in this /proc


def test_signalling_the_host_is_impossible(sandbox):
    from toolcall_lib.interp import _template
    host_pid, template_pid = os.getpid(), _template.process.pid
    assert sandbox.run('os.getpid(), os.getppid()').value == '(1, 0)'  # PID 1 of its own namespace; parent invisible
    for pid in (host_pid, template_pid):
        assert last_line(sandbox.run(f'import signal; os.kill({pid}, signal.SIGKILL)')) == \
            'ProcessLookupError: [Errno 3] No such process'
    # kill(-1) reaches only the sandbox's own namespace, where there is nobody else
    assert last_line(sandbox.run('os.kill(-1, signal.SIGKILL)')) == 'ProcessLookupError: [Errno 3] No such process'
    assert _template.process.poll() is None and sandbox.run('"still here"').value == "'still here'"


def test_ptrace_of_host_process_fails(sandbox):
    result = sandbox.run(f'libc = ctypes.CDLL(None, use_errno=True); libc.ptrace(16, {os.getpid()}, 0, 0), ctypes.get_errno()')
    assert result.value == '(-1, 1)'  # seccomp refuses ptrace (and the host is not in the sandbox's PID namespace anyway)
    assert sandbox.run(f'libc.syscall(310, {os.getpid()}, 0, 0, 0, 0, 0), ctypes.get_errno()').value == '(-1, 1)'  # process_vm_readv


def test_named_unix_socket_is_unreachable(sandbox, tmp_path_factory):
    # Landlock (ABI <= 7) does not cover connect() by path; think of an ssh-agent socket. seccomp refuses AF_UNIX sockets.
    directory = tmp_path_factory.mktemp('agent'); directory.chmod(0o755)
    listener = socket.socket(socket.AF_UNIX); listener.bind(str(directory / 'agent.sock')); listener.listen(); listener.settimeout(0.2)
    with listener:
        result = sandbox.run(f'socket.socket(socket.AF_UNIX).connect({str(directory / "agent.sock")!r})')
        assert last_line(result) == 'PermissionError: [Errno 1] Operation not permitted'
        with pytest.raises(socket.timeout): listener.accept()
    assert sandbox.run('a, b = socket.socketpair(); a.send(b"ok"); b.recv(2)').value == "b'ok'"  # asyncio still works


# --- ctypes / os tricks ----------------------------------------------------------------------------

def test_nested_namespaces_and_mount_are_refused(sandbox):
    assert sandbox.run('libc = ctypes.CDLL(None, use_errno=True); libc.unshare(0x10000000), ctypes.get_errno()').value == '(-1, 1)'  # seccomp: EPERM
    # clone() itself must stay allowed (threads, fork); with a namespace flag seccomp refuses it (EPERM), and behind that
    # a new user namespace would hit max_user_namespaces = 0 (ENOSPC)
    assert sandbox.run('libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0), ctypes.get_errno()').value == '(-1, 1)'
    assert sandbox.run('libc.mount(b"none", b"/tmp", b"tmpfs", 0, None), ctypes.get_errno()').value == '(-1, 1)'
    assert last_line(sandbox.run('os.chroot("/")')) == "PermissionError: [Errno 1] Operation not permitted: '/'"


def test_no_new_privs_and_no_capabilities(sandbox):
    assert sandbox.run('libc.prctl(39, 0, 0, 0, 0)').value == '1'  # PR_GET_NO_NEW_PRIVS
    code = ('class Header(ctypes.Structure): _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]\n'
            'sets = (ctypes.c_uint32 * 6)(); libc.capget(ctypes.byref(Header(0x20080522, 0)), sets), list(sets)')
    assert sandbox.run(code).value == '(0, [0, 0, 0, 0, 0, 0])'  # effective, permitted, inheritable: all empty


def test_class_hierarchy_walk_to_subprocess_gains_nothing(sandbox):
    # the classic walk from a literal to the os module's globals and on to subprocess: reachable, because
    # import allow-lists are not a boundary in CPython; a shell and tools run, but inside the same view and layers
    walk = 'g = next(c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "_wrap_close").__init__.__globals__'
    assert sandbox.run(f'{walk}; g["__name__"]').value == "'os'"
    popen = 'g["sys"].modules["builtins"].__import__("subprocess").Popen'
    assert sandbox.run(f'{popen}(["cat", "/etc/hostname"], stdout=-1).communicate()[0]').value == "b'sandbox\\n'"
    assert sandbox.run(f'{popen}(["sh", "-c", "ls / | wc -l; id -un"], stdout=-1, text=True).communicate()[0]').value.endswith("\\nsandbox\\n'")
    target = str(PROJECT / 'settings.ini')
    result = sandbox.run(f'r = {popen}([sys.executable, "-c", "open({target!r})"], stderr=-1, text=True); r.wait(), r.stderr.read().splitlines()[-1]')
    assert result.value == '(1,\n ' + repr(f"FileNotFoundError: [Errno 2] No such file or directory: {target!r}") + ')'  # wrapped
    assert sandbox.run(f'{popen}(["touch", "/usr/x"], stderr=-1).communicate()[1].decode().strip()').value == \
        '"touch: cannot touch \'/usr/x\': Read-only file system"'
    assert sandbox.run(f'{popen}(["sh", "-c", "echo hi > /scratch/from-shell"]).wait(), open("/scratch/from-shell").read()').value == "(0, 'hi\\n')"


# --- resources -------------------------------------------------------------------------------------

def test_memory_bomb_raises_memory_error_and_session_survives(sandbox):
    sandbox.run('survivor = "yes"')
    assert last_line(sandbox.run('hog = bytearray(4 << 30)')) == 'MemoryError'
    assert last_line(sandbox.run('hogs = []\nwhile True: hogs.append(bytearray(50 << 20))')) == 'MemoryError'
    assert sandbox.run('del hogs; survivor').value == "'yes'"


def test_fork_bomb_is_contained():
    with Sandbox(require_isolation=True, max_processes=16, grace=1) as box:
        result = box.run('import os\nwhile True: os.fork()', timeout=10)
        assert last_line(result) == 'BlockingIOError: [Errno 11] Resource temporarily unavailable'
        assert not result.state_lost
        assert box.run('pid = os.fork()\nif pid == 0: os._exit(7)\nos.waitpid(pid, 0)[1] >> 8').value == '7'
    child = os.fork()  # the host can still start processes
    if child == 0: os._exit(0)
    assert os.waitpid(child, 0)[1] == 0


def test_no_process_outlives_its_cell(sandbox):
    assert sandbox.run('import subprocess\nsleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])\nsleeper.poll()').value is None
    assert sandbox.run('sleeper.poll()').value == '0'  # killed and reaped at the end of its cell (so no exit status)
    assert last_line(sandbox.run('os.kill(sleeper.pid, 0)')) == 'ProcessLookupError: [Errno 3] No such process'


def test_persistent_fork_bomb_is_killed_on_interrupt():
    with Sandbox(require_isolation=True, max_processes=16, grace=1) as box:
        started = time.monotonic()
        result = box.run('import os\nwhile True:\n    try: os.fork()\n    except OSError: pass', timeout=1)
        assert result.timed_out and not result.state_lost and time.monotonic() - started < 8
        assert box.run('pid = os.fork()\nif pid == 0: os._exit(0)\nos.waitpid(pid, 0)[1]').value == '0'  # room again


def test_infinite_c_loop_is_killed_and_restarted(sandbox):
    sandbox.run('before = 1')
    started = time.monotonic()
    result = sandbox.run('sum(range(10**12))', timeout=0.5)
    assert result.timed_out and result.state_lost and time.monotonic() - started < 8
    assert result.error.startswith('TimeoutError: the code ran past the 0.5 s limit and did not stop')
    assert last_line(sandbox.run('before')) == "NameError: name 'before' is not defined"
    sandbox.run(SETUP)


def test_soft_timeout_keeps_state(sandbox):
    sandbox.run('kept = 41')
    result = sandbox.run('import time\nwhile True: time.sleep(0.01)', timeout=0.3)
    assert result.timed_out and not result.state_lost
    assert sandbox.run('kept + 1').value == '42'


def test_cpu_limit_kills_worker():
    with Sandbox(require_isolation=True, cpu_seconds=1) as box:
        result = box.run('while True: pass', timeout=20)
        assert result.state_lost and not result.timed_out  # the CPU limit, not the 20 s timeout
        assert result.error.startswith('SandboxError: the sandbox process died')
        assert box.run('1 + 1').value == '2'


# --- output and protocol ---------------------------------------------------------------------------

def test_huge_output_is_capped(sandbox):
    result = sandbox.run('print("x" * 10**8)')
    assert len(result.output) == sandbox.max_output
    assert result.notes == (f'output truncated: {10**8 + 1 - sandbox.max_output} more characters not shown',)
    result = sandbox.run('"y" * 10**7')
    assert len(result.value) == sandbox.max_output and result.notes[0].startswith('result truncated: ')


def test_fd_level_writes_do_not_reach_the_protocol(sandbox):
    assert sandbox.run('os.write(1, b"\\x00\\x00\\x00\\x05junk"); os.write(2, b"more"); 5').value == '5'
    assert sandbox.run('6').value == '6'


def test_forged_oversized_frame_restarts_the_worker(sandbox):
    # the code finds the reply pipe and writes a frame header claiming 2 GiB: the host refuses it
    code = 'import struct\nfor fd in range(3, 10):\n    try: os.write(fd, struct.pack(">I", 2**31))\n    except OSError: pass\nimport time; time.sleep(5)'
    result = sandbox.run(code, timeout=8)
    assert result.state_lost and result.error.startswith('SandboxError: the sandbox sent an invalid reply')
    assert sandbox.run('1 + 1').value == '2'
    sandbox.run(SETUP)


@pytest.mark.parametrize('payload, problem', [
    ('json.dumps({"id": reply["id"], "images": {"mime": "image/png"}}).encode()', 'images is not a list'),
    ('json.dumps({"id": reply["id"], "images": 5}).encode()', 'images is not a list'),
    ('json.dumps({"id": reply["id"], "images": [{"mime": "image/png", "data": 5}]}).encode()', 'an image is not a mime type and its base64 data'),
    ('json.dumps({"id": reply["id"], "value": ["not", "a", "string"]}).encode()', 'value is not a string'),
    ('b"[" * 50_000', 'frame holds more than 512 JSON arrays, objects and elements'),
    ('b"[" + b"1," * 100_000 + b"1]"', 'frame holds more than 512 JSON arrays, objects and elements'),
])
def test_forged_reply_of_the_wrong_shape_restarts_the_worker(sandbox, payload, problem):
    # a cell rewrites how the worker packs its replies (the one way left to put words in the loop's mouth): whatever the
    # reply then holds, the host checks it field by field; a clear error, never a crash of the host
    code = ('import json, sys\ndef forged(reply):\n    payload = ' + payload + '\n    return len(payload).to_bytes(4, "big") + payload\n'
            'sys.modules["toolcall_sandbox.worker"]._pack_frame = forged')
    result = sandbox.run(code)  # its own reply goes out through the rewritten function already
    assert result.state_lost and result.error == f'SandboxError: the sandbox sent an invalid reply ({problem})'
    assert sandbox.run('1 + 1').value == '2'
    sandbox.run(SETUP)


def test_timer_planted_by_an_earlier_cell_cannot_answer_for_a_later_one():
    with Sandbox(require_isolation=True, timeout=10) as box:
        plant = ('import json, os, signal, struct, sys\n' + sandbox_attacks._FIND_REPLY +
                 'def forge(*args):\n    payload = json.dumps({"id": request_id + 1, "value": "\'forged\'"}).encode()\n'
                 '    os.write(reply_fd, struct.pack(">I", len(payload)) + payload)\n'
                 'signal.signal(signal.SIGALRM, forge); signal.setitimer(signal.ITIMER_REAL, 0.5); "armed"')
        assert box.run(plant).value == "'armed'"
        result = box.run('import time; time.sleep(1)\nraise SystemExit(3)')
        # the forged frame came while the cell still ran (the worker was not back in its request loop): it is ignored, the
        # cell's own result is shown, and the session, which holds the forger, is restarted with a note saying why
        assert result.value is None and result.error.splitlines()[-1] == 'SystemExit: 3', f'a forged reply was taken: {result!r}'
        assert result.state_lost and result.notes[-1].startswith('something in the session besides its request loop')
        assert 'forged' not in str(result)
        assert box.run('"fresh"').value == "'fresh'"


@pytest.mark.xfail(strict=True, reason='known limit (notebook, "Limits of this design"): a cell that rewrites the worker itself (its '
                   'kernel, its loop, IPython\'s shell) decides what later cells of its session report')
def test_a_cell_that_rewrites_the_worker_decides_what_later_cells_report():
    with Sandbox(require_isolation=True, timeout=10) as box:
        box.run('import sys\nworker = sys.modules["toolcall_sandbox.worker"]\n'
                'worker._Kernel.run = lambda self, code, max_output: {"outputs": [{"output_type": "execute_result", '
                '"data": {"text/plain": "\'forged\'"}, "metadata": {}, "execution_count": 1}]}')
        result = box.run('raise SystemExit(3)')
        assert result.error is not None and 'SystemExit' in result.error, f'a forged reply was taken: {result!r}'


def test_a_worker_the_host_cannot_see_waiting_is_not_trusted():
    # where the kernel stops showing the host where the worker waits (here its view is swapped for a directory, which
    # cannot be read), a reply cannot be checked: it is refused and the session restarted, never taken on trust
    with Sandbox(require_isolation=True) as box:
        box.run('kept = 1')
        unreadable = os.open('/', os.O_RDONLY)
        os.dup2(unreadable, box._worker.syscall_fd); os.close(unreadable)
        result = box.run('kept')
        assert result.error == ('SandboxError: the sandbox worker cannot be checked any more (the kernel no longer shows the host '
                                'where it waits), so its reply cannot be trusted') and result.state_lost
        assert last_line(box.run('kept')) == "NameError: name 'kept' is not defined"


def test_worker_that_stops_reading_requests_cannot_hang_the_host(sandbox):
    # the code rewires its own request loop to read one more byte and then never again; a request bigger than the pipe's
    # buffer then cannot be written in full: the host gives up at the timeout and kills the worker instead of blocking forever
    rewired = sandbox.run('import time\nprotocol = sys.modules["toolcall_sandbox.protocol"]\nreal_read = protocol._os_read\n'
                          'protocol._os_read = lambda fd, size: (real_read(fd, 1), time.sleep(10**6))')
    assert rewired.ok and not rewired.state_lost  # its loop was seen waiting for the next request, reading it
    started = time.monotonic()
    result = sandbox.run('x = 1  # ' + 'y' * 200_000, timeout=1)
    assert result.timed_out and result.state_lost and time.monotonic() - started < 8
    assert result.error.startswith('TimeoutError: the sandbox did not take the code within the 1 s limit')
    assert sandbox.run('1 + 1').value == '2'
    sandbox.run(SETUP)


def gone(pid:int) -> bool:
    "True once process `pid` no longer exists (nor lingers as a zombie)."
    try:
        with open(f'/proc/{pid}/stat') as file: return file.read().split(') ')[1].startswith('Z')
    except (FileNotFoundError, ProcessLookupError): return True   # ProcessLookupError: it ended between open and read


def test_closed_sessions_leave_nothing_behind():
    box = Sandbox(require_isolation=True)
    worker_pid, cgroups = box._worker.pid, dict(box._worker.cgroups)
    assert set(cgroups) == ({'pids', 'memory'} if os.geteuid() == 0 else set())
    box.run('import os\nfor _ in range(3):\n    if os.fork() == 0: import time; time.sleep(60)')
    box.close()
    assert gone(worker_pid) and not any(os.path.exists(path) for path in cgroups.values())
    box.close()  # closing twice is fine
    box = Sandbox(require_isolation=True)
    worker_pid = box._worker.pid
    del box  # garbage collection closes it too
    import gc; gc.collect()
    assert gone(worker_pid)


def test_sessions_are_cleaned_up_when_the_host_dies_abruptly(tmp_path):
    # os._exit skips atexit and finalizers: the template notices the host is gone and cleans up
    import subprocess, json
    script = ('import json, os, sys\nfrom toolcall_lib.interp import Sandbox\nbox = Sandbox()\n'
              'print(json.dumps([box._worker.pid, list(box._worker.cgroups.values())]), flush=True)\nos._exit(0)')
    completed = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60)
    worker_pid, cgroups = json.loads(completed.stdout)
    left = lambda: not gone(worker_pid) or any(os.path.exists(path) for path in cgroups)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and left(): time.sleep(0.05)
    assert not left()


def test_python_tool_uses_a_sandbox():
    assert python('import os; os.getpid()').value == '1'
    assert last_line(python(f'open({str(PROJECT / "settings.ini")!r})')).startswith('FileNotFoundError: [Errno 2]')


# --- terminals -------------------------------------------------------------------------------------

IN_A_TERMINAL = '''
import fcntl, json, os, struct, sys, termios
from toolcall_lib.interp import Sandbox
INJECT = """import fcntl, os, termios
def inject(fds):
    hits = []
    for fd in fds:
        try: fcntl.ioctl(fd, termios.TIOCSTI, b"!"); hits.append(fd)
        except OSError: pass
    return hits
"""
pending = lambda: struct.unpack('i', fcntl.ioctl(0, termios.FIONREAD, b'\\0' * 4))[0]
outcome = {'host_terminal': os.ttyname(0), 'host_controlling': open('/proc/self/stat').read().rsplit(')', 1)[1].split()[4] != '0'}
with Sandbox(require_isolation=True) as box:
    box.run(INJECT)
    outcome['worker'] = box.run('inject(range(256)), open("/proc/self/stat").read().rsplit(")", 1)[1].split()[4], os.path.exists("/dev/tty")').value
    box.write_file('inject.py', (INJECT + 'print(inject(range(3)))').encode())
    command = box.run('import sys\\nsys.modules["toolcall_sandbox.worker"]._run_command(sys.executable + " inject.py", True)')
    outcome['command'] = command.output or command.error
outcome['pending_on_host_terminal'] = pending()
print(json.dumps(outcome))
'''

def test_a_host_in_a_terminal_lends_the_sandbox_none_of_it(tmp_path):
    """The host runs in a terminal, its controlling terminal and standard descriptors: the worker has no controlling
    terminal and no descriptor that leads there, and TIOCSTI fails on everything it holds, and in a command under `!`
    (which has a pseudo-terminal of the session's own). Nothing waits in the host terminal's input afterwards."""
    import json, pty, select
    (tmp_path / 'in_a_terminal.py').write_text(IN_A_TERMINAL)
    pid, master = pty.fork()
    if pid == 0:
        try: os.execv(sys.executable, [sys.executable, str(tmp_path / 'in_a_terminal.py')])
        finally: os._exit(127)
    written, deadline = b'', time.monotonic() + 120
    while time.monotonic() < deadline:
        if not select.select([master], [], [], 1)[0]: continue
        try: chunk = os.read(master, 1 << 16)
        except OSError: break  # EIO: the child closed the terminal
        if not chunk: break
        written += chunk
    os.close(master)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, written.decode(errors='replace')[-3000:]
    outcome = json.loads(written.decode().splitlines()[-1])
    assert outcome['host_terminal'].startswith('/dev/pts/') and outcome['host_controlling'], outcome  # the host: in a terminal
    assert outcome['worker'] == "([], '0', False)", outcome  # no TIOCSTI anywhere, no controlling terminal, no /dev/tty
    assert outcome['command'] == '[]\r\n', outcome  # under its own pty, its controlling terminal: seccomp refuses TIOCSTI still
    assert outcome['pending_on_host_terminal'] == 0, outcome
