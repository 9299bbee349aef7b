"""The one settings module. Production differs from development only by environment variables."""

from __future__ import annotations

from pathlib import Path

from csp.constants import NONE, SELF, UNSAFE_INLINE

from config.env import (
    database_from_url,
    env_bool,
    env_int,
    env_list,
    env_secret_key,
    env_str,
    env_time_limits,
    https_origins,
    redis_url,
    sqlite_database,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_secret_key("DJANGO_SECRET_KEY", debug=DEBUG)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "ninja",  # the API's interactive docs (swagger-ui, served from its own static files)
    "template_partials",
    "simple_history",
    "config.apps.SiteConfig",
    "lib",
    "pricing",
    "tco",
]

MIDDLEWARE = [
    "config.middleware.RequestLogMiddleware",
    # Compresses what a browser accepts compressed (an edit's workspace answer 80 kB -> 12 kB), with Django's BREACH
    # mitigation (random padding); first after the log so it sees every body in its final form.
    "django.middleware.gzip.GZipMiddleware",
    "lib.statement_timeout.StatementTimeoutMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "config.middleware.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "config.middleware.RejectNulCharactersMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.middleware.PrivateCacheMiddleware",
    "config.middleware.LoginRequiredMiddleware",
    "config.middleware.NoRoleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "config.audit.AdminAuditMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL")
# Seconds a worker keeps its PostgreSQL connection between requests (0: a new connection per request).
DATABASE_CONN_MAX_AGE = env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
DATABASES = {
    "default": (
        database_from_url(DATABASE_URL, conn_max_age=DATABASE_CONN_MAX_AGE)
        if DATABASE_URL
        else sqlite_database(str(BASE_DIR / "db.sqlite3"))
    )
}
# PostgreSQL cancels any statement running longer (0: no limit); the reader gets a page saying so
# (lib/statement_timeout.py). Imports and migrations lift it.
DATABASE_STATEMENT_TIMEOUT_MS = env_int("DATABASE_STATEMENT_TIMEOUT_MS", 10_000, minimum=0)
# PostgreSQL prepares a statement a connection has sent 5 times (the signed-in user, their roles, a scenario page's
# stamp) and then neither parses nor plans it again: a repeat scenario page ~15% cheaper, which keeps it within 2x of
# the login page's throughput (bench/load). Needs server-side parameter binding (at most 65,535 parameters a
# statement). Off behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode without
# max_prepared_statements).
DATABASE_PREPARED_STATEMENTS = env_bool("DATABASE_PREPARED_STATEMENTS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # after any the URL gave
    _options["options"] = f"{_options.get('options', '')} -c statement_timeout={DATABASE_STATEMENT_TIMEOUT_MS}".strip()
    if DATABASE_PREPARED_STATEMENTS:
        _options.update(server_side_binding=True, prepare_threshold=5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "config.login_throttle.LoginThrottleBackend",  # refuses while an account or address is throttled
    "django.contrib.auth.backends.ModelBackend",  # roles: config/roles.py, read once per request
]
# Failed sign-ins allowed per account and per client address in each window (config/login_throttle.py).
LOGIN_FAILURES_PER_ACCOUNT = env_int("LOGIN_FAILURES_PER_ACCOUNT", 5, minimum=1)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 20, minimum=1)
LOGIN_THROTTLE_WINDOW_SECONDS = env_int("LOGIN_THROTTLE_WINDOW_SECONDS", 15 * 60, minimum=1)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "tco:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True  # serve straight from static/ when collectstatic has not run

# Jobs: Celery on Redis when REDIS_URL is set, otherwise executed in-process at enqueue time.
REDIS_URL = redis_url("REDIS_URL")
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_IGNORE_RESULT = True  # jobs write their outcome to their row; only config.ping returns a result
# Time limits (soft, hard): past the soft limit a job fails its row with a message; past the hard one the
# worker kills it. Evaluations and sweeps: JOB_TIME_LIMIT_SECONDS; price imports: IMPORT_JOB_TIME_LIMIT_SECONDS.
CELERY_TASK_SOFT_TIME_LIMIT, CELERY_TASK_TIME_LIMIT = env_time_limits("JOB_TIME_LIMIT_SECONDS", 60)
IMPORT_SOFT_TIME_LIMIT, IMPORT_TIME_LIMIT = env_time_limits("IMPORT_JOB_TIME_LIMIT_SECONDS", 600)
CELERY_TASK_ANNOTATIONS = {
    name: {"soft_time_limit": IMPORT_SOFT_TIME_LIMIT, "time_limit": IMPORT_TIME_LIMIT}
    for name in ("pricing.tasks.import_snapshot", "pricing.tasks.run_due_imports", "pricing.tasks.import_throughput")
}
# Imports have their own queue so evaluations never wait behind a big file: workers consume both
# (`celery -A config worker -Q celery,imports`, or one worker per queue).
CELERY_TASK_DEFAULT_QUEUE = "celery"
IMPORTS_QUEUE = "imports"
CELERY_TASK_ROUTES = {name: {"queue": IMPORTS_QUEUE} for name in CELERY_TASK_ANNOTATIONS}
# A job is acknowledged when it ends; a worker killed mid-job puts it back (reject on worker lost), and
# Redis hands an unacknowledged job to another worker after the visibility timeout, which must outlast
# the longest hard limit or a job still running would be delivered twice.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Sending a job never holds a request for long: short socket timeouts and one retry, then the row stays
# pending and the sweeper sends it when the broker is back.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": max(IMPORT_TIME_LIMIT, CELERY_TASK_TIME_LIMIT) + 60,
    "socket_connect_timeout": 2,
    "socket_timeout": 2,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_REDIS_SOCKET_TIMEOUT = 5
CELERY_TIMEZONE = TIME_ZONE
# The sweeper sends again jobs still pending after JOB_RESEND_AFTER_SECONDS (their message may have been lost
# with Redis) and fails jobs still running after their hard limit plus JOB_STUCK_GRACE_SECONDS (their worker died).
JOB_RESEND_AFTER_SECONDS = env_int("JOB_RESEND_AFTER_SECONDS", 120, minimum=1)
# A job is stamped sent once the broker has it: one still unsent JOB_SEND_GRACE_SECONDS after it was queued was left
# behind (its send failed, or the web worker that committed it died first) and is sent by the next poll or sweep.
JOB_SEND_GRACE_SECONDS = 5
JOB_STUCK_GRACE_SECONDS = 30
# A worker running a job stamps its row every JOB_HEARTBEAT_SECONDS (lib.jobs.Heartbeat); a running job silent for
# JOB_HEARTBEAT_STALE_SECONDS (several beats missed) has lost its worker and is failed without waiting for its hard
# limit (an import's is 750 s).
JOB_HEARTBEAT_SECONDS = 10
JOB_HEARTBEAT_STALE_SECONDS = 45
# Mail: the warning to a decision's owner when its actuals no longer hold it up (tco.tasks.check_actuals). Django's
# SMTP backend; without a relay set, the console backend in debug. SITE_URL makes the e-mail link to the page.
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "gpu-build-vs-rent@localhost")
SITE_URL = env_str("SITE_URL")

