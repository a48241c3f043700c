"""Container mode (issue 25, item 2): `Sandbox(isolation='container')` on the hosts without namespaces, simulated as in
`test_sandbox_hosts.py` (`docker_like.py`: Docker's default seccomp profile; `no_user_namespaces.py`:
max_user_namespaces = 0), as root and as an unprivileged user. Each escape attack asserts its exact outcome, and the
session passes the liveness checks of the full mode. Root runs through `readable_python.py`, which makes this machine's
Python (a build under /root, mode 700) readable by others as on a host with Python in /usr/local: as root, container mode
runs the code as an unprivileged uid of its own, which must be able to read it (else a clear IsolationError, tested
below)."""
import json, os, pwd, shutil, signal, socket, subprocess, sys, tempfile, textwrap, threading, time
from pathlib import Path
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox layers are Linux kernel features', allow_module_level=True)

HERE = Path(__file__).resolve().parent
LIBRARY = HERE.parent / 'toolcall_lib'
DOCKER_LIKE, NO_USER_NAMESPACES, READABLE = str(HERE / 'docker_like.py'), str(HERE / 'no_user_namespaces.py'), str(HERE / 'readable_python.py')

PROBE = textwrap.dedent('''
    import importlib.util, json, os, shutil, socket, subprocess, sys, tempfile, threading, time, warnings
    spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
    library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
    from toolcall_lib.interp import Sandbox
    from toolcall_lib.interp.isolation import _SYSCALLS, _prebuilt_filter
    import resource
    numbers = _SYSCALLS[os.uname().machine]
    warnings.simplefilter('error')
    outcome = {'euid': os.geteuid()}
    def error_of(result): return (result.error or '').strip().splitlines()[-1] if result.error else None
    def gone(pid, within=3.0):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try: os.kill(pid, 0)
            except ProcessLookupError: return True
            except PermissionError: pass
            time.sleep(0.02)
        return False
    # the host's side: a UDP and a TCP listener, a private file and directory, a process of its own
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(('127.0.0.1', 0)); udp.settimeout(0.3)
    tcp = socket.socket(); tcp.bind(('127.0.0.1', 0)); tcp.listen()
    private = tempfile.mkdtemp(); os.chmod(private, 0o777)
    with open(os.path.join(private, 'secret.txt'), 'w') as file: file.write('host secret')
    os.chmod(os.path.join(private, 'secret.txt'), 0o644)
    sleeper = subprocess.Popen(['sleep', '60'])
    # a file the host's user owns that the session may read (a read_paths file, as its own venv is)
    readable = tempfile.mkdtemp(); os.chmod(readable, 0o755)
    owned = os.path.join(readable, 'owned.txt'); open(owned, 'w').write('mine'); os.chmod(owned, 0o644)
    owned_before = os.stat(owned)
    try:
        box = Sandbox(isolation='container', timeout=2, read_paths=[readable])
    except Exception as error:
        print(json.dumps({**outcome, 'error': type(error).__name__, 'message': str(error)})); sys.exit(0)
    with box:
        status = box.status()
        outcome['missing'] = status.missing
        outcome['scratch_mode'] = oct(os.stat(box.scratch).st_mode & 0o777)
        run = lambda code: error_of(box.run(code))
        box.run('import os, socket, signal, subprocess, time')
        outcome['udp'] = run(f"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {udp.getsockname()[1]}))")
        try: outcome['udp_received'] = udp.recv(10).decode()
        except socket.timeout: outcome['udp_received'] = None
        outcome['tcp'] = run(f"socket.create_connection(('127.0.0.1', {tcp.getsockname()[1]}), timeout=1)")
        outcome['inet6'] = run('socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)')
        outcome['netlink'] = run('socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)')
        outcome['packet'] = run('socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, 0)')
        outcome['unix'] = run('socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)')
        outcome['socketpair'] = box.run('a, b = socket.socketpair(); a.send(b"ok"); b.recv(2)').value
        outcome['read_host_file'] = run(f"open({private + '/secret.txt'!r}).read()")
        outcome['write_host_dir'] = run(f"open({private + '/planted.txt'!r}, 'w')")
        outcome['write_tmp'] = run("open('/tmp/planted-by-the-sandbox', 'w')")
        outcome['chmod_host_file'] = run(f"os.chmod({private + '/secret.txt'!r}, 0o666)")
        outcome['planted'] = sorted(os.listdir(private)), os.path.exists('/tmp/planted-by-the-sandbox')
        outcome['signal_host'] = run(f'os.kill({sleeper.pid}, signal.SIGKILL)')
        outcome['sleeper_alive'] = sleeper.poll() is None
        outcome['signal_host_process'] = run(f'os.kill({os.getpid()}, signal.SIGKILL)')
        outcome['sysv_shm'] = run('import ctypes; libc = ctypes.CDLL(None, use_errno=True); assert libc.shmget(0, 4096, 0o1666) == 0, ctypes.get_errno()')
        outcome['mq_open'] = run('assert libc.mq_open(b"/toolcall-probe", 0o100 | 2, 0o600, None) == 0, ctypes.get_errno()')
        outcome['pidfd_getfd'] = run(f'assert libc.syscall(438, os.pidfd_open({os.getpid()}), 0, 0) == 0, ctypes.get_errno()')
        # issue 38: metadata of a file the session may only read, through a read-only descriptor
        box.run(f'fd = os.open({owned!r}, os.O_RDONLY)')
        outcome['fchmod_read_path'] = run('os.fchmod(fd, 0o666)')
        outcome['futimens_read_path'] = run('os.utime(fd, (0, 0))')
        outcome['fsetxattr_read_path'] = run('os.setxattr(fd, "user.planted", b"1")')
        outcome['fchown_read_path'] = run('os.fchown(fd, os.getuid(), os.getgid())')
        after = os.stat(owned)
        outcome['owned_unchanged'] = (after.st_mode, after.st_mtime_ns, after.st_uid) == (owned_before.st_mode, owned_before.st_mtime_ns, owned_before.st_uid)
        try: outcome['owned_xattrs'] = os.listxattr(owned)
        except OSError: outcome['owned_xattrs'] = []
        # the host's processes: their limits, priorities, affinity, scheduling and I/O priority stay theirs
        outcome['prlimit_host'] = run(f'import resource; resource.prlimit({sleeper.pid}, resource.RLIMIT_NOFILE, (64, 64))')
        outcome['prlimit_query_host'] = run(f'resource.prlimit({sleeper.pid}, resource.RLIMIT_CPU)')
        outcome['setpriority_host'] = run(f'os.setpriority(os.PRIO_PROCESS, {sleeper.pid}, 19)')
        outcome['setpriority_user'] = run('os.setpriority(os.PRIO_USER, 0, 19)')
        outcome['sched_setaffinity_host'] = run(f'os.sched_setaffinity({sleeper.pid}, {{0}})')
        outcome['sched_setscheduler_host'] = run(f'os.sched_setscheduler({sleeper.pid}, os.SCHED_IDLE, os.sched_param(0))')
        outcome['ioprio_set_host'] = run(f'import ctypes; libc = ctypes.CDLL(None, use_errno=True); assert libc.syscall({numbers["ioprio_set"]}, 1, {sleeper.pid}, 7) == 0, ctypes.get_errno()')
        outcome['sleeper_limits'] = [list(resource.prlimit(sleeper.pid, resource.RLIMIT_NOFILE)) == list(resource.getrlimit(resource.RLIMIT_NOFILE)), os.getpriority(os.PRIO_PROCESS, sleeper.pid) == os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(sleeper.pid) == os.SCHED_OTHER]
        outcome['prlimit_self'] = box.run('resource.prlimit(0, resource.RLIMIT_NOFILE) == resource.getrlimit(resource.RLIMIT_NOFILE)').value
        # a child of the bootstrap (CLONE_PARENT) would outlive the cell and forge replies: refused, as clone3 (ENOSYS)
        outcome['clone_parent'] = run(f'forked = libc.syscall({numbers["clone"]}, 0x8000 | 17, 0, 0, 0, 0)\\nif forked == 0: os._exit(0)\\nassert forked == 0, ctypes.get_errno()')
        outcome['clone3'] = run(f'assert libc.syscall({numbers["clone3"]}, 0, 0) == 0, ctypes.get_errno()')
        outcome['unlisted'] = box.run(f'sorted({{(libc.syscall(n, 0, 0, 0), ctypes.get_errno()) for n in {[numbers[name] for name in ("acct", "syslog", "userfaultfd", "kexec_load")]}}})').value
        outcome['digest'] = [box._worker.layers.get('seccomp_digest'), _prebuilt_filter(os.uname().machine, not box._worker.layers.get('cgroup_memory'), True, bool(box._worker.layers.get('own_uid')))[2]]
        outcome['seccomp_detail'] = [layer.detail for layer in status.layers if layer.name == 'seccomp'][0]
        outcome['ptrace'] = run('import ctypes; libc = ctypes.CDLL(None, use_errno=True); r = libc.ptrace(16, %d, 0, 0); assert r == 0, ctypes.get_errno()' % sleeper.pid)
        box.run(\"open('daemon.py', 'w').write('import os, time\\\\nif os.fork() == 0:\\\\n    os.setsid()\\\\n    open(\\\\\\\"pid\\\\\\\", \\\\\\\"w\\\\\\\").write(str(os.getpid()))\\\\n    while True: time.sleep(1)\\\\n')\")
        box.run('import sys; subprocess.run([sys.executable, \"daemon.py\"]); time.sleep(0.3)')
        pid = int(box.read_file('pid').decode())
        outcome['daemon_gone_after_cell'] = gone(pid)
        # a daemon started by a cell that is still running when close() comes
        box.run('os.remove(\"pid\")')
        cell = threading.Thread(target=box.run, args=('subprocess.run([sys.executable, \"daemon.py\"]); time.sleep(30)',), kwargs={'timeout': 60})
        cell.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try: pid = int(box.read_file('pid').decode()); break
            except Exception: time.sleep(0.05)
        scratch = box.scratch
        box.close(); cell.join(10)
        outcome['daemon_gone_after_close'] = gone(pid)
        outcome['scratch_removed'] = not os.path.exists(scratch)
    sleeper.kill(); sleeper.wait(); udp.close(); tcp.close(); shutil.rmtree(private); shutil.rmtree(readable)
    with Sandbox(isolation='container', timeout=60) as box:
        outcome['state'] = [box.run('x = 41').error, box.run('x + 1').value]
        outcome['shell'] = box.run('import subprocess; subprocess.run(\"echo hello from sh\", shell=True, capture_output=True, text=True).stdout').value
        slow = box.run('import time; time.sleep(5)', timeout=1)
        outcome['timeout'] = [slow.timed_out, slow.state_lost, box.run('x').value]
        libraries = box.run('import numpy, pandas; float(numpy.arange(4).sum()), pandas.DataFrame({\"a\": [1, 2]}).a.sum()')
        outcome['numpy_pandas'] = libraries.value or error_of(libraries)
        filled = box.run('held = []\\ntry:\\n    while True: held.append(open(\"/dev/null\"))\\nexcept OSError as error: print(error.errno)')
        outcome['emfile'] = [filled.output, filled.state_lost, box.run('del held; x').value]
        plot = box.run('import matplotlib.pyplot as plt; plt.plot([1, 2, 3]); plt.show()')
        outcome['plot'] = [image.mime for image in plot.images] or error_of(plot)
        # no terminals of its own (no mount namespace), and the host's out of reach: `!cmd` keeps its pipe
        outcome['ptmx'] = error_of(box.run('import os; os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)'))
        outcome['pts'] = error_of(box.run('os.listdir("/dev/pts")'))
        command = box.run('import sys; worker = sys.modules["toolcall_sandbox.worker"]; '
                          'worker._run_command("echo piped; [ -t 1 ] || echo no terminal", bool(worker._TERMINALS))')
        outcome['command'] = [command.output, command.value]
        # issue 38: a fork storm stops at the session's share (RLIMIT_NPROC: without root, on the host user's uid counted
        # from that user's tasks at the start), and meanwhile the host forks and starts another session at once
        outcome['processes_detail'] = [layer.detail for layer in box.status().layers if layer.name == 'processes'][0]
        storm = threading.Thread(target=box.run, args=('import os\\nwhile True:\\n    try: os.fork()\\n    except OSError: pass',), kwargs={'timeout': 6})
        storm.start(); time.sleep(2)
        outcome['host_forks_in_storm'] = subprocess.run(['true']).returncode
        with Sandbox(isolation='container', timeout=30) as other: outcome['sandbox_in_storm'] = other.run('1 + 1').value
        storm.join(60)
    print(json.dumps(outcome))
''')


