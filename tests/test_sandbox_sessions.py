"""Behaviour of sandbox sessions beyond escapes: independence, persistence, async, display, and the ways
a cell can refuse to stop or take its worker down."""
import sys, time
from concurrent.futures import ThreadPoolExecutor
import pytest

if sys.platform != 'linux': pytest.skip('the sandbox needs Linux', allow_module_level=True)

from toolcall_lib.interp import Sandbox, python, default_sandbox


def test_sessions_started_from_many_threads_are_independent():
    def session(number):
        with Sandbox() as box:
            box.run(f'mine = {number}')
            time.sleep(0.05)
            return box.run('mine').value, box.run('import os; os.getpid()').value
    with ThreadPoolExecutor(4) as pool: results = list(pool.map(session, range(4)))
    assert results == [(str(number), '1') for number in range(4)]


def test_python_tool_keeps_state_between_calls():
    python('from collections import Counter\ncounts = Counter("banana")')
    assert python('counts.most_common(1)').value == "[('a', 3)]"
    assert default_sandbox() is default_sandbox()


def test_asyncio_tasks_survive_between_cells():
    with Sandbox() as box:
        box.run('import asyncio\nasync def later(): await asyncio.sleep(0.05); return "done"\ntask = asyncio.ensure_future(later())')
        assert box.run('await task').value == "'done'"


def test_last_value_with_repr_png_becomes_an_image():
    with Sandbox() as box:
        box.run('import zlib, struct\n'
                'def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))\n'
                'png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 2, 8, 0, 0, 0, 0)) '
                '+ chunk(b"IDAT", zlib.compress(b"\\x00\\x00\\x00\\x00" * 2)) + chunk(b"IEND", b"")\n'
                'class Picture:\n    def _repr_png_(self): return png\n    def __repr__(self): return "<Picture>"')
        result = box.run('Picture()')
        assert result.value == '<Picture>' and [(image.width, image.height) for image in result.images] == [(3, 2)]
        assert str(result) == '<Picture>\n' + str(result.images[0])


def test_code_that_swallows_the_interrupt_is_killed():
    with Sandbox(grace=0.5) as box:
        box.run('kept = 1')
        code = 'import time\nwhile True:\n    try: time.sleep(0.01)\n    except KeyboardInterrupt: pass'
        result = box.run(code, timeout=0.3)
        assert result.timed_out and result.state_lost
        assert box.run('kept').error.endswith("NameError: name 'kept' is not defined")


def test_code_that_ignores_sigint_is_killed():
    with Sandbox(grace=0.5) as box:
        result = box.run('import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: time.sleep(0.01)', timeout=0.3)
        assert result.timed_out and result.state_lost
        assert box.run('1 + 1').value == '2'


def test_a_cell_that_kills_its_worker_gets_a_fresh_one():
    with Sandbox() as box:
        box.run('kept = 1')
        result = box.run('import os\nos._exit(3)')
        assert result.state_lost and not result.timed_out
        assert result.error.startswith('SandboxError: the sandbox process died')
        assert result.notes == ('the session was restarted: all variables, imports and files were lost',)
        assert box.run('kept').error.endswith("NameError: name 'kept' is not defined")


def test_interrupted_cell_leaves_no_stale_reply():
    # the interrupted cell's reply and the next cell's reply must not be confused
    with Sandbox(grace=2) as box:
        first = box.run('import time\nfor _ in range(100): time.sleep(0.01)\n"first"', timeout=0.2)
        assert first.timed_out and not first.state_lost and first.value is None
        assert [box.run(f'{number}').value for number in range(5)] == ['0', '1', '2', '3', '4']


def test_result_is_plain_json():
    import json
    with Sandbox() as box:
        result = box.run('print("hi")\n1/0')
        data = json.loads(json.dumps(result.to_dict()))
        assert data['output'] == 'hi\n' and data['error'].endswith('ZeroDivisionError: division by zero')
        assert data['timed_out'] is False and data['images'] == []


def test_a_forked_host_leaves_its_parents_sessions_alone():
    import os
    with Sandbox() as box:
        box.run('kept = "parent"')
        child = os.fork()
        if child == 0:  # the child exits through Python, running finalizers: it must not stop the parent's worker
            try: box._worker.stop()
            finally: os._exit(0)
        os.waitpid(child, 0)
        assert box.run('kept').value == "'parent'"


def test_a_huge_exception_message_is_an_ordinary_error():
    # the traceback is cut in the worker, so the reply stays far below the host's frame limit and the session lives on
    with Sandbox(max_output=1000) as box:
        box.run('kept = 1')
        result = box.run('raise ValueError("x" * 20_000_000)')
        assert not result.state_lost and len(result.error) == 4000 and result.error.startswith('Traceback')
        assert box.run('kept').value == '1'


