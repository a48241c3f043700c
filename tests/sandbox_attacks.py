"""The attacks of issue 10 (and more in the same classes), as one function both escape tests run: as root in
`test_sandbox_escape.py`, and as an unprivileged user in `test_sandbox_nonroot.py` (which runs this file through
`runuser`, with an interpreter that user can execute). `run_attacks` returns one short outcome string per attack,
measured from inside the sandbox and checked from the host; `expected_outcomes` says what each must be.

Only the standard library and the interp module under test are used, so the file also runs outside pytest."""
import gc, json, os, pprint, resource, select, socket, stat, sys, tempfile, time, warnings

SECRET = 'sk-other-session-' + 'x9' * 8  # another session's API key: no other session may find it
OUT_OF_MEMORY = ('MemoryError: the session reached its memory limit (320 MiB for all its processes, shared memory and '
                 'scratch files together) and was killed')


def last_line(result) -> str:
    "The last line of a result's error, or its value, or its output: what the model would read first."
    if result.error: return result.error.splitlines()[-1]
    return result.value if result.value is not None else result.output.strip()


def attempt(action) -> str:
    "Run a host-side `action`; its exception as 'Type: message', or 'ok: <value>'."
    try: return f'ok: {action()!r}'
    except Exception as exception: return f'{type(exception).__name__}: {exception}'


