"""A throwaway PostgreSQL server for the tests and benchmarks: `initdb` and `pg_ctl` in a temporary directory,
reachable only through a unix socket in that directory, run as an unprivileged user when we are root.

    with ThrowawayPostgres() as server:
        dsn = server.dsn()          # 'postgresql:///postgres?host=/tmp/toolcall-pg-...&user=toolcall'
        server.stop('immediate')    # like a crash: no shutdown checkpoint
        server.start()

`tools/ensure_postgres` installs the server binaries when they are missing.

The server dies with the process that made it, however that process ends (an interrupted or killed test run
included): a watchdog process, in a session of its own so that a Ctrl-C to the test run does not reach it, waits
for the end of a pipe only its parent holds; when the parent closes it or dies, the watchdog stops the server
(`pg_ctl -m immediate`) and deletes the temporary directory."""
import glob, os, pwd, re, shutil, subprocess, sys, tempfile
from pathlib import Path

SERVER_TOOLS = ('initdb', 'pg_ctl', 'postgres')
PASSWORD_USER, PASSWORD = 'memory_login', 'correct-horse-battery-staple'   # a role that must log in with a password


# Run by the watchdog: argv = pg_ctl, data directory, directory to delete, uid and gid to run pg_ctl as (-1: ours).
_WATCHDOG = '''
import os, shutil, subprocess, sys
pg_ctl, data, directory, uid, gid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
sys.stdin.buffer.read()   # returns at end of file: the parent closed its end, or died
if os.path.exists(os.path.join(data, 'postmaster.pid')):
    as_user = dict(user=uid, group=gid, extra_groups=[]) if uid >= 0 else {}
    subprocess.run([pg_ctl, '-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop'], stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd='/', timeout=120, **as_user)
shutil.rmtree(directory, ignore_errors=True)
'''


def _version_key(directory: str) -> tuple:
    return tuple(int(number) for number in re.findall(r'\d+', directory)) or (0,)


def find_postgres_bindir() -> Path | None:
    "The directory holding initdb, pg_ctl and postgres: $PG_BINDIR, next to pg_ctl on PATH, pg_config --bindir, or the usual places."
    candidates = [os.environ['PG_BINDIR']] if os.environ.get('PG_BINDIR') else []
    for tool in ('pg_ctl', 'initdb'):
        if found := shutil.which(tool): candidates.append(os.path.dirname(os.path.realpath(found)))  # /usr/local/bin/pg_ctl may be a link
    if pg_config := shutil.which('pg_config'):
        try: candidates.append(subprocess.run([pg_config, '--bindir'], capture_output=True, text=True, timeout=30).stdout.strip())
        except (OSError, subprocess.SubprocessError): pass
    for pattern in ('/usr/lib/postgresql/*/bin', '/usr/pgsql-*/bin', '/usr/local/pgsql/bin', '/opt/homebrew/opt/postgresql*/bin',
                    '/usr/local/opt/postgresql*/bin'):
        candidates += sorted(glob.glob(pattern), key=_version_key, reverse=True)
    for directory in candidates:
        if directory and all(os.access(os.path.join(directory, tool), os.X_OK) for tool in SERVER_TOOLS): return Path(directory)
    return None


class ThrowawayPostgres:
    "A PostgreSQL server in a temporary directory, for one test session; `close()` stops it and deletes everything."
    def __init__(self):
        bindir = find_postgres_bindir()
        if bindir is None:
            raise RuntimeError('PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found: run tools/ensure_postgres '
                               '(Debian: apt-get install postgresql), or set PG_BINDIR to the directory holding them')
        self.bindir = bindir
        self.directory = Path(tempfile.mkdtemp(prefix='toolcall-pg-'))
        self.data, self.log = self.directory / 'data', self.directory / 'server.log'
        self.account = None
        if os.geteuid() == 0:   # the server refuses to run as root
            name = next((user for user in ('postgres', 'nobody') if _user_exists(user)), None)
            if name is None: raise RuntimeError('running as root, and there is neither a postgres nor a nobody user to run the server as')
            self.account = pwd.getpwnam(name)
            os.chown(self.directory, self.account.pw_uid, self.account.pw_gid)
        uid, gid = (self.account.pw_uid, self.account.pw_gid) if self.account else (-1, -1)
        self.watchdog = subprocess.Popen([sys.executable, '-c', _WATCHDOG, str(self.bindir / 'pg_ctl'), str(self.data), str(self.directory),
                                          str(uid), str(gid)], stdin=subprocess.PIPE, start_new_session=True, cwd='/')
        try:
            self._run('initdb', '-D', str(self.data), '-U', 'toolcall', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync')
            hba = self.data / 'pg_hba.conf'
            hba.write_text(f'local all {PASSWORD_USER} scram-sha-256\n' + hba.read_text())
            self.start()
            self.execute(f"CREATE ROLE {PASSWORD_USER} LOGIN PASSWORD '{PASSWORD}'", f'GRANT CREATE ON SCHEMA public TO {PASSWORD_USER}')
        except BaseException:
            self.close()
            raise

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        "Run one of the server's tools as the server's user."
        as_user = dict(user=self.account.pw_uid, group=self.account.pw_gid, extra_groups=[]) if self.account else {}
        done = subprocess.run([str(self.bindir / tool), *args], capture_output=True, text=True, timeout=120, cwd=self.directory,
                              env=dict(os.environ, LC_ALL='C'), **as_user)
        if check and done.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.exists() else ''
            raise RuntimeError(f'{tool} {" ".join(args)} failed ({done.returncode}): {done.stdout}{done.stderr}\nserver log:\n{log}')
        return done

    def start(self):
        "Start the server and wait until it accepts connections."
        options = f"-k {self.directory} -c listen_addresses='' -c shared_buffers=16MB -c max_connections=100"
        self._run('pg_ctl', '-D', str(self.data), '-l', str(self.log), '-o', options, '-w', '-t', '120', 'start')

    def stop(self, mode: str = 'fast'):
        "Stop the server: 'fast' (clean, disconnects clients) or 'immediate' (no checkpoint: recovery on the next start, like a crash)."
        self._run('pg_ctl', '-D', str(self.data), '-m', mode, '-w', '-t', '120', 'stop')

    def dsn(self, database: str = 'postgres', user: str = 'toolcall', password: str | None = None) -> str:
        "A connection URL for the server's socket."
        login = f'{user}:{password}@' if password is not None else ''
        return f'postgresql://{login}/{database}?host={self.directory}' + ('' if password is not None else f'&user={user}')

    def execute(self, *statements: str, database: str = 'postgres') -> list:
        "Run statements as the superuser, each in autocommit; the rows of the last one (if it returns any)."
        import psycopg
        with psycopg.connect(self.dsn(database), autocommit=True) as conn:
            for statement in statements: cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def close(self):
        "Stop the server (if running) and delete its directory."
        if (self.data / 'postmaster.pid').exists(): self._run('pg_ctl', '-D', str(self.data), '-m', 'immediate', '-w', 'stop', check=False)
        shutil.rmtree(self.directory, ignore_errors=True)
        if self.watchdog.stdin and not self.watchdog.stdin.closed:
            self.watchdog.stdin.close()   # nothing left for it to do: it ends
            self.watchdog.wait(timeout=120)

    def __enter__(self): return self
    def __exit__(self, *exc_info): self.close()


def _user_exists(name: str) -> bool:
    try: pwd.getpwnam(name); return True
    except KeyError: return False
