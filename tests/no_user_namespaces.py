"""A launcher that runs a command on a simulated host without user namespaces: `python no_user_namespaces.py [--uid N]
COMMAND ARGS...`. It makes a user namespace (the whole uid and gid range mapped when run as root, its own uid only
otherwise), sets `user.max_user_namespaces` to 0 in it, so no further user namespace can be made there (as on
hosts and distributions that turn them off), and execs the command as root of that namespace or, with `--uid N`, as
the unprivileged uid N (which needs the whole range: run the launcher as root)."""
import ctypes, os, sys

CLONE_NEWUSER = 0x10000000


def enter(uid:int|None=None):
    "Enter a new user namespace with no room for another; become `uid` in it if given."
    libc = ctypes.CDLL(None, use_errno=True)
    outer_uid, outer_gid = os.geteuid(), os.getegid()
    ready_read, ready_write = os.pipe()
    mapped_read, mapped_write = os.pipe()
    child = os.fork()
    if child == 0:  # the helper: writes the maps of its parent's new namespace from outside it
        os.close(ready_write); os.close(mapped_read)
        os.read(ready_read, 1)
        parent = os.getppid()
        whole = outer_uid == 0
        if not whole:
            with open(f'/proc/{parent}/setgroups', 'w') as file: file.write('deny')
        with open(f'/proc/{parent}/uid_map', 'w') as file: file.write('0 0 4294967295' if whole else f'0 {outer_uid} 1')
        with open(f'/proc/{parent}/gid_map', 'w') as file: file.write('0 0 4294967295' if whole else f'0 {outer_gid} 1')
        os.write(mapped_write, b'1')
        os._exit(0)
    os.close(ready_read); os.close(mapped_write)
    if libc.unshare(CLONE_NEWUSER) != 0: sys.exit(f'unshare failed: {os.strerror(ctypes.get_errno())}')
    os.write(ready_write, b'1')
    if os.read(mapped_read, 1) != b'1': sys.exit('the uid map was not written')
    os.waitpid(child, 0)
    with open('/proc/sys/user/max_user_namespaces', 'w') as file: file.write('0')
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)


if __name__ == '__main__':
    arguments = sys.argv[1:]
    uid = None
    if arguments[:1] == ['--uid']: uid, arguments = int(arguments[1]), arguments[2:]
    enter(uid)
    os.execvp(arguments[0], arguments)