def run_attacks(interp, workdir:str) -> dict:
    "Run every attack with module `interp` as the current user; `workdir` is a host directory the user owns."
    outcomes = {}
    host_file = os.path.join(workdir, 'host-file.txt')
    with open(host_file, 'w') as file: file.write('host data')
    os.chmod(host_file, 0o600)
    host_mode = os.stat(host_file).st_mode

    # 1. host files' metadata: not in view, or read-only; a setuid copy in scratch is worthless (nosuid, invisible)
    with interp.Sandbox(require_isolation=True) as box:
        outcomes['chmod_host_file'] = last_line(box.run(f'import os, sys; os.chmod({host_file!r}, 0o666)'))
        outcomes['chmod_tmp'] = last_line(box.run('os.chmod("/tmp", 0o777)'))
        outcomes['chmod_interpreter'] = last_line(box.run('os.chmod(sys.executable, 0o4755)'))
        outcomes['chown_stdlib'] = last_line(box.run('os.chown(os.__file__, 0, 0)'))
        outcomes['utime_stdlib'] = last_line(box.run('os.utime(os.__file__, (0, 0))'))
        outcomes['setxattr_stdlib'] = last_line(box.run('os.setxattr(os.__file__, "user.x", b"1")'))
        outcomes['chmod_root_dir'] = last_line(box.run('os.chmod("/", 0o777)'))
        outcomes['setuid_copy_in_scratch'] = last_line(box.run(
            'import shutil; shutil.copy(sys.executable, "py"); os.chmod("py", 0o4755); os.chmod(".", 0o777)\n'
            'bool(os.stat("py").st_mode & 0o4000), bool(os.statvfs(".").f_flag & os.ST_NOSUID)'))
        outcomes['mknod_in_scratch'] = last_line(box.run('os.mknod("dev", 0o20666, os.makedev(1, 3))'))
        # the interpreter, os.py, and whether /tmp exists inside: it does only as the (read-only, empty) parent of a
        # mounted path, when the checkout or the interpreter lives under /tmp (as in a CI clone in /tmp)
        # ... and which kernel runs the cells: IPython's keeps an asyncio loop (one more descriptor and a socket pair)
        outcomes['_paths'] = box.run('sys.executable, os.__file__, os.path.exists("/tmp"), "IPython" in sys.modules').value
    outcomes['host_file_unchanged'] = str(os.stat(host_file).st_mode == host_mode)

    # 2. shared paths are pinned: a path swapped for a symlink (by another session sharing the directory) is never mounted
    shared = os.path.join(workdir, 'shared'); os.makedirs(os.path.join(shared, 'input'))
    with open(os.path.join(shared, 'input', 'data.csv'), 'w') as file: file.write('a,b\n')
    os.chmod(shared, 0o777); os.chmod(os.path.join(shared, 'input'), 0o755)
    with interp.Sandbox(require_isolation=True, write_paths=[shared], read_paths=[os.path.join(shared, 'input')]) as box, \
         interp.Sandbox(require_isolation=True, write_paths=[shared]) as other:
        outcomes['rename_mounted_input'] = last_line(box.run(f'import os; os.rename({shared + "/input"!r}, {shared + "/moved"!r})'))
        outcomes['swap_input_from_other_session'] = last_line(other.run(
            f'import os\nos.rename({shared + "/input"!r}, {shared + "/moved"!r}); os.symlink("/", {shared + "/input"!r}); "swapped"'))
        died = box.run('import os; os._exit(0)')
        outcomes['restart_after_swap'] = ' | '.join(died.notes)
        outcomes['run_after_swap'] = last_line(box.run('os.listdir("/")'))
    # 3. memory beyond the limit: memfd, SysV shm and forked children are counted (cgroup) or refused (no cgroup)
    with interp.Sandbox(require_isolation=True, memory_mb=256, disk_mb=64, max_file_mb=4096, timeout=30) as box:
        result = box.run('import os\nfd = os.memfd_create("hog")\nfor _ in range(1024): os.write(fd, b"x" * (1 << 20))\n"held"')
        outcomes['memfd_hog'] = last_line(result) + (' (restarted)' if result.state_lost else '')
        result = box.run('import ctypes; libc = ctypes.CDLL(None, use_errno=True); libc.shmat.restype = ctypes.c_void_p\n'
                         'for _ in range(8):  # segments outlive their mapping: each fits the address space, together they do not fit the cgroup\n'
                         '    segment = libc.syscall(29, 0, 128 << 20, 0o1000 | 0o600)\n'
                         '    if segment < 0: break\n'
                         '    address = libc.shmat(segment, None, 0); ctypes.memset(address, 1, 128 << 20); libc.shmdt(ctypes.c_void_p(address))\n'
                         'segment, ctypes.get_errno()')
        outcomes['shmget_1g'] = last_line(result)
        # SysV message queues: kernel memory that RLIMIT_AS does not see; refused where there is no memory cgroup
        outcomes['msgget'] = last_line(box.run('import ctypes; libc = ctypes.CDLL(None, use_errno=True)\n'
                                               'queue = libc.syscall(68, 0, 0o1000 | 0o600); queue >= 0, ctypes.get_errno()'))
        result = box.run('import os, time\nfor _ in range(8):\n    if os.fork() == 0:\n        hog = bytearray(200 << 20); time.sleep(60)\n'
                         'time.sleep(3); alive = sum(open(f"/proc/{name}/stat").read().split(") ")[1][0] != "Z" for name in os.listdir("/proc") if name.isdigit()) - 1\n'
                         'f"children holding 200 MiB alive: {alive}, within 320 MiB: {alive * 200 <= 320}"', timeout=20)
        outcomes['forked_hogs'] = last_line(result).rsplit(', ', 1)[-1]
        outcomes['forked_hogs_gone'] = last_line(box.run('sorted(p for p in os.listdir("/proc") if p.isdigit())'))
    # 4. disk: a quota on bytes and on files
    with interp.Sandbox(require_isolation=True, disk_mb=64, max_files=1000, max_file_mb=1 << 20) as box:
        outcomes['fallocate_10g'] = last_line(box.run('import os; fd = os.open("big", os.O_CREAT | os.O_WRONLY); os.posix_fallocate(fd, 0, 10 << 30)'))
        outcomes['many_files'] = last_line(box.run('import os\nfor i in range(5000): open(f"f{i}", "w").close()'))
        outcomes['disk_size'] = last_line(box.run('st = os.statvfs("/scratch"); st.f_blocks * st.f_frsize >> 20'))
    outcomes['disk_mb_0'] = attempt(lambda: interp.Sandbox(disk_mb=0))  # a tmpfs of size=0 would have no limit at all
    # 5. a deep directory tree, then an exit: the restart and close never walk it on the host
    with interp.Sandbox(require_isolation=True) as box:
        result = box.run('import os\nfor _ in range(3000): os.mkdir("d"); os.chdir("d")\nos._exit(0)')
        outcomes['deep_tree_exit'] = f'state_lost={result.state_lost} notes={len(result.notes)}'
        outcomes['after_deep_tree'] = last_line(box.run('1 + 1'))
        box.run('import os\nopen("top.txt", "w").close()\nfor _ in range(3000): os.mkdir("d"); os.chdir("d"); open("f", "w").close()')
        listed = attempt(box.files)  # one descriptor open at a time, 32 levels at most: the host never runs out of fds
        outcomes['files_of_deep_tree'] = f"{len(eval(listed[4:]))} {eval(listed[4:])[:2]}" if listed.startswith('ok: ') else listed
    outcomes['close_after_deep_tree'] = 'closed'
    # 6. other sessions' secrets: nothing of another session is in this worker's memory
    with interp.Sandbox(require_isolation=True, env={'OTHER_KEY': SECRET}) as holder, interp.Sandbox(require_isolation=True) as box:
        outcomes['holder_sees_own_key'] = last_line(holder.run('import os; os.environ["OTHER_KEY"] == ' + repr(SECRET)))
        search = ('import gc, sys\nneedle = ' + repr(SECRET[::-1]) + '[::-1]\n'
                  'def values(o):\n    if isinstance(o, dict): return [*o.keys(), *o.values()]\n'
                  '    return list(o) if isinstance(o, (list, tuple, set)) else []\n'
                  'found = [o for o in gc.get_objects() for v in values(o) if isinstance(v, str) and v == needle and v is not needle]\n'
                  'frame, names = sys._getframe(), []\n'
                  'while frame is not None: names.append(frame.f_code.co_name); found += [k for k, v in frame.f_locals.items() if k in ("config", "sessions")]; frame = frame.f_back\n'
                  'len(found)')
        outcomes['find_other_session_key'] = last_line(box.run(search))
        holder.run('open("mine.txt", "w").write("private")')
        outcomes['scratch_of_other_session'] = last_line(box.run('import os; os.listdir("/scratch"), os.path.exists("/tmp")'))
        holder_pid = holder._worker.pid
        outcomes['kill_other_session'] = last_line(box.run(f'os.kill({holder_pid}, 9)'))
        outcomes['other_session_alive'] = last_line(holder.run('"alive"'))
    # 7. host unix sockets: none in view; datagram pairs refused; a stream pair cannot be pointed elsewhere
    listener_path = os.path.join(shared, 'host.sock')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); listener.bind(listener_path); os.chmod(listener_path, 0o777)
    listener.settimeout(0.2)
    with listener, interp.Sandbox(require_isolation=True, write_paths=[shared]) as box:
        outcomes['socketpair_dgram'] = last_line(box.run('import socket; socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)'))
        outcomes['socketpair_seqpacket'] = last_line(box.run('socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)'))
        outcomes['stream_pair_sendto'] = last_line(box.run(f'a, b = socket.socketpair(); a.sendto(b"x", {listener_path!r})'))
        outcomes['stream_pair_connect'] = last_line(box.run(f'a.connect({listener_path!r})'))
        outcomes['dev_log'] = last_line(box.run('import os; os.path.exists("/dev/log"), os.path.exists("/run")'))
        outcomes['host_socket_got_nothing'] = attempt(lambda: listener.recv(10))
    # 8. host information: no host path, no host process, no host name
    with interp.Sandbox(require_isolation=True) as box:
        outcomes['stat_home'] = last_line(box.run('import os; os.stat("/home")'))
        outcomes['stat_host_file'] = last_line(box.run(f'os.stat({host_file!r})'))
        outcomes['inotify_tmp'] = last_line(box.run(
            'import ctypes; libc = ctypes.CDLL(None, use_errno=True); fd = libc.inotify_init1(0)\n'
            'libc.inotify_add_watch(fd, b"/tmp", 0xfff), ctypes.get_errno()'))
        outcomes['inotify_stdlib'] = last_line(box.run('libc.inotify_add_watch(fd, os.path.dirname(os.__file__).encode(), 0x21), ctypes.get_errno()'))
        outcomes['fanotify'] = last_line(box.run('libc.fanotify_init(0x200, 0), ctypes.get_errno()'))  # FAN_REPORT_FID: the unprivileged kind
        outcomes['processes'] = last_line(box.run('sorted(p for p in os.listdir("/proc") if p.isdigit())'))
        outcomes['hostname'] = last_line(box.run('os.uname().nodename'))
        outcomes['etc'] = last_line(box.run('sorted(os.listdir("/etc"))'))
    # 9. a reply frame built to make the host allocate: refused before it is decoded (sent as the loop's own reply, by a cell
    # that rewrote the worker's `_pack_frame`: a frame sent by anything else is never decoded at all)
    with interp.Sandbox(require_isolation=True, timeout=10) as box:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        code = ('import sys\nworker = sys.modules["toolcall_sandbox.worker"]\n'
                'def bomb(reply):\n    payload = b\'{"id":\' + str(reply["id"]).encode() + b\',"value":[\' + b"[],"*(5 << 20) + b"[]]}"\n'
                '    return len(payload).to_bytes(4, "big") + payload\n'
                'worker._pack_frame = bomb')
        result = box.run(code)
        outcomes['amplification_frame'] = result.error
        outcomes['amplification_rss_mb'] = str((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024 < 100)
    # 10. nothing a cell started runs on after it; replies nobody asked for taint the session
    with interp.Sandbox(require_isolation=True, timeout=10) as box:
        result = box.run('import os, threading, time\ndef spawner():\n    while True:\n'
                         '        if os.fork() == 0:\n            while True: pass\n        time.sleep(0.05)\n'
                         'threading.Thread(target=spawner, daemon=True).start(); time.sleep(0.2); "started"')
        outcomes['background_forker'] = f'{last_line(result)} | {result.notes[-1]}'
        outcomes['after_background_forker'] = last_line(box.run('import os; sorted(p for p in os.listdir("/proc") if p.isdigit())'))
        forge = ('import os, struct, json, threading, time\ndef forge():\n    time.sleep(0.5)\n'
                 '    payload = json.dumps({"id": %d, "value": "\'forged\'"}).encode()\n'
                 '    for fd in range(3, 10):\n        try: os.write(fd, struct.pack(">I", len(payload)) + payload)\n        except OSError: pass\n'
                 'threading.Thread(target=forge, daemon=True).start()') % (box._worker.requests + 2)
        result = box.run(forge)
        outcomes['forger_thread'] = f'state_lost={result.state_lost}'
        result = box.run('import time; time.sleep(1)\nraise SystemExit(3)')
        outcomes['cell_after_forger'] = f'ok={result.ok} {last_line(result)}'
        own = ('import os, struct, json\npayload = json.dumps({"id": %d, "value": "\'mine\'"}).encode()\n'
               'for fd in range(3, 10):\n    try: os.write(fd, struct.pack(">I", len(payload)) + payload)\n    except OSError: pass\n'
               '"real"') % (box._worker.requests + 1)
        result = box.run(own)  # the cell answers itself first: ignored, the loop's reply is the result, and the session is not trusted
        outcomes['cell_answering_itself'] = f'{last_line(result)} lost={result.state_lost}'
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # keep_background=True gives up the background layer, on purpose here
        with interp.Sandbox(timeout=10, keep_background=True) as box:  # work left running may write after the reply: the next run sees it
            box.run('import json, os, struct, threading, time\n' + _FIND_REPLY +
                    'def late():\n    time.sleep(0.3); payload = json.dumps({"id": request_id + 1}).encode()\n'
                    '    os.write(reply_fd, struct.pack(">I", len(payload)) + payload)\n'
                    'threading.Thread(target=late, daemon=True).start()')
            time.sleep(0.6)
            result = box.run('1 + 1')
            outcomes['reply_nobody_asked_for'] = f'{result.error} | {result.notes}'
            outcomes['after_taint'] = last_line(box.run('1 + 1'))
    # 11. what the host reads back: regular files only, no symlink followed, no FIFO opened, a size cap
    with interp.Sandbox(require_isolation=True, write_paths=[shared], max_file_mb=1) as box:
        box.run(f'import os\nos.symlink("/etc/shadow", "plot.csv"); os.mkfifo("pipe"); os.symlink("/etc", "etc")\n'
                f'open("ok.txt", "w").write("fine"); open("big", "wb").write(b"x" * 1000)\n'
                f'os.symlink("/etc/shadow", {shared + "/plot.csv"!r}); os.symlink("/", {shared + "/root"!r})')
        outcomes['read_symlink_scratch'] = attempt(lambda: box.read_file('plot.csv'))
        outcomes['read_symlink_write_path'] = attempt(lambda: box.read_file(shared + '/plot.csv'))
        outcomes['read_through_dir_symlink'] = attempt(lambda: box.read_file(shared + '/root/etc/passwd'))
        outcomes['read_through_scratch_dir_symlink'] = attempt(lambda: box.read_file('etc/passwd'))
        started = time.monotonic()
        outcomes['read_fifo'] = attempt(lambda: box.read_file('pipe'))
        outcomes['read_fifo_fast'] = str(time.monotonic() - started < 1)
        outcomes['read_dotdot'] = attempt(lambda: box.read_file('../etc/passwd'))
        outcomes['read_outside_write_paths'] = attempt(lambda: box.read_file('/etc/passwd'))
        outcomes['read_over_cap'] = attempt(lambda: box.read_file('big', max_bytes=100))
        outcomes['read_regular'] = attempt(lambda: box.read_file('ok.txt'))
        outcomes['files'] = attempt(box.files)
        outcomes['write_through_symlink'] = attempt(lambda: box.write_file('plot.csv', b'x'))
        outcomes['write_then_read_in_sandbox'] = attempt(lambda: box.write_file('given.txt', b'from host')) + ' | ' + \
            last_line(box.run('open("given.txt").read(), open("given.txt", "a").write("!")'))
    # 13. red team: the worker's own guards rewritten by the code; what the host reads back as root; kernel interfaces
    with interp.Sandbox(require_isolation=True, timeout=10) as box:
        patch = ('import json, os, struct, sys, threading, time\nworker = sys.modules["toolcall_sandbox.worker"]\n'
                 'worker._leftover_threads = lambda wait=0.2: 0; worker._end_child_processes = lambda: None; worker._thread_count = lambda: 1\n'
                 + _FIND_REPLY +
                 'def forge():\n    time.sleep(0.5)\n    payload = json.dumps({"id": request_id + 1, "value": "\'forged\'"}).encode()\n'
                 '    os.write(reply_fd, struct.pack(">I", len(payload)) + payload)\n'
                 'threading.Thread(target=forge, daemon=True).start(); "patched"')
        result = box.run(patch)
        outcomes['guard_switched_off'] = f'{last_line(result)} | {result.notes}'
        result = box.run('import time; time.sleep(1)\nraise SystemExit(3)')
        outcomes['cell_after_guard_switched_off'] = f'ok={result.ok} {last_line(result)} state_lost={result.state_lost}'
        result = box.run('import os, sys\nsys.modules["toolcall_sandbox.worker"]._end_child_processes = lambda: None\n'
                         'if os.fork() == 0:\n    import time; time.sleep(60)\n"forked"')
        outcomes['process_left_by_patched_worker'] = f'{last_line(result)} | state_lost={result.state_lost}'
        result = box.run('import sys\nworker = sys.modules["toolcall_sandbox.worker"]\n'  # the loop's own reply, rewritten
                         'worker._pack_frame = lambda reply: (lambda payload: len(payload).to_bytes(4, "big") + payload)(b\'{"id":"\' + b"x" * 10_000_000 + b\'"}\')')
        outcomes['forged_id_of_10_mb'] = f'{len(result.error) < 300} {result.error[:100]}'
        outcomes['worker_fds'] = last_line(box.run(
            'import os; [os.readlink(f"/proc/self/fd/{fd}").split(":")[0] for fd in sorted(map(int, os.listdir("/proc/self/fd"))) if os.path.lexists(f"/proc/self/fd/{fd}")]'))
        outcomes['refused_syscalls'] = last_line(box.run(
            'import ctypes; libc = ctypes.CDLL(None, use_errno=True)\nrefused = {}\n'
            'for name, number in [("bpf", 321), ("perf_event_open", 298), ("userfaultfd", 323), ("io_uring_setup", 425), ("keyctl", 250),\n'
            '                     ("add_key", 248), ("open_by_handle_at", 304), ("kexec_load", 246), ("init_module", 175), ("umount2", 166),\n'
            '                     ("pivot_root", 155), ("setns", 308), ("open_tree", 428), ("fsopen", 430), ("mount_setattr", 442), ("ptrace", 101)]:\n'
            '    refused[name] = (libc.syscall(number, 0, 0, 0, 0, 0, 0), ctypes.get_errno())\n'
            'sorted({outcome for outcome in refused.values()})'))
        outcomes['remount_usr_writable'] = last_line(box.run('libc.mount(None, b"/usr", None, 32 | 4096, None), ctypes.get_errno()'))
        outcomes['umount_usr'] = last_line(box.run('libc.umount2(b"/usr", 2), ctypes.get_errno()'))
        outcomes['kernel_log'] = last_line(box.run('buffer = ctypes.create_string_buffer(4096); libc.klogctl(3, buffer, 4096), ctypes.get_errno()'))
        outcomes['tiocsti_on_fd0'] = last_line(box.run('import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b"x")'))
        # issue 38: the filter is an allow-list. Calls no row lists are refused (harmless ones no workload uses too);
        # clone3 is ENOSYS, so the C library falls back to clone, whose flags are checked: no CLONE_PARENT (a child of the
        # bootstrap, which the clean-up after a cell would not see), no namespaces; limits, priorities and affinity only
        # of the caller itself; ioctl only the requests terminals, pipes and files need
        numbers = interp.isolation._SYSCALLS[os.uname().machine]
        unlisted = [numbers[name] for name in ('acct', 'syslog', 'userfaultfd', 'kexec_load', 'add_key', 'chroot', 'setuid', 'memfd_secret')]
        outcomes['unlisted_calls'] = last_line(box.run(
            f'sorted({{(libc.syscall(number, 0, 0, 0, 0, 0, 0), ctypes.get_errno()) for number in {unlisted}}})'))
        outcomes['clone3'] = last_line(box.run(f'libc.syscall({numbers["clone3"]}, 0, 0), ctypes.get_errno()'))
        outcomes['clone_parent'] = last_line(box.run(  # the child, if there were one, would leave at once
            f'import os\nforked = libc.syscall({numbers["clone"]}, 0x8000 | 17, 0, 0, 0, 0)\nif forked == 0: os._exit(0)\nforked, ctypes.get_errno()'))
        outcomes['clone_new_user'] = last_line(box.run(f'libc.syscall({numbers["clone"]}, 0x10000000 | 17, 0, 0, 0, 0), ctypes.get_errno()'))
        outcomes['fork_and_threads'] = last_line(box.run(
            'import subprocess, threading; done = []; thread = threading.Thread(target=done.append, args=(1,)); thread.start(); thread.join()\n'
            'subprocess.run(["true"]).returncode, done'))
        outcomes['prlimit_by_pid'] = last_line(box.run('import resource; resource.prlimit(os.getpid(), resource.RLIMIT_NOFILE)'))
        outcomes['prlimit_self'] = last_line(box.run('resource.prlimit(0, resource.RLIMIT_NOFILE) == resource.getrlimit(resource.RLIMIT_NOFILE)'))
        outcomes['setpriority_user'] = last_line(box.run('os.setpriority(os.PRIO_USER, 0, 19)'))
        outcomes['setpriority_self'] = last_line(box.run('os.setpriority(os.PRIO_PROCESS, 0, 1); os.getpriority(os.PRIO_PROCESS, 0)'))
        outcomes['sched_setaffinity_by_pid'] = last_line(box.run('os.sched_setaffinity(os.getpid(), {0})'))
        outcomes['sched_setscheduler_by_pid'] = last_line(box.run('os.sched_setscheduler(os.getpid(), os.SCHED_IDLE, os.sched_param(0))'))
        outcomes['ioprio_set_user'] = last_line(box.run(f'libc.syscall({numbers["ioprio_set"]}, 3, 0, 0), ctypes.get_errno()'))  # IOPRIO_WHO_USER
        outcomes['ioctl_unlisted'] = last_line(box.run('fcntl.ioctl(0, 0x4B33, b"x")'))  # KDGKBTYPE: a console's, not a terminal's
        outcomes['dev_tty'] = last_line(box.run('open("/dev/tty")'))
        abstract_name = f'\0toolcall-redteam-{os.getpid()}'  # a connected pair may take a name: in the session's own network namespace
        outcomes['abstract_unix_socket'] = last_line(box.run(f'import socket; a, b = socket.socketpair(); a.bind({abstract_name!r}); "bound"'))
        def connect_from_host():
            with socket.socket(socket.AF_UNIX) as client: client.connect(abstract_name)
        outcomes['host_reaches_abstract_socket'] = attempt(connect_from_host)
        outcomes['unix_sockets_in_view'] = last_line(box.run('open("/proc/net/unix").read().count("\\n")'))
        outcomes['proc_sys_write'] = last_line(box.run('open("/proc/sys/kernel/hostname", "w").write("x")'))
        box.run('import fcntl, os\nwrite_lease = os.open("leased", os.O_CREAT | os.O_WRONLY); fcntl.fcntl(write_lease, fcntl.F_SETLEASE, fcntl.F_WRLCK)\n'
                'read_lease = os.open("read-leased", os.O_CREAT | os.O_RDONLY); fcntl.fcntl(read_lease, fcntl.F_SETLEASE, fcntl.F_RDLCK)')
        started = time.monotonic()  # a lease makes a blocking open() wait 45 s (lease-break-time) for the holder: the host never waits
        outcomes['read_write_leased'] = attempt(lambda: box.read_file('leased'))
        outcomes['write_read_leased'] = attempt(lambda: box.write_file('read-leased', b'x'))
        outcomes['leases_cost_no_time'] = str(time.monotonic() - started < 1)
    with interp.Sandbox(require_isolation=True, disk_mb=64, max_files=1000) as box:  # inodes are the quota on what costs no bytes
        outcomes['hard_links'] = last_line(box.run('import os\nopen("base", "w").close()\nfor i in range(5000): os.link("base", f"l{i}")'))
    with interp.Sandbox(require_isolation=True, disk_mb=64, max_files=1000) as box:
        outcomes['xattrs'] = last_line(box.run(
            'import os\nstored = 0\ntry:\n    for number in range(100):\n        open(f"x{number}", "w").close()\n'
            '        for key in range(100_000): os.setxattr(f"x{number}", f"user.k{key}", b"x" * 4000); stored += 4000\n'
            'except OSError as caught: error = caught\nf"{stored <= 1000 * 1024} {error.errno}"'))
    private = os.path.join(shared, 'private.txt')
    with open(private, 'w') as file: file.write('host only')
    os.chmod(private, 0o600)
    with interp.Sandbox(require_isolation=True, write_paths=[shared]) as box:
        outcomes['rename_private_file'] = last_line(box.run(f'import os; os.rename({private!r}, {shared + "/result.csv"!r}); "renamed"'))
        outcomes['read_renamed_private_file'] = attempt(lambda: box.read_file(shared + '/result.csv'))  # no more than the code may read
    # 12. fd 0 is open; a session config larger than a socket message starts, and other sessions live on
    with interp.Sandbox(require_isolation=True) as first:
        pid = first._worker.pid
        outcomes['fd0'] = last_line(first.run('import os; os.readlink("/proc/self/fd/0"), os.readlink("/proc/self/fd/1")'))
        with interp.Sandbox(require_isolation=True, env={'BIG': 'x' * 300_000}) as big:
            outcomes['big_config'] = last_line(big.run('import os; len(os.environ["BIG"])'))
        outcomes['first_survives'] = f'{last_line(first.run("1 + 1"))} same_pid={first._worker.pid == pid}'
    # 14. code an earlier cell leaves behind cannot answer for a later one: each route plants a forger, then a later cell raises
    # SystemExit; the host must report that, never the forged value (`forged` ignored, the session restarted), or the plant fails
    with interp.Sandbox(require_isolation=True, timeout=10) as box:
        for route, plant in _PLANTS.items():
            box.reset()
            planted = box.run(_FORGER + plant)
            if route == 'threading_timer': outcomes['threading_timer_planting'] = last_line(planted)
            result = box.run(_VICTIM, timeout=3 if route == 'handler_that_waits' else 10)
            outcomes[f'forger_{route}'] = f'ok={result.ok} {last_line(result)} lost={result.state_lost}'
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # keep_background=True gives up the background layer, on purpose here
        with interp.Sandbox(timeout=10, keep_background=True) as box:
            for route, plant in _BACKGROUND_PLANTS.items():
                box.reset()
                box.run(_FORGER + plant)
                result = box.run(_VICTIM)
                outcomes[f'forger_{route}'] = f'ok={result.ok} {last_line(result)} lost={result.state_lost}'
    # 15. pseudo-terminals (issue 26): the session has a devpts instance of its own; the host's terminals are out of reach
    host_terminals = [os.openpty() for _ in range(2)]  # terminals the host holds (its shells, the one it may run in)
    host_numbers = [int(os.ttyname(terminal).rsplit('/', 1)[1]) for _, terminal in host_terminals]
    try:
        with interp.Sandbox(require_isolation=True) as box:
            outcomes['pts_at_start'] = last_line(box.run('import fcntl, os, select, termios\nsorted(os.listdir("/dev/pts"))'))
            outcomes['open_host_ptys'] = last_line(box.run(  # by the numbers the host's have: none exists here
                f'errors = []\nfor number in {host_numbers}:\n    try: os.open(f"/dev/pts/{{number}}", os.O_RDWR)\n'
                '    except OSError as error: errors.append(error.errno)\nerrors'))
            outcomes['pts_own'] = last_line(box.run(  # numbered from 0: a separate instance, owned by the session's uid
                'mine, theirs = os.openpty()\nsorted(os.listdir("/dev/pts")), os.ttyname(theirs), os.fstat(theirs).st_uid == os.getuid()'))
            outcomes['worker_controlling_tty'] = last_line(box.run('open("/proc/self/stat").read().rsplit(")", 1)[1].split()[4]'))
            outcomes['tiocsti_not_controlling'] = last_line(box.run('fcntl.ioctl(theirs, termios.TIOCSTI, b"x")'))
            outcomes['tioclinux'] = last_line(box.run('fcntl.ioctl(theirs, 0x541C, bytes([2]) + bytes(31))'))  # TIOCLINUX: consoles only
            # as the controlling terminal of a child of the session (where the kernel alone would let it feed that terminal's input)
            outcomes['tiocsti_own_terminal'] = last_line(box.run(
                'pid = os.fork()\nif pid == 0:\n    os.setsid(); fcntl.ioctl(theirs, termios.TIOCSCTTY, 0)\n'
                '    try:\n        for byte in b"id\\n": fcntl.ioctl(theirs, termios.TIOCSTI, bytes([byte]))\n'
                '    except OSError as error: os._exit(error.errno)\n    os._exit(0)\n'
                'status = os.waitpid(pid, 0)[1] >> 8\n'
                'status, os.read(theirs, 100) if select.select([theirs], [], [], 1)[0] else b""'))
            command = box.run('import sys\nworker = sys.modules["toolcall_sandbox.worker"]  # what `!cmd` runs (IPython may be missing)\n'
                              'worker._run_command(\'tty <&1; cut -d" " -f7 /proc/self/stat\', bool(worker._TERMINALS))')
            outcomes['command_terminal'] = f'{command.output!r} {command.value}'
            outcomes['pts_after_command'] = last_line(box.run('sorted(os.listdir("/dev/pts"))'))
            outcomes['pty_limit'] = last_line(box.run(  # the instance holds 16 at most: the kernel's shared pool stays for others
                'held = []\ntry:\n    while len(held) < 100: held.append(os.openpty())\nexcept OSError as error: print(len(held), error.errno)'))
        outcomes['host_terminals_got_nothing'] = str([select.select([master], [], [], 0.2)[0] for master, _ in host_terminals])
    finally:
        for master, terminal in host_terminals: os.close(master); os.close(terminal)
    return outcomes


# the worker's reply pipe and the id of the request being run, as any code can find them: the worker loop's frame,
# reached from the thread's current frame within one statement (the kernel's own frames sit between the cell and the loop)
_FIND_REPLY = ('import sys\nfor frame in sys._current_frames().values():  # one statement: IPython ends a statement\'s frame\n'
               '    while frame.f_code.co_name != "_serve": frame = frame.f_back\n'
               '    reply_fd, request_id = frame.f_locals["reply_fd"], frame.f_locals["request"]["id"]\n')


_FORGER = ('import gc, json, os, signal, struct, sys, threading, time\n'
           'for frame in sys._current_frames().values():  # the loop\'s frame: its pipes and the request it runs\n'
           '    while frame.f_code.co_name != "_serve": frame = frame.f_back\n'
           '    reply_fd, request_fd, request_id = frame.f_locals["reply_fd"], frame.f_locals["request_fd"], frame.f_locals["request"]["id"]\n'
           'def forged_frame():\n    payload = json.dumps({"id": request_id + 1, "value": "\'forged\'"}).encode()\n'
           '    return struct.pack(">I", len(payload)) + payload\n'
           'def forge(*args): os.write(reply_fd, forged_frame())\n')
_VICTIM = 'import time; time.sleep(1)\nraise SystemExit(3)'
_IN_LOOP = ('def in_loop():\n    frame = sys._getframe()\n'
            '    while frame and frame.f_code.co_name not in ("_write_all", "_pack_frame", "_thread_count"): frame = frame.f_back\n'
            '    return frame is not None\n')
_PLANTS = {  # how an earlier cell can leave code that runs during a later one
    'timer_handler': 'signal.signal(signal.SIGALRM, forge); signal.setitimer(signal.ITIMER_REAL, 0.5)',
    'handler_that_waits': 'def forge_and_wait(*args): forge(); os.read(request_fd, 1)  # then looks like the loop waiting for a request\n'
                          'signal.signal(signal.SIGALRM, forge_and_wait); signal.setitimer(signal.ITIMER_REAL, 0.5)',
    'handler_hides_reply': 'null, kept = os.open("/dev/null", os.O_WRONLY), os.dup(reply_fd)  # a copy keeps the pipe open\n'
                           'def forge_and_hide(*args): forge(); os.dup2(null, reply_fd)  # the loop\'s own reply then goes nowhere\n'
                           'signal.signal(signal.SIGALRM, forge_and_hide); signal.setitimer(signal.ITIMER_REAL, 0.5)',
    'trace_function': _IN_LOOP + 'def tracer(frame, event, arg):\n    if event == "call" and in_loop(): forge()\nsys.settrace(tracer)',
    'gc_callback': _IN_LOOP + 'gc.callbacks.append(lambda phase, info: forge() if in_loop() else None); gc.set_threshold(10)',
    'audit_hook': 'kills = []\ndef hook(event, args):\n    if event == "os.kill":  # the worker ends the cell\'s processes\n'
                  '        kills.append(1)\n        if len(kills) == 2: forge()  # at the end of the next cell\nsys.addaudithook(hook)',
    'window_fought': 'calls = []\ndef hook(event, args):\n    if event == "sys.settrace" and sys._getframe(1).f_code.co_name == "_shut_window":\n'
                     '        calls.append(1)\n        if len(calls) == 2: signal.signal(signal.SIGALRM, forge)  # a handler back, mid-shutting\n'
                     'sys.addaudithook(hook); sys.settrace(lambda *args: None)',
    'patched_os_write': 'real_write, replies = os.write, []\ndef write(fd, data):\n    if fd == reply_fd:\n        replies.append(1)\n'
                        '        if len(replies) == 2: data = forged_frame()\n    return real_write(fd, data)\nos.write = write',
    'patched_stdout': 'class Forger:\n    def write(self, text): forge(); return len(text)\n    def flush(self): pass\nsys.stdout = sys.stderr = Forger()',
    'hidden_worker': 'import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # not dumpable: /proc/<pid>/syscall needs ptrace rights now',
    'threading_timer': 'threading.Timer(0.5, forge).start()',
    'forked_child': 'if os.fork() == 0:\n    time.sleep(0.5); forge(); os._exit(0)',
}
_BACKGROUND_PLANTS = {  # with keep_background=True work left running goes on into later cells: it still cannot answer for one
    'background_thread': 'threading.Thread(target=lambda: (time.sleep(0.5), forge()), daemon=True).start()',
    'background_child': 'if os.fork() == 0:\n    time.sleep(0.5); forge(); os._exit(0)',
}


def expected_outcomes(workdir:str, root:bool, paths:str) -> dict:
    "What each attack must come to, as `run_attacks` reports it (`paths`: its '_paths', the interpreter and os.py inside)."
    import ast
    shared, host_file = os.path.join(workdir, 'shared'), os.path.join(workdir, 'host-file.txt')
    read_only = lambda path: f"OSError: [Errno 30] Read-only file system: {path!r}"
    python, stdlib, *probes = ast.literal_eval(paths)
    tmp_in_view, ipython = (list(probes) + [False, False])[:2]  # /tmp is then the sandbox's own read-only stub: still nothing of the host's /tmp
    return {
        'chmod_host_file': f"FileNotFoundError: [Errno 2] No such file or directory: {host_file!r}",
        'chmod_tmp': read_only('/tmp') if tmp_in_view else "FileNotFoundError: [Errno 2] No such file or directory: '/tmp'",
        'chmod_interpreter': read_only(python), 'chown_stdlib': read_only(stdlib), 'utime_stdlib': 'OSError: [Errno 30] Read-only file system',
        'setxattr_stdlib': read_only(stdlib), '_paths': paths,
        'chmod_root_dir': read_only('/'),
        'setuid_copy_in_scratch': '(True, True)',
        'mknod_in_scratch': 'PermissionError: [Errno 1] Operation not permitted',
        'host_file_unchanged': 'True',
        'rename_mounted_input': f"OSError: [Errno 16] Device or resource busy: {shared + '/input'!r} -> {shared + '/moved'!r}",
        'swap_input_from_other_session': "'swapped'",
        'restart_after_swap': 'the session was restarted: all variables, imports and files were lost | the restart failed '
                              f'(shared path {shared}/input changed since the Sandbox was created (Too many levels of symbolic links)); the next run tries again',
        'run_after_swap': f'SandboxError: the sandbox could not be started (shared path {shared}/input changed since the Sandbox '
                          'was created (Too many levels of symbolic links))',
        'memfd_hog': (OUT_OF_MEMORY + ' (restarted)' if root else 'PermissionError: [Errno 1] Operation not permitted'),
        'msgget': '(True, 0)' if root else '(False, 1)',
        'shmget_1g': OUT_OF_MEMORY if root else '(-1, 1)',
        'forked_hogs': f"within 320 MiB: {root}'",  # without root there is no memory cgroup: each child has its own limit
        'forked_hogs_gone': "['1']",
        'fallocate_10g': 'OSError: [Errno 28] No space left on device',
        'many_files': "OSError: [Errno 28] No space left on device: 'f998'",  # 1000 inodes: the directory is one
        'disk_size': '64',
        'disk_mb_0': 'ValueError: disk_mb must be a positive int, not 0',
        'deep_tree_exit': 'state_lost=True notes=1',
        'after_deep_tree': '2',
        'close_after_deep_tree': 'closed',
        'files_of_deep_tree': f"33 {['d/' * 32 + 'f', 'd/' * 31 + 'f']}",  # top.txt and one file in each of the first 32 levels
        'holder_sees_own_key': 'True',
        'find_other_session_key': '0',
        'scratch_of_other_session': f'([], {tmp_in_view})',
        'kill_other_session': 'ProcessLookupError: [Errno 3] No such process',
        'other_session_alive': "'alive'",
        'socketpair_dgram': 'PermissionError: [Errno 1] Operation not permitted',
        'socketpair_seqpacket': 'PermissionError: [Errno 1] Operation not permitted',
        'stream_pair_sendto': 'OSError: [Errno 106] Transport endpoint is already connected',
        'stream_pair_connect': 'OSError: [Errno 91] Protocol wrong type for socket',
        'dev_log': '(False, False)',
        'host_socket_got_nothing': 'TimeoutError: timed out',
        'stat_home': "FileNotFoundError: [Errno 2] No such file or directory: '/home'",
        'stat_host_file': f"FileNotFoundError: [Errno 2] No such file or directory: {host_file!r}",
        'inotify_tmp': '(-1, 1)',  # seccomp refuses every watch (the files in view are the host's: see 'inotify_stdlib')
        'inotify_stdlib': '(-1, 1)',  # it reported the host's imports as they happened
        'fanotify': '(-1, 1)',
        'processes': "['1']",
        'hostname': "'sandbox'",
        # wrapped at 79 columns by IPython's pretty printer, as a notebook shows a long list (pprint wraps it alike)
        'etc': pprint.pformat(['alternatives', 'group', 'hostname', 'hosts', 'ld.so.cache', 'localtime', 'nsswitch.conf', 'passwd'], width=79),
        'amplification_frame': 'SandboxError: the sandbox sent an invalid reply (frame holds more than 512 JSON arrays, objects and elements)',
        'amplification_rss_mb': 'True',
        'background_forker': 'SandboxError: the cell left 1 thread(s) running after it returned, so its output is not shown (those threads could have written it) '
                             '| the cell left 1 thread(s) running: nothing a cell starts may outlive it, so the session was restarted (all variables, imports and files were lost)',
        'after_background_forker': "['1']",
        'forger_thread': 'state_lost=True',
        'cell_after_forger': 'ok=False SystemExit: 3',
        'reply_nobody_asked_for': 'SandboxError: the sandbox wrote to its reply pipe after its last cell had returned, so its replies '
                                  "cannot be trusted; the code was not run | ('the session was restarted (a reply nobody asked for): all variables, imports and files were lost',)",
        'after_taint': '2',
        'cell_answering_itself': "'real' lost=True",
        'read_symlink_scratch': "OSError: [Errno 40] Too many levels of symbolic links: 'plot.csv'",
        'read_symlink_write_path': "OSError: [Errno 40] Too many levels of symbolic links: 'plot.csv'",
        'read_through_dir_symlink': "NotADirectoryError: [Errno 20] Not a directory: 'root'",
        'read_through_scratch_dir_symlink': "NotADirectoryError: [Errno 20] Not a directory: 'etc'",
        'read_fifo': "ValueError: 'pipe' is not a regular file",
        'read_fifo_fast': 'True',
        'read_dotdot': "ValueError: not a plain relative path: '../etc/passwd'",
        'read_outside_write_paths': f"ValueError: '/etc/passwd' is neither relative (a file in scratch) nor inside one of write_paths [{shared!r}]",
        'read_over_cap': "ValueError: 'big' is 1000 bytes, over the 100 byte limit",
        'read_regular': "ok: b'fine'",
        'files': "ok: ['big', 'ok.txt']",
        'write_through_symlink': "OSError: [Errno 40] Too many levels of symbolic links: 'plot.csv'",
        'write_then_read_in_sandbox': "ok: None | ('from host', 1)",
        'guard_switched_off': "SandboxError: the cell left 1 thread(s) and 0 process(es) running after it returned (it switched off the worker's "
                              "own check), so its reply cannot be trusted | ('the session was restarted (work left running): all variables, imports and files were lost',)",
        'cell_after_guard_switched_off': 'ok=False SystemExit: 3 state_lost=False',
        'process_left_by_patched_worker': "SandboxError: the cell left 0 thread(s) and 1 process(es) running after it returned (it switched off the "
                                          "worker's own check), so its reply cannot be trusted | state_lost=True",
        'forged_id_of_10_mb': "True SandboxError: the sandbox sent a reply nobody asked for (a frame with id 'xxxxxxxxxxxxxxxxxxxxxxxxxx",
        # 0-2 on /dev/null, IPython's own asyncio loop (epoll and its self-pipe socket pair, made in the session), the two pipes
        'worker_fds': pprint.pformat(['/dev/null'] * 3 + (['anon_inode', 'socket', 'socket'] if ipython else []) + ['pipe', 'pipe'], width=79),
        'refused_syscalls': '[(-1, 1)]',
        'remount_usr_writable': '(-1, 1)',
        'umount_usr': '(-1, 1)',
        'kernel_log': '(-1, 1)',
        'tiocsti_on_fd0': 'PermissionError: [Errno 1] Operation not permitted',  # seccomp (fd 0 is /dev/null anyway)
        'unlisted_calls': '[(-1, 1)]',
        'clone3': '(-1, 38)',  # ENOSYS
        'clone_parent': '(-1, 1)', 'clone_new_user': '(-1, 1)',
        'fork_and_threads': '(0, [1])',  # the C library's own clone (after clone3's ENOSYS) for both
        'prlimit_by_pid': 'PermissionError: [Errno 1] Operation not permitted',  # even its own pid: only pid 0 is the caller for sure
        'prlimit_self': 'True',
        'setpriority_user': 'PermissionError: [Errno 1] Operation not permitted',
        'setpriority_self': '1',
        'sched_setaffinity_by_pid': 'PermissionError: [Errno 1] Operation not permitted',
        'sched_setscheduler_by_pid': 'PermissionError: [Errno 1] Operation not permitted',
        'ioprio_set_user': '(-1, 1)',
        'ioctl_unlisted': 'PermissionError: [Errno 1] Operation not permitted',
        'dev_tty': "FileNotFoundError: [Errno 2] No such file or directory: '/dev/tty'",
        'abstract_unix_socket': "'bound'",
        'host_reaches_abstract_socket': 'ConnectionRefusedError: [Errno 111] Connection refused',
        'unix_sockets_in_view': '5' if ipython else '3',  # the header line, and the session's own socket pairs only
        'proc_sys_write': "PermissionError: [Errno 13] Permission denied: '/proc/sys/kernel/hostname'",
        'read_write_leased': "BlockingIOError: [Errno 11] Resource temporarily unavailable: 'leased'",
        'write_read_leased': "BlockingIOError: [Errno 11] Resource temporarily unavailable: 'read-leased'",
        'leases_cost_no_time': 'True',
        'hard_links': "OSError: [Errno 28] No space left on device: 'base' -> 'l998'",  # each link counts as an inode
        'xattrs': "'True 28'",  # extended attributes take from the same inode budget
        'rename_private_file': "'renamed'",
        'read_renamed_private_file': "PermissionError: [Errno 13] Permission denied: 'result.csv'" if root else "ok: b'host only'",  # as nobody: the code's own file
        'fd0': "('/dev/null', '/dev/null')",
        'big_config': '300000',
        'first_survives': '2 same_pid=True',
        'forger_timer_handler': 'ok=False SystemExit: 3 lost=True',  # the forged frame is ignored, the cell's own result shown, the session restarted
        'forger_handler_that_waits': 'ok=False TimeoutError: the code ran past the 3 s limit and was interrupted lost=True',
        'forger_handler_hides_reply': 'ok=False SandboxError: the sandbox worker cannot be checked any more (its reply descriptor no '
                                      'longer leads to the host), so its reply cannot be trusted lost=True',
        'forger_trace_function': 'ok=False SystemExit: 3 lost=False',  # switched off while the worker replies: it never ran there
        'forger_gc_callback': 'ok=False SystemExit: 3 lost=False',
        'forger_audit_hook': 'ok=False SystemExit: 3 lost=True',  # ran before the reply (ending the cell's processes): its frame is ignored
        'forger_window_fought': 'ok=False SandboxError: code left in the session turned a signal handler, the garbage collector or a trace '
                                'function back on while the worker was switching them off after the cell, so its reply cannot be trusted lost=True',
        'forger_patched_os_write': 'ok=False SystemExit: 3 lost=False',  # the worker writes with its own os.write
        'forger_patched_stdout': 'ok=False SystemExit: 3 lost=False',  # each cell gets its own sys.stdout
        'forger_hidden_worker': 'ok=False SystemExit: 3 lost=False',  # the host (root, or the owner of the session's user namespace) still reads it
        'threading_timer_planting': 'SandboxError: the cell left 1 thread(s) running after it returned, so its output is not shown (those threads could have written it)',
        'forger_threading_timer': 'ok=False SystemExit: 3 lost=False',  # the timer's thread ended with the planting cell's session
        'forger_forked_child': 'ok=False SystemExit: 3 lost=False',  # killed when the planting cell ended
        'forger_background_thread': 'ok=False SystemExit: 3 lost=True',
        'forger_background_child': 'ok=False SystemExit: 3 lost=True',
        'pts_at_start': "['ptmx']",  # the host's terminals are not in this instance
        'open_host_ptys': '[2, 2]',  # ENOENT: no path leads to them
        'pts_own': "(['0', 'ptmx'], '/dev/pts/0', True)",
        'worker_controlling_tty': "'0'",  # the worker has no controlling terminal, the host's least of all
        'tiocsti_not_controlling': 'PermissionError: [Errno 1] Operation not permitted',  # seccomp refuses TIOCSTI and TIOCLINUX
        'tioclinux': 'PermissionError: [Errno 1] Operation not permitted',
        'tiocsti_own_terminal': "(1, b'')",  # not even into its own controlling terminal
        'command_terminal': repr('/dev/pts/1\r\n' + str(136 << 8 | 1) + '\r\n') + ' 0',  # `!cmd`: a new pty of its own, its controlling terminal
        'pts_after_command': "['0', 'ptmx']",
        'pty_limit': '15 28',  # ENOSPC after 15 more: 16 with the one the session held already
        'host_terminals_got_nothing': '[[], []]',
    }


if __name__ == '__main__':  # run by test_sandbox_nonroot.py as an unprivileged user: toolcall_lib's path, work directory
    import importlib.util
    spec = importlib.util.spec_from_file_location('toolcall_lib', sys.argv[1] + '/__init__.py', submodule_search_locations=[sys.argv[1]])
    library = importlib.util.module_from_spec(spec); sys.modules[spec.name] = library; spec.loader.exec_module(library)
    import toolcall_lib.interp as interp
    print(json.dumps(run_attacks(interp, sys.argv[2])))
