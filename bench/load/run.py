"""Month-end load on loopback: gunicorn + a Celery worker + PostgreSQL + Redis, N concurrent clients for S seconds.

Run from the repository root (PostgreSQL and Redis listening on 127.0.0.1):

    .venv/bin/python bench/load/run.py                      # 50 clients: 60 s of the mix, then 2 x 20 s alone
    .venv/bin/python bench/load/run.py --clients 10 --seconds 15 --phase-seconds 5

It (re)creates its own PostgreSQL database (``--database``, default ``load``) and empties its own Redis database
(``--redis-db``, default 13), migrates and seeds the demo data (``seed_demo``), clones one scenario per client for
edits and makes a decision link, then starts a Celery worker and gunicorn on 127.0.0.1 and waits until every run is
evaluated. Each client signs in as the demo analyst and loops over a weighted mix of requests:

- ``scenario page``: GET a demo scenario's page (an unchanged scenario with a done run);
- ``market``: GET the Market page;
- ``edit``: an htmx POST of one rental price on the client's own scenario, with the CSRF token and version the
  page carries (saves, queues an evaluation on the worker, answers with the workspace as it now is);
- ``decision link``: GET ``/d/<token>`` (public, no session);
- ``login page`` and ``healthz``: the trivial baselines, measured in the same run.

It prints per request type: count, requests/s, client-side p50/p95/p99 latency and errors (anything but the
expected answer, or a connection error; target 0), and the time each request spent in the app (the request log's
duration_ms, read from gunicorn's log; "capacity" is workers x 1000 / mean server ms, the rate the workers could
serve that request type alone if nothing else ran on the machine).

In a mix every type's throughput is its share of the whole, so throughput is then measured per page: the same
clients request only scenario pages for ``--phase-seconds``, then only the login page (the trivial baseline, no
database) for as long. Target: scenario-page throughput within 2x of the login page's, measured in the same run;
the clients' own CPU share is printed with each phase (they run on the same cores). Exit status 1 on any error or a
missed target. Stops by itself and stops the processes it started (also on Ctrl-C). The decision-link rate limit is
raised for the run (it would otherwise answer 429 to one client address). Standard library only.
"""

from __future__ import annotations

