"""A launcher for root: runs a command on a simulated host whose Python others may read, as on a host with Python in
/usr/local or /opt: `python readable_python.py COMMAND ARGS...`. Where this Python lives under a directory others may
not enter (a pyenv build under /root, mode 700), it makes a private mount namespace, keeps that directory's entries on
the way to Python aside, mounts an empty tmpfs of mode 755 over the directory and binds them back: the paths stay the
same, nothing else of the directory is there, and nothing changes outside this process. Then it execs the command."""
import ctypes, os, sys, tempfile

CLONE_NEWNS, MS_BIND, MS_REC, MS_PRIVATE = 0x00020000, 4096, 16384, 1 << 18


def blocked_directories() -> dict:
    "directory others may not enter -> the entries in it on the way to this Python."
    found = {}
    for path in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), os.path.realpath(sys.executable)}:
        steps = path.split('/')
        for depth in range(2, len(steps)):
            directory = '/'.join(steps[:depth])
            if os.stat(directory).st_mode & 0o005 != 0o005:
                found.setdefault(directory, set()).add(steps[depth])
                break
    return found


def open_up():
    libc = ctypes.CDLL(None, use_errno=True)
    def mount(source, target, kind, flags, options=None):
        encode = lambda text: None if text is None else os.fsencode(text)
        if libc.mount(encode(source), encode(target), encode(kind), flags, encode(options)) != 0:
            raise OSError(ctypes.get_errno(), f'mount {target}: {os.strerror(ctypes.get_errno())}')
    blocked = blocked_directories()
    if not blocked: return
    if libc.unshare(CLONE_NEWNS) != 0: raise OSError(ctypes.get_errno(), 'unshare(CLONE_NEWNS)')
    mount(None, '/', None, MS_REC | MS_PRIVATE)
    aside = tempfile.mkdtemp()
    for directory, entries in blocked.items():
        for entry in entries:
            os.mkdir(f'{aside}/{entry}'); mount(f'{directory}/{entry}', f'{aside}/{entry}', None, MS_BIND | MS_REC)
        mount('tmpfs', directory, 'tmpfs', 0, 'mode=755,size=1m')
        for entry in entries:
            os.mkdir(f'{directory}/{entry}'); mount(f'{aside}/{entry}', f'{directory}/{entry}', None, MS_BIND | MS_REC)


if __name__ == '__main__':
    open_up()
    os.execvp(sys.argv[1], sys.argv[1:])