def probe(*launcher:str, user:str|None=None) -> dict:
    """Run the probe as root through `readable_python.py`, on the host `launcher` simulates, as `user` (runuser) if
    given."""
    if os.geteuid() != 0: pytest.skip('the simulated hosts are made as root')
    as_user = ['runuser', '-u', user, '--'] if user else []
    if user and not shutil.which('runuser'): pytest.skip('runuser is not installed')
    command = [sys.executable, READABLE, *as_user, *([sys.executable, *launcher] if launcher else []),
               sys.executable, '-c', PROBE, str(LIBRARY)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd='/')
    if 'unshare failed' in completed.stderr: pytest.skip('this host allows no user namespace at all')
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.splitlines()[-1])


REFUSED = 'PermissionError: [Errno 1] Operation not permitted'  # seccomp's EPERM
PERMISSION_DENIED = 'PermissionError: [Errno 13] Permission denied'

def assert_container_mode_holds(outcome:dict, root:bool):
    assert 'error' not in outcome, outcome
    given_up = ['namespaces', 'filesystem', 'disk']  # processes: without root counted from the host user's tasks
    assert outcome['missing'] == given_up, outcome
    assert outcome['scratch_mode'] == '0o700'
    # no network of any kind
    for family in ('udp', 'tcp', 'inet6', 'netlink', 'packet', 'unix'): assert outcome[family] == REFUSED, (family, outcome)
    assert outcome['udp_received'] is None and outcome['socketpair'] == "b'ok'"
    # no host files outside the allowed paths
    assert outcome['read_host_file'].startswith("PermissionError: [Errno 13] Permission denied: '"), outcome
    assert outcome['write_host_dir'].startswith("PermissionError: [Errno 13] Permission denied: '"), outcome
    assert outcome['write_tmp'] == "PermissionError: [Errno 13] Permission denied: '/tmp/planted-by-the-sandbox'", outcome
    assert outcome['chmod_host_file'].startswith(REFUSED + ": '/"), outcome  # refused by seccomp (and, as root, by its own uid)
    assert outcome['planted'] == [['secret.txt'], False], outcome
    # no signals or ptrace outside the session
    assert outcome['signal_host'] == outcome['signal_host_process'] == 'PermissionError: [Errno 1] Operation not permitted', outcome
    assert outcome['sleeper_alive'] and outcome['ptrace'] == 'AssertionError: 1', outcome
    # no IPC with host processes, nor their descriptors
    assert [outcome['sysv_shm'], outcome['mq_open'], outcome['pidfd_getfd']] == ['AssertionError: 1'] * 3, outcome
    # issue 38: no metadata change through a descriptor of a file it may only read (as the host's user, seccomp refuses
    # it; as root the session's uid of its own is not the owner; xattrs then need write access)
    assert [outcome['fchmod_read_path'], outcome['futimens_read_path'], outcome['fchown_read_path']] == [REFUSED] * 3, outcome
    assert outcome['fsetxattr_read_path'].startswith(PERMISSION_DENIED if root else REFUSED), outcome  # ': <fd>' follows
    assert outcome['owned_unchanged'] and outcome['owned_xattrs'] == [], outcome
    # nor of the host's processes
    for attack in ('prlimit_host', 'prlimit_query_host', 'setpriority_host', 'setpriority_user', 'sched_setaffinity_host', 'sched_setscheduler_host'):
        assert outcome[attack] == REFUSED, (attack, outcome)
    assert outcome['ioprio_set_host'] == 'AssertionError: 1' and outcome['sleeper_limits'] == [True, True, True], outcome
    assert outcome['prlimit_self'] == 'True', outcome
    assert [outcome['clone_parent'], outcome['clone3']] == ['AssertionError: 1', 'AssertionError: 38'], outcome
    assert outcome['unlisted'] == '[(-1, 1)]', outcome
    # the filter installed is the table's for the mode (as the host's user, the one without descriptor metadata calls)
    assert outcome['digest'][0] == outcome['digest'][1] is not None, outcome
    assert ('not on a descriptor either' in outcome['seccomp_detail']) == (not root), outcome
    # nothing outlives the cell or close()
    assert outcome['daemon_gone_after_cell'] and outcome['daemon_gone_after_close'] and outcome['scratch_removed'], outcome
    # liveness
    assert outcome['state'] == [None, '42'] and outcome['shell'] == "'hello from sh\\n'", outcome
    assert outcome['timeout'] == [True, False, '41'], outcome
    assert outcome['emfile'] == ['24\n', False, '41'], outcome  # a cell that used up its descriptors: the state is kept
    assert outcome['numpy_pandas'] == '(6.0, np.int64(3))', outcome
    assert outcome['plot'] == ['image/png'], outcome
    assert outcome['ptmx'] == "PermissionError: [Errno 13] Permission denied: '/dev/ptmx'", outcome  # Landlock
    assert outcome['pts'] == "PermissionError: [Errno 13] Permission denied: '/dev/pts'", outcome
    assert outcome['command'] == ['piped\nno terminal\n', '0'], outcome
    # a fork storm leaves the host able to fork and start a session at once
    assert outcome['host_forks_in_storm'] == 0 and outcome['sandbox_in_storm'] == '2', outcome
    bound = ('(pids cgroup)', '(RLIMIT_NPROC on the uid of its own)') if root else ('beyond the ',)
    assert outcome['processes_detail'].startswith(tuple('at most 32 processes/threads ' + how for how in bound)), outcome  # through a pipe: the one difference from Jupyter left here