import argparse
import functools
import http.cookiejar
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
ANALYST = ("analyst", "analyst-demo-2026")
EDITED_OPTION = "Lambda 8\u00d7 H100 SXM"  # a rental of the first demo scenario; its price is what the edits change
TARGET_RATIO = 2.0
# Request type -> weight in the mix.
MIX = {
    "scenario page": 40,
    "market": 15,
    "edit": 5,
    "decision link": 10,
    "login page": 15,
    "healthz": 15,
}
VERSION = re.compile(r'id="scenario-version" name="version" value="(\d+)"')
CSRF = re.compile(r'"X-CSRFToken": "([^"]+)"')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (1-200, default 50)")
    parser.add_argument("--seconds", type=float, default=60, help="measured duration (1-600, default 60)")
    parser.add_argument(
        "--phase-seconds", type=float, default=20, help="each single-page throughput phase (1-600, default 20)"
    )
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (1-8, default 3)")
    parser.add_argument("--port", type=int, default=0, help="gunicorn port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--database", default="load", help="PostgreSQL database to (re)create (default load)")
    parser.add_argument("--pg", default="postgres@127.0.0.1:5432", help="user@host:port of PostgreSQL")
    parser.add_argument("--redis-db", type=int, default=13, help="Redis database on 127.0.0.1:6379 (default 13)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the request mix")
    args = parser.parse_args()
    durations_ok = 1 <= args.seconds <= 600 and 1 <= args.phase_seconds <= 600
    if not (1 <= args.clients <= 200 and durations_ok and 1 <= args.workers <= 8):
        parser.error("bounded: --clients 1-200, --seconds and --phase-seconds 1-600, --workers 1-8")
    if args.database in ("postgres", "template0", "template1") or not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database):
        parser.error("--database: a plain lowercase name of a database this bench may drop")
    port = args.port or _free_port()
    user, _, hostport = args.pg.partition("@")
    host, _, pg_port = hostport.partition(":")
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{user}@{host}:{pg_port or 5432}/{args.database}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "load-bench-only"),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_DEBUG": "0",
        "DECISION_LINK_OPENS_PER_MINUTE": "1000000",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(args.workers),
        "PYTHONUNBUFFERED": "1",
        "DJANGO_REQUEST_LOG": "1",  # the time in the app per request comes from the request log
    }
    with tempfile.TemporaryDirectory(prefix="load-bench-") as folder:
        processes: list[subprocess.Popen] = []
        try:
            setup = _prepare(args, env, user, host, pg_port or "5432", Path(folder), processes)
            base = f"http://127.0.0.1:{port}"
            processes.append(
                _start(
                    [
                        str(ROOT / ".venv/bin/gunicorn"),
                        "config.wsgi",
                        "-c",
                        "gunicorn.conf.py",
                        "--bind",
                        f"127.0.0.1:{port}",
                    ],
                    env,
                    Path(folder) / "gunicorn.log",
                )
            )
            _wait_for(f"{base}/healthz", processes[-1], Path(folder) / "gunicorn.log")
            print(
                f"gunicorn: {args.workers} workers on {base}; measuring {args.clients} clients for {args.seconds:g} s",
                flush=True,
            )
            idle = functools.partial(_check, [PYTHON, __file__, "--wait-for-worker"], env)
            phases = _run_clients(base, setup, args, Path(folder) / "gunicorn.log", idle)
            return _report(phases, args)
        finally:
            for process in reversed(processes):
                _stop(process)


# ---- setup -------------------------------------------------------------------------------------------------------


def _prepare(args, env: dict, user: str, host: str, pg_port: str, folder: Path, processes: list) -> dict:
    psql = ["psql", "-h", host, "-p", pg_port, "-U", user, "-q", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c"]
    _check([*psql, f"DROP DATABASE IF EXISTS {args.database} WITH (FORCE)"])
    _check([*psql, f"CREATE DATABASE {args.database}"])
    _check([PYTHON, "-c", f"import redis; redis.Redis(host='127.0.0.1', db={args.redis_db}).flushdb()"])
    print(f"database {args.database} and Redis db {args.redis_db} emptied; migrating and seeding", flush=True)
    _check([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], env)
    _check([PYTHON, "manage.py", "seed_demo"], env)
    worker = [
        str(ROOT / ".venv/bin/celery"),
        "-A",
        "config",
        "worker",
        "--loglevel=warning",
        "--concurrency=1",
        "--without-gossip",
        "--without-mingle",
        "-n",
        f"load-bench-{os.getpid()}@%h",
    ]
    processes.append(_start(worker, env, folder / "worker.log"))
    output = _check([PYTHON, __file__, "--prepare-inside", str(args.clients)], env)
    return json.loads(output.strip().splitlines()[-1])


def _prepare_inside(clients: int) -> None:
    """Runs in a child process with the bench's environment: clones, a decision link, then waits for the worker."""
    _setup_django()
    from django.contrib.auth.models import User

    from tco.charts import snapshot as snapshot_output
    from tco.models import Scenario
    from tco.services import scenario_clone
    from tco.services.decisions import link_create

    analyst = User.objects.get(username=ANALYST[0])
    demos = list(Scenario.objects.order_by("id"))
    source = next(s for s in demos if s.options.filter(name=EDITED_OPTION).exists())
    edits = []
    for number in range(clients):
        copy = scenario_clone(scenario=source, user=analyst, name=f"load client {number}")
        option = copy.options.get(name=EDITED_OPTION)
        edits.append({"scenario": copy.pk, "option": option.pk})
    _wait_for_worker()
    _, token = link_create(scenario=source, user=analyst, output=snapshot_output, note="load bench")
    print(json.dumps({"pages": [s.pk for s in demos], "edits": edits, "token": token}))


def _setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()  # once per process: a second call does nothing


def _wait_for_worker() -> None:
    """Until the worker has evaluated every run (at most 300 s). In a child process with the bench's environment."""
    _setup_django()
    from tco.models import RunStatus, ScenarioRun

    deadline = time.monotonic() + 300
    while ScenarioRun.objects.exclude(status__in=[RunStatus.DONE, RunStatus.FAILED]).exists():
        if time.monotonic() > deadline:
            raise SystemExit("the worker did not evaluate the queued runs within 300 s")
        time.sleep(0.5)


def _check(command: list[str], env: dict | None = None) -> str:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def _start(command: list[str], env: dict, log: Path) -> subprocess.Popen:
    handle = log.open("wb")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM the process group it leads (gunicorn's and Celery's children too), SIGKILL after 20 s."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


def _wait_for(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer {url} within 60 s")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---- clients -----------------------------------------------------------------------------------------------------


@dataclass
class Samples:
    """What one phase measured."""

    name: str
    mix: dict[str, int]
    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind in MIX})
    errors: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in MIX})
    lock: threading.Lock = field(default_factory=threading.Lock)
    ended: threading.Event = field(default_factory=threading.Event)
    elapsed: float = 0.0
    client_cpu: float = 0.0  # the clients' CPU seconds per second of the phase
    server: dict[str, list[float]] = field(default_factory=dict)  # in-app ms per request type, from the request log

    def add(self, kind: str, seconds: float, error: str = "") -> None:
        with self.lock:
            if self.ended.is_set():  # finished after the phase ended: not part of its figures
                return
            self.latencies[kind].append(seconds)
            if error:
                self.errors[kind].append(error)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a redirect is an answer to record, not to follow
        return None