def test_host_with_file_descriptors_above_1023():
    # a busy server holds more than 1024 fds; select() cannot wait on those, poll() can
    import os, resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1200
    if hard != resource.RLIM_INFINITY and hard < wanted: pytest.skip(f'the hard limit on open files ({hard}) is below {wanted}')
    if soft != resource.RLIM_INFINITY and soft < wanted: resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with Sandbox() as box:
            assert box._worker.reader.fd > 1023
            assert box.run('1 + 1').value == '2'
            assert box.run('import time\nwhile True: time.sleep(0.01)', timeout=0.2).timed_out
    finally:
        for fd in held: os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# --- liveness under the hardened layers: what a model's code needs still works --------------------------

def test_numpy_pandas_and_a_large_array_at_the_default_limits():
    pytest.importorskip('numpy'); pytest.importorskip('pandas')
    with Sandbox(require_isolation=True, timeout=120) as box:
        assert box.run('import numpy as np, pandas as pd\nint(pd.DataFrame({"a": np.arange(4)}).a.sum())').value == '6'
        assert box.run('big = np.ones(1_500_000_000 // 8); big.nbytes, float(big.sum())').value == '(1500000000, 187500000.0)'
        assert box.run('del big; import os; sorted(os.listdir("/proc/self/task"))').value == "['1']"  # BLAS started no thread pool


def test_matplotlib_figure_comes_back_as_an_image():
    pytest.importorskip('matplotlib')
    with Sandbox(require_isolation=True, timeout=120) as box:
        result = box.run('import matplotlib.pyplot as plt\nplt.plot([1, 3, 2]);')
        assert result.ok and len(result.images) == 1 and result.images[0].width > 100
        box.run('plt.plot([1, 2]); plt.savefig("plot.png")')
        assert box.read_file('plot.png').startswith(b'\x89PNG') and 'plot.png' in box.files()


def test_subprocess_of_shell_tools():
    with Sandbox(require_isolation=True) as box:
        box.run('import subprocess')
        assert box.run('subprocess.run(["sh", "-c", "echo $((6 * 7)) | tee answer"], capture_output=True, text=True).stdout').value == "'42\\n'"
        assert box.run('subprocess.run(["ls", "/scratch"], capture_output=True, text=True).stdout').value == "'answer\\n'"
        assert box.run('subprocess.run(["id", "-un"], capture_output=True, text=True).stdout').value == "'sandbox\\n'"


def test_shared_paths_read_and_write(tmp_path):
    data, out = tmp_path / 'data', tmp_path / 'out'
    data.mkdir(); out.mkdir(); out.chmod(0o777); tmp_path.chmod(0o755)
    (data / 'input.csv').write_text('a,b\n1,2\n')
    with Sandbox(require_isolation=True, read_paths=[data], write_paths=[out]) as box:
        assert box.run(f'open({str(data / "input.csv")!r}).read().upper()').value == "'A,B\\n1,2\\n'"
        assert box.run(f'open({str(out / "result.txt")!r}, "w").write("done")').value == '4'
        assert box.read_file(str(out / 'result.txt')) == b'done'
    assert (out / 'result.txt').read_text() == 'done'


def test_keep_background_lets_work_span_cells():
    from toolcall_lib.interp import IsolationError
    with pytest.raises(IsolationError, match='isolation layers missing on this system: background'):
        Sandbox(require_isolation=True, keep_background=True)  # fails closed: its replies could be forged by leftover work
    with pytest.warns(UserWarning, match='sandbox running without: background'), Sandbox(keep_background=True) as box:
        assert not box.status().fully_isolated and box.status().missing == ['background']
        box.run('import threading, time\ncount = 0\ndef tick():\n    global count\n    while True: count += 1; time.sleep(0.01)\n'
                'threading.Thread(target=tick, daemon=True).start()')
        first = int(box.run('time.sleep(0.1); count').value)
        assert int(box.run('time.sleep(0.1); count').value) > first


def test_a_dead_template_is_restarted_and_live_sessions_survive_it():
    from toolcall_lib.interp import _template
    with Sandbox() as first:
        first.run('kept = "first"')
        _template.process.kill(); _template.process.wait()
        with Sandbox() as second:  # a new template is started for it
            assert second.run('1 + 1').value == '2'
        assert first.run('kept').value == "'first'"