def test_docker_default_profile_as_root():
    outcome = probe(DOCKER_LIKE)
    assert outcome['euid'] == 0; assert_container_mode_holds(outcome, root=True)

def test_docker_default_profile_as_a_user():
    outcome = probe(DOCKER_LIKE, user='nobody')
    assert outcome['euid'] != 0; assert_container_mode_holds(outcome, root=False)

def test_no_user_namespaces_as_root():
    outcome = probe(NO_USER_NAMESPACES)
    assert outcome['euid'] == 0; assert_container_mode_holds(outcome, root=True)

def test_no_user_namespaces_as_an_unprivileged_uid():
    uid = pwd.getpwnam('nobody').pw_uid
    outcome = probe(NO_USER_NAMESPACES, '--uid', str(uid))
    assert outcome['euid'] == uid; assert_container_mode_holds(outcome, root=False)

def test_root_with_python_others_cannot_read():
    """As root without namespaces (container mode; partial mode where the namespaces are refused, as here under the
    Docker-like filter) the code runs as a uid of its own: a Python under /root (mode 700) is a clear error, not a
    ModuleNotFoundError from inside."""
    if os.geteuid() != 0: pytest.skip('needs root')
    from toolcall_lib.interp.host import _python_hidden_from_others
    if _python_hidden_from_others() is None: pytest.skip('this Python is readable by others')
    for isolation in ('container', 'partial'):
        code = ('from toolcall_lib.interp import Sandbox\n'
                f'try: Sandbox(isolation={isolation!r})\n'
                'except Exception as error: print(type(error).__name__, error)')
        completed = subprocess.run([sys.executable, DOCKER_LIKE, sys.executable, '-c', code], capture_output=True, text=True,
                                   timeout=120, cwd=str(HERE.parent))
        assert completed.stdout.startswith(f"IsolationError isolation={isolation!r} with the host as root runs the code as an "
                                           'unprivileged uid of its own, which cannot read this Python: '), completed