class Client:
    """One signed-in analyst with a cookie jar; ``request`` returns (status, body) and never raises HTTP errors."""

    def __init__(self, base: str, edit: dict):
        self.base, self.edit = base, edit
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect
        )
        self.csrf = ""
        self.version = 0

    def request(self, path: str, data: dict | None = None, headers: dict | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def sign_in(self) -> None:
        status, page = self.request("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        status, _ = self.request(
            "/accounts/login/",
            {"csrfmiddlewaretoken": token, "username": ANALYST[0], "password": ANALYST[1]},
            {"Referer": self.base + "/accounts/login/"},
        )
        if status != 302:
            raise SystemExit(f"signing in as the analyst answered {status}")
        self._read_page()

    def _read_page(self) -> None:
        _, page = self.request(f"/scenarios/{self.edit['scenario']}/")
        self.csrf = CSRF.search(page).group(1)
        self.version = int(VERSION.search(page).group(1))

    def edit_price(self, number: int) -> str:
        """POST a new price the way the page does (htmx, CSRF header, version); "" when saved."""
        path = f"/scenarios/{self.edit['scenario']}/options/{self.edit['option']}/field/"
        price = f"{3.0 + (number % 1000) / 1000:.3f}"
        form = {"price_per_gpu_hour": price, "version": self.version}
        headers = {"HX-Request": "true", "X-CSRFToken": self.csrf, "Referer": self.base + path}
        status, body = self.request(path, form, headers)
        if status != 200:
            return f"HTTP {status}"
        if "was changed" in body and "not saved" in body:
            self._read_page()
            return "version conflict"
        self.version += 1
        return ""


def _run_clients(base: str, setup: dict, args, server_log: Path, idle) -> list[Samples]:
    """The mix for ``--seconds``, then each single page for ``--phase-seconds``, with the same signed-in clients.
    Between phases the clients pause until the worker has evaluated what the mix's edits queued (``idle``), so a
    page measured alone has the machine to itself."""
    phases = [
        Samples("mix", MIX, args.seconds),
        Samples("scenario page alone", {"scenario page": 1}, args.phase_seconds),
        Samples("login page alone", {"login page": 1}, args.phase_seconds),
    ]
    clients = [Client(base, setup["edits"][number]) for number in range(args.clients)]
    ready = threading.Barrier(args.clients + 1)
    current: list[Samples] = []  # the phase running now (empty: none yet, or all done)
    done, paused = threading.Event(), threading.Event()
    failures: list[str] = []

    def work(number: int) -> None:
        client = clients[number]
        try:
            client.sign_in()
        except Exception as error:  # reported below; the barrier still releases everyone
            failures.append(f"client {number}: {error!r}")
        ready.wait()
        if failures:
            return
        pick = random.Random(args.seed * 1000 + number)
        count = 0
        while not done.is_set():
            if paused.is_set():
                time.sleep(0.05)
                continue
            phase = current[-1]
            kind = pick.choices(list(phase.mix), list(phase.mix.values()))[0]
            count += 1
            started = time.perf_counter()
            try:
                error = _one(client, kind, setup, pick, count)
            except Exception as failure:  # connection refused or reset, timeout: an error of that request type
                error = repr(failure)
            phase.add(kind, time.perf_counter() - started, error)

    threads = [threading.Thread(target=work, args=(number,), daemon=True) for number in range(args.clients)]
    for thread in threads:
        thread.start()
    current.append(phases[0])
    ready.wait()
    if failures:
        raise SystemExit("signing in failed: " + "; ".join(failures[:3]))
    for index, phase in enumerate(phases):
        if index:
            paused.set()
            time.sleep(1)  # the requests under way end
            idle()
            current.append(phase)
            paused.clear()
            print(f"measuring {phase.name} for {phase.seconds:g} s", flush=True)
        log_start, started, cpu = server_log.stat().st_size, time.perf_counter(), time.process_time()
        time.sleep(phase.seconds)
        phase.ended.set()
        phase.elapsed = time.perf_counter() - started
        phase.client_cpu = (time.process_time() - cpu) / phase.elapsed
        log_end = server_log.stat().st_size
        with server_log.open("rb") as log:
            log.seek(log_start)
            phase.server = _server_times(log.read(log_end - log_start).decode(errors="replace"))
    done.set()
    for thread in threads:
        thread.join(timeout=70)
    return phases


def _server_times(log: str) -> dict[str, list[float]]:
    """Milliseconds each request spent in the app (the request log's duration_ms), by request type: what a page
    costs a worker, without the time it queued for one."""
    times: dict[str, list[float]] = {kind: [] for kind in MIX}
    for line in log.splitlines():
        if not line.startswith('{"request_id"'):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        kind = _kind_of(entry["method"], entry["path"])
        if kind:
            times[kind].append(float(entry["duration_ms"]))
    return times


def _kind_of(method: str, path: str) -> str:
    if method == "POST":
        return "edit" if re.fullmatch(r"/scenarios/\d+/options/\d+/field/", path) else ""
    if re.fullmatch(r"/scenarios/\d+/", path):
        return "scenario page"
    return {"/market/": "market", "/accounts/login/": "login page", "/healthz": "healthz"}.get(
        path, "decision link" if path.startswith("/d/") else ""
    )


def _one(client: Client, kind: str, setup: dict, pick: random.Random, count: int) -> str:
    """One request of ``kind``; "" when it got the expected answer, else what went wrong."""
    if kind == "edit":
        return client.edit_price(count)
    path, expected, marker = {
        "scenario page": (f"/scenarios/{pick.choice(setup['pages'])}/", 200, 'id="results"'),
        "market": ("/market/", 200, "<table"),
        "decision link": (f"/d/{setup['token']}", 200, "fig-"),
        "login page": ("/accounts/login/", 200, "csrfmiddlewaretoken"),
        "healthz": ("/healthz", 200, "ok"),
    }[kind]
    if kind in ("decision link", "login page", "healthz"):
        status, body = _anonymous(client.base + path)
    else:
        status, body = client.request(path)
    if status != expected:
        return f"HTTP {status}"
    return "" if marker in body else f"missing {marker!r}"


def _anonymous(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


# ---- report ------------------------------------------------------------------------------------------------------


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _report(phases: list[Samples], args) -> int:
    mix, alone = phases[0], phases[1:]
    print(f"\n{args.clients} clients, {args.workers} gunicorn workers, 1 Celery worker")
    print("client-side latency includes queueing for a gunicorn worker; server ms is the time in the app (request log)")
    print("capacity/s: workers x 1000 / server mean ms, the rate the workers could serve that request type alone")
    errors = 0
    for phase in phases:
        errors += _table(phase, args)
    throughput = {phase.name: sum(map(len, phase.latencies.values())) / phase.elapsed for phase in alone}
    scenario, login = throughput["scenario page alone"], throughput["login page alone"]
    ratio = login / scenario if scenario else float("inf")
    within = ratio <= TARGET_RATIO
    print(
        f"\nthroughput alone: login page {login:.1f}/s, scenario page {scenario:.1f}/s: "
        f"{ratio:.2f}x, {'within' if within else 'ABOVE'} the target of {TARGET_RATIO:g}x"
    )
    capacity = {kind: args.workers * 1000 / statistics.fmean(times) for kind, times in mix.server.items() if times}
    if "scenario page" in capacity:
        for baseline in ("login page", "healthz"):
            if baseline in capacity:
                print(
                    f"in the mix, {baseline} capacity / scenario page capacity = "
                    f"{capacity[baseline] / capacity['scenario page']:.2f}x (time in the app)"
                )
    print("errors: none" if errors == 0 else f"errors: {errors} (target 0)")
    return 0 if errors == 0 and within else 1


def _table(phase: Samples, args) -> int:
    """Print one phase's table; return its error count."""
    print(f"\n{phase.name}: {phase.elapsed:.1f} s, the clients used {phase.client_cpu:.0%} of a core")
    columns = [("n", 6), ("req/s", 7), ("p50 ms", 8), ("p95 ms", 8), ("p99 ms", 8), ("errors", 6)]
    columns += [("server p50", 10), ("server mean", 11), ("capacity/s", 10)]
    print(f"{'request':<15} " + " ".join(f"{name:>{width}}" for name, width in columns))
    total = errors = 0
    for kind in phase.mix:
        times = sorted(phase.latencies[kind])
        failed = len(phase.errors[kind])
        total, errors = total + len(times), errors + failed
        if not times:
            print(f"{kind:<15} {0:>6}")
            continue
        server = sorted(phase.server.get(kind, []))
        server_text = f"{'-':>10} {'-':>11} {'-':>10}"
        if server:
            mean = statistics.fmean(server)
            server_text = f"{_percentile(server, 0.5):>10.1f} {mean:>11.1f} {args.workers * 1000 / mean:>10.1f}"
        print(
            f"{kind:<15} {len(times):>6} {len(times) / phase.elapsed:>7.1f} {_percentile(times, 0.5) * 1000:>8.1f} "
            f"{_percentile(times, 0.95) * 1000:>8.1f} {_percentile(times, 0.99) * 1000:>8.1f} {failed:>6} {server_text}"
        )
    if len(phase.mix) > 1:
        print(f"{'all':<15} {total:>6} {total / phase.elapsed:>7.1f} {'':>8} {'':>8} {'':>8} {errors:>6}")
    for kind, listed in phase.errors.items():
        for message, number in sorted({m: listed.count(m) for m in listed}.items(), key=lambda item: -item[1])[:3]:
            print(f"  {kind}: {number} x {message}")
    return errors


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--prepare-inside":
        _prepare_inside(int(sys.argv[2]))
    elif sys.argv[1:] == ["--wait-for-worker"]:
        _wait_for_worker()
    else:
        raise SystemExit(main())