CELERY_BEAT_SCHEDULE: dict = {
    # Scheduled price imports (pricing.ImportSource): each source runs when its own cadence has elapsed.
    "pricing-run-due-imports": {"task": "pricing.tasks.run_due_imports", "schedule": 15 * 60},
    # Jobs that never get stuck: resend pending ones, fail those whose worker died.
    "sweep-jobs": {"task": "tco.tasks.sweep_jobs", "schedule": 60},
    # Decisions against actuals: work each verdict out again, e-mail a decision's owner once when it turns.
    "tco-check-actuals": {"task": "tco.tasks.check_actuals", "schedule": 60 * 60},
}

# Cache: shared by every web process through Redis when REDIS_URL is set (rate limits must hold across
# gunicorn instances); a per-process memory cache otherwise. Short socket timeouts: a request limit fails
# open (tco/throttle.py) rather than hold a page while Redis is down or frozen.
REDIS_CACHE_OPTIONS = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "gpucost",
            "OPTIONS": REDIS_CACHE_OPTIONS,
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
# Decision links: openings per client IP per minute; proxies in front that append to X-Forwarded-For.
DECISION_LINK_OPENS_PER_MINUTE = env_int("DECISION_LINK_OPENS_PER_MINUTE", 60, minimum=1)
TRUSTED_PROXY_HOPS = env_int("TRUSTED_PROXY_HOPS", 0, minimum=0)
# The API (/api/v1/): requests per personal token per minute (config/api/auth.py); past it, 429 with Retry-After.
API_REQUESTS_PER_MINUTE = env_int("API_REQUESTS_PER_MINUTE", 120, minimum=1)

