"""The Procfile's processes and the gunicorn config: a real gunicorn on 127.0.0.1 serves the probes and logs."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _procfile() -> dict[str, list[str]]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return {name: shlex.split(command) for name, command in (line.split(":", 1) for line in lines if line.strip())}


def test_the_procfile_runs_web_worker_and_exactly_one_beat():
    processes = _procfile()
    assert set(processes) == {"release", "web", "worker", "beat"}
    # A release step readies a bare database: the schema, then the reference data imports need.
    assert processes["release"] == [
        *["python", "manage.py", "migrate", "--noinput", "&&", "python", "manage.py", "load_reference"]
    ]
    assert processes["web"][:2] == ["gunicorn", "config.wsgi"]
    assert processes["web"][processes["web"].index("-c") + 1] == "gunicorn.conf.py"
    assert processes["worker"][:4] == ["celery", "-A", "config", "worker"]
    assert processes["beat"][:4] == ["celery", "-A", "config", "beat"]
    for name, command in processes.items():
        if name == "release":
            continue
        assert (BIN / command[0]).exists(), f"{command[0]} is not installed in the virtualenv"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, **headers: str):
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, dict(response.headers), response.read()


def test_gunicorn_with_the_config_serves_the_probes_and_logs_each_request(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DJANGO_SECRET_KEY="x", DATABASE_URL=f"sqlite://{tmp_path}/db.sqlite3", WEB_CONCURRENCY="1")
    web = _procfile()["web"]
    # The Procfile's command, bound to loopback on a free port, with the control socket out of the way.
    command = [str(BIN / web[0]), *web[1:], "-b", f"127.0.0.1:{port}", "--control-socket", str(tmp_path / "ctl")]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, headers, body = _get(f"http://127.0.0.1:{port}/healthz", **{"X-Request-ID": "lb-42"})
                break
            except OSError:
                assert process.poll() is None, process.stderr.read()
                assert time.monotonic() < deadline, "gunicorn did not answer within 30 s"
                time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert (status, json.loads(body)) == (200, {"status": "ok"})
    assert headers["X-Request-ID"] == "lb-42"
    logged = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert [(line["request_id"], line["path"], line["status"]) for line in logged] == [("lb-42", "/healthz", 200)]