def test_a_failed_restart_never_writes_to_a_reused_descriptor(tmp_path):
    import os, pathlib
    shared = tmp_path / 'input'; shared.mkdir(); tmp_path.chmod(0o755)
    with Sandbox(read_paths=[shared]) as box:
        shared.rename(tmp_path / 'moved'); shared.symlink_to('/')  # the pinned path is gone: every restart fails
        died = box.run('import os; os._exit(0)')
        assert died.state_lost and died.notes[-1].startswith('the restart failed (shared path')
        result = box.run('1 + 1')
        assert result.error.startswith('SandboxError: the sandbox could not be started (shared path') and box._worker.request_fd is None
        victims = [tmp_path / f'victim-{index}' for index in range(8)]
        handles = [open(victim, 'wb+') for victim in victims]  # take the lowest free descriptors, as a busy host would
        try:
            for _ in range(3): assert box.run('print("x" * 100)').state_lost
        finally:
            for handle in handles: handle.close()
        assert all(victim.read_bytes() == b'' for victim in victims)


# --- review findings on SandboxPool and Sandbox (each failed on the code before its fix) --------------------

from toolcall_lib import interp
from toolcall_lib.interp import protocol, tool
from toolcall_lib.interp import SandboxPool, SandboxError
import threading


def slow_sandboxes(monkeypatch, seconds:float, fail:bool=False) -> list:
    "Make every `Sandbox` the pool starts take `seconds` (or fail after them); return the list of those started."
    started, real = [], interp.Sandbox
    def start(**options):
        time.sleep(seconds)
        if fail: raise SandboxError('this start fails')
        started.append(real(**options))
        return started[-1]
    monkeypatch.setattr(tool, 'Sandbox', start)  # what SandboxPool starts
    return started


def held_sandbox_starts(monkeypatch) -> tuple:
    "Make every `Sandbox` the pool starts wait until released: (started, released) events, set by the start and by the test."
    pool_module = SandboxPool.get.__globals__   # the namespace where the pool looks `Sandbox` up, whichever module that is
    started, released, real = threading.Event(), threading.Event(), pool_module['Sandbox']
    def start(**options):
        started.set()
        assert released.wait(timeout=120), 'the test never released the start'
        return real(**options)
    monkeypatch.setitem(pool_module, 'Sandbox', start)
    return started, released


def test_pool_starts_a_sandbox_without_holding_up_other_keys(monkeypatch):
    with SandboxPool() as pool, ThreadPoolExecutor(2) as threads:
        pool.get('fast')  # already running: taking it must not wait for another key's start
        started, released = held_sandbox_starts(monkeypatch)
        slow = threads.submit(pool.get, 'slow')
        try:
            assert started.wait(timeout=60)   # the slow start is under way, and stays so until released
            # with the start held, the other key answers: had it waited for the lock the start holds, this would time out
            assert threads.submit(lambda: pool.get('fast').run('1 + 1').value).result(timeout=60) == '2'
            assert not slow.done()
        finally: released.set()
        slow.result(timeout=60)
        assert 'slow' in pool


def test_pool_starts_one_sandbox_per_key_when_threads_ask_at_once(monkeypatch):
    started = slow_sandboxes(monkeypatch, 0.5)
    with SandboxPool() as pool, ThreadPoolExecutor(4) as threads:
        got = list(threads.map(lambda _: pool.get('same'), range(4)))
        assert len(started) == 1 and all(sandbox is started[0] for sandbox in got) and len(pool) == 1


def test_pool_closes_what_it_evicted_even_when_a_start_fails(monkeypatch):
    now = [0.0]
    with SandboxPool(max_sessions=1, idle_timeout=10, clock=lambda: now[0]) as pool:
        old = pool.get('old')
        now[0] = 11  # idle past the timeout: taken out on the next get
        slow_sandboxes(monkeypatch, 0, fail=True)
        with pytest.raises(SandboxError, match='this start fails'): pool.get('new')
        assert old._closed and old._worker.pid is None and len(pool) == 0  # it used to be dropped without being closed


def test_pool_close_also_closes_a_sandbox_still_starting(monkeypatch):
    "A server shutting down closes its pool while a client's sandbox is starting: that one must not outlive the pool."
    started = slow_sandboxes(monkeypatch, 0.5)
    pool = SandboxPool()
    getting = ThreadPoolExecutor(1).submit(pool.get, 'late')
    while 'late' not in pool.starting: time.sleep(0.01)
    pool.close()
    late = getting.result()
    assert len(pool) == 0 and late is started[0] and late._closed and late._worker.pid is None   # it used to land in the pool after close()


def test_pool_never_closes_a_sandbox_running_a_cell_as_idle():
    now = [0.0]
    with SandboxPool(max_sessions=2, idle_timeout=1, clock=lambda: now[0]) as pool:
        busy = pool.get('busy')
        running = ThreadPoolExecutor(1).submit(busy.run, 'import time; time.sleep(1)\n"finished"')
        time.sleep(0.3)
        now[0] = 5
        pool.close_idle()
        assert 'busy' in pool and not busy._closed  # it used to be closed in the middle of its cell
        assert running.result().value == "'finished'"
        pool.get('second'); busy2 = pool.get('busy')
        running = ThreadPoolExecutor(1).submit(busy2.run, 'import time; time.sleep(1)\n"finished"')
        time.sleep(0.3)
        pool.get('third')  # over max_sessions: the idle one goes, not the one running a cell
        assert 'busy' in pool and 'second' not in pool and running.result().value == "'finished'"


