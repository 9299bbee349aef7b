"""gunicorn settings for `gunicorn config.wsgi -c gunicorn.conf.py` (the Procfile's web process).

PORT and WEB_CONCURRENCY come from the environment; FORWARDED_ALLOW_IPS (read by gunicorn itself) names the
load balancer's addresses. The app logs one line per request with its id (config.middleware), so gunicorn's
access log stays off.
"""

from __future__ import annotations

import multiprocessing
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # gunicorn reads this file before --chdir applies

from config.env import env_int

bind = f"0.0.0.0:{env_int('PORT', 8000, minimum=1)}"
workers = env_int("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count() + 1, 8), minimum=1)
# Longer than the slowest page (an Excel export) and shorter than the balancer's idle timeout.
timeout = env_int("GUNICORN_TIMEOUT", 30, minimum=1)
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then so a slow leak cannot grow without bound; jitter keeps them from restarting together.
max_requests = 1000
max_requests_jitter = 100
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # heartbeat files off slow disks
accesslog = None
errorlog = "-"