HOST = textwrap.dedent('''
    import importlib.util, json, os, sys, time
    spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
    library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
    from toolcall_lib.interp import Sandbox
    box = Sandbox(isolation='container')
    box.run("open('daemon.py', 'w').write('import os, time\\\\nif os.fork() == 0:\\\\n    os.setsid()\\\\n    open(\\\\'pid\\\\', \\\\'w\\\\').write(str(os.getpid()))\\\\n    while True: time.sleep(1)\\\\n')")
    print(json.dumps({'host': os.getpid(), 'worker': box._worker.pid, 'scratch': box.scratch}), flush=True)
    box.run('import subprocess, sys, time\\nsubprocess.Popen([sys.executable, "daemon.py"])\\ntime.sleep(300)', timeout=600)
''')

def alive(pid:int) -> bool:
    "True while `pid` exists and is not a zombie."
    try:
        with open(f'/proc/{pid}/stat') as file: return file.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (FileNotFoundError, ProcessLookupError): return False

@pytest.mark.parametrize('user', [None, 'nobody'])
def test_killing_the_host_mid_cell_ends_every_process_of_a_container_session(user):
    "The host is killed (SIGKILL) while a cell runs, after the cell started a setsid daemon: the template ends it all."
    if os.geteuid() != 0: pytest.skip('the simulated hosts are made as root')
    as_user = ['runuser', '-u', user, '--'] if user else []
    host = subprocess.Popen([sys.executable, READABLE, *as_user, sys.executable, DOCKER_LIKE, sys.executable, '-c', HOST, str(LIBRARY)],
                            stdout=subprocess.PIPE, text=True, cwd='/')
    try:
        started = json.loads(host.stdout.readline())
        pid_file, deadline = os.path.join(started['scratch'], 'pid'), time.monotonic() + 10
        while time.monotonic() < deadline and not (os.path.exists(pid_file) and open(pid_file).read()): time.sleep(0.05)
        daemon = int(open(pid_file).read())
        assert alive(daemon) and alive(started['worker'])
        os.kill(started['host'], signal.SIGKILL)  # the host itself (runuser, when used, stays in between)
        host.wait(30)
        deadline = time.monotonic() + 10
        while (alive(daemon) or alive(started['worker']) or os.path.exists(started['scratch'])) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (alive(daemon), alive(started['worker']), os.path.exists(started['scratch'])) == (False, False, False)
    finally:
        if host.poll() is None: host.kill(); host.wait()