def test_close_from_another_thread_ends_the_running_cell_at_once():
    box = Sandbox(timeout=600)
    running = ThreadPoolExecutor(1).submit(box.run, 'import threading; threading.Event().wait()')   # a cell that never ends
    wait_until(lambda: box.busy)
    box.close()   # it used to wait for the cell, here for ever (the result below would time out)
    result = running.result(timeout=60)
    assert result.error == 'SandboxClosedError: the sandbox was closed while the cell ran' and result.state_lost
    assert box._closed and box._worker.pid is None  # no restart brought it back to life
    with pytest.raises(interp.SandboxClosedError): box.run('1')


def test_a_forked_host_process_cannot_use_its_parents_sandbox():
    import os
    with Sandbox() as box:
        box.run('kept = "parent"'); box.write_file('note.txt', b'parent')
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                outcomes = []
                for action in (lambda: box.run('kept'), lambda: box.read_file('note.txt'), lambda: box.write_file('x', b'x'),
                               box.files, box.reset):
                    try: outcomes.append(f'ran: {action()!r}')
                    except SandboxError as error: outcomes.append(str(error))
                os.write(writer, '\n'.join(outcomes).encode())
            finally: os._exit(0)
        os.close(writer)
        with os.fdopen(reader) as pipe: outcomes = pipe.read().splitlines()
        os.waitpid(child, 0)
        assert outcomes == [f'this sandbox belongs to process {os.getpid()}, which this process was forked from: its session is not '
                            "this process's to use; create a new Sandbox here"] * 5  # the child used to run cells in it
        assert box.run('kept').value == "'parent'" and box.read_file('note.txt') == b'parent'


def test_a_reply_waiting_at_the_deadline_is_not_a_timeout(monkeypatch):
    # the host looks at the pipe late (a busy machine): the reply came in time, so the cell did not time out
    real_wait, late = protocol._wait_for, []
    def wait_late(fd, events, deadline):
        if not late: late.append(1); time.sleep(0.5)
        return real_wait(fd, events, deadline)
    with Sandbox() as box:
        box.run('kept = 1')
        monkeypatch.setattr(protocol, '_wait_for', wait_late)
        result = box.run('kept + 1', timeout=0.2)
        assert (result.value, result.timed_out, result.error) == ('2', False, None)  # it used to say it timed out


def test_asyncio_to_thread_keeps_the_session():
    # asyncio's own thread pool idles between calls; it is shut down with the cell instead of costing the session
    with Sandbox() as box:
        box.run('import asyncio\nkept = 1')
        result = box.run('await asyncio.to_thread(sum, [1, 2])')
        assert (result.value, result.state_lost, result.notes) == ('3', False, ())  # it used to restart the session
        assert box.run('loop = asyncio.get_event_loop()\nkept, await loop.run_in_executor(None, max, 3, 4)').value == '(1, 4)'
        assert box.run('import os; len(os.listdir("/proc/self/task"))').value == '1'
        left = box.run('import time\nasyncio.ensure_future(asyncio.to_thread(time.sleep, 3))\nawait asyncio.sleep(0.05)')
        assert left.state_lost and left.error.startswith('SandboxError: the cell left 1 thread(s) running')  # work still running is not spared


def test_a_forked_host_process_closing_its_copy_leaves_the_parents_running_cell_alone():
    # fork while another thread runs a cell: the child's copy of the sandbox's lock is held by a thread the child does not have
    import os
    with Sandbox() as box:
        running = ThreadPoolExecutor(1).submit(box.run, 'import time; time.sleep(1.5)\n"parent\'s cell"')
        wait_until(lambda: box.busy)   # the cell's thread holds the sandbox's lock
        child = os.fork()
        if child == 0:
            try: box.close()  # must neither kill the parent's worker nor wait for a lock nobody will release
            finally: os._exit(0)
        # in the child nobody will ever release the lock: a child that waited for it would never exit
        wait_until(lambda: os.waitpid(child, os.WNOHANG)[0] == child, what='the forked child to exit')
        assert running.result().value == '"parent\'s cell"' and box.run('1 + 1').value == '2'


def wait_until(condition, what:str='the condition', timeout:float=60):
    "Poll `condition` until it holds; fail (not hang) after `timeout` seconds, a guard against a deadlock, not a speed limit."
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f'waited {timeout} s for {what}'
        time.sleep(0.01)