# Imports: caps that protect the server from oversized uploads and fetches.
PRICE_IMPORT_MAX_BYTES = env_int("PRICE_IMPORT_MAX_BYTES", 20 * 1024 * 1024, minimum=1)
PRICE_IMPORT_MAX_ROWS = env_int("PRICE_IMPORT_MAX_ROWS", 200_000, minimum=1)
PRICE_IMPORT_URL_HOSTS = env_list("PRICE_IMPORT_URL_HOSTS", ["raw.githubusercontent.com"])
PRICE_IMPORT_URL_TIMEOUT_SECONDS = env_int("PRICE_IMPORT_URL_TIMEOUT_SECONDS", 20, minimum=1)
# Scheduled file sources are read only from this folder (relative locations are taken from it).
PRICE_IMPORT_DIR = Path(env_str("PRICE_IMPORT_DIR", str(BASE_DIR / "price-imports")))
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Sessions live in the database and are read from the cache (Redis with REDIS_URL, else per process): a signed-in
# request reads no session row.
SESSION_ENGINE = "config.sessions"  # Django's cached_db store, the database alone while the cache is down

if not DEBUG:
    SESSION_COOKIE_HTTPONLY = True
    CSRF_COOKIE_HTTPONLY = False
    X_FRAME_OPTIONS = "DENY"
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

# Only the app's own scripts (static/: vendored plotly.js, django-htmx's htmx, static/js/); no inline script or
# handler attributes (json_script blocks are data, not executed). Styles need 'unsafe-inline': plotly.js injects
# its stylesheet as a <style> element (a style-src-elem violation without it; tests/browser checks for none).
# Set on every response by django-csp (csp.middleware.CSPMiddleware).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:", "blob:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
PERMISSIONS_POLICY_DENIED = [
    "accelerometer",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "magnetometer",
    "microphone",
    "payment",
    "usb",
]

# Behind an HTTPS load balancer (README, Configuration). All opt-in: `make run` and the tests speak plain http.
CSRF_TRUSTED_ORIGINS = https_origins("DJANGO_CSRF_TRUSTED_ORIGINS")
# Trust the proxy's X-Forwarded-Proto only when a proxy that sets (and strips client copies of) it is in front.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER") else None
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES")
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT")
# The load balancer probes these over plain http inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "WARNING") or "WARNING"},
    # One JSON line per request (config.middleware.RequestLogMiddleware); DJANGO_REQUEST_LOG=0 silences them.
    "loggers": {
        "config.requests": {
            "handlers": ["console"],
            "level": "INFO" if env_bool("DJANGO_REQUEST_LOG", True) else "WARNING",
            "propagate": False,
        },
        # Failed logins, throttled logins and admin changes (config/audit.py).
        "config.audit": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}
FIXTURE_DIRS = [BASE_DIR / "fixtures"]