def test_the_command_line_names_and_takes_container_mode():
    "`toolcall python` under the Docker-like profile: refused in one line naming --isolation container, which then runs."
    if os.geteuid() != 0: pytest.skip('the simulated hosts are made as root')
    command = [str(Path(sys.executable).parent / 'toolcall'), 'python']
    if not Path(command[0]).exists(): pytest.skip('the toolcall script is not installed in this environment')
    refused = subprocess.run([sys.executable, DOCKER_LIKE, *command, '-c', '1 + 1'], capture_output=True, text=True, timeout=120, cwd='/')
    assert refused.returncode == 2 and refused.stderr.startswith('toolcall python: error: isolation layers missing on this system: namespaces')
    assert 'or pass --isolation container to run with Landlock, seccomp and rlimits in their place' in refused.stderr, refused.stderr
    ran = subprocess.run([sys.executable, READABLE, sys.executable, DOCKER_LIKE, *command, '--isolation', 'container', '-c',
                          'import socket\nprint(6 * 7)\nsocket.socket()'], capture_output=True, text=True, timeout=120, cwd='/')
    assert ran.returncode == 1 and ran.stdout.startswith('42\n'), ran
    assert 'PermissionError: [Errno 1] Operation not permitted' in ran.stdout, ran


def test_the_mcp_server_takes_container_mode():
    "`toolcall mcp python --isolation container` reaches every session the server's pool starts."
    from toolcall_lib.cli import build_parser
    from toolcall_lib.mcp import python_server
    args = build_parser().parse_args(['mcp', 'python', '--isolation', 'container'])
    assert args.isolation == 'container'
    server = python_server(isolation=args.isolation)
    try: assert server.sandbox_pool.sandbox_options['isolation'] == 'container'
    finally: server.sandbox_pool.close()
