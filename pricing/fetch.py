"""Read a price file from a path or an allowed URL, with a size cap and a timeout.

URLs must be https on a host in PRICE_IMPORT_URL_HOSTS, on port 443 (or a port listed with the host there as
``host:port``). The host is resolved when the connection is
made and every address must be public: a name that resolves to a loopback, private, link-local or
reserved address, or to an IPv6 form of one (NAT64, 6to4, IPv4-mapped), is refused, and the connection goes
to the address that was checked (no second lookup for DNS rebinding to exploit).
Redirects are checked against the same rules.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings

from lib.errors import AppError


class FetchError(AppError):
    """A path or URL that cannot be read; the message says why and what is allowed."""

    def __init__(self, message: str, *, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


@dataclass(frozen=True)
class Fetched:
    content: bytes
    file_name: str
    url: str


def is_url(location: str) -> bool:
    return location.split("://", 1)[0].lower() in {"http", "https"} and "://" in location


def is_catalog_tree(location: str, *, relative_to: Path | None = None) -> bool:
    """A SkyPilot catalog tree (`<cloud>/vms.csv` per cloud): a folder, or a URL ending in `/`."""
    if is_url(location):
        return location.endswith("/")
    path = Path(location)
    if relative_to is not None and not path.is_absolute():
        path = relative_to / path
    return location.endswith("/") or path.is_dir()


HTTPS_PORT = 443


def _allowed_endpoints() -> set[tuple[str, int]]:
    """(host, port) pairs from PRICE_IMPORT_URL_HOSTS: a bare host means its https port, ``host:port`` that port."""
    endpoints = set()
    for entry in settings.PRICE_IMPORT_URL_HOSTS:
        host, _, port = entry.strip().lower().partition(":")
        endpoints.add((host, int(port) if port.isascii() and port.isdigit() else HTTPS_PORT))
    return endpoints


def check_url(url: str) -> None:
    """The rules a URL can be checked against without the network: https, on an allowed host, on port 443 unless
    PRICE_IMPORT_URL_HOSTS lists that host with another port (``host:port``)."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    allowed = _allowed_endpoints()
    if scheme != "https":
        raise FetchError(f"{url!r}: only https URLs are fetched.")
    if host not in {allowed_host for allowed_host, _ in allowed}:
        listed = ", ".join(sorted(settings.PRICE_IMPORT_URL_HOSTS))
        raise FetchError(f"{url!r}: host {host or '(none)'!r} is not in PRICE_IMPORT_URL_HOSTS ({listed}).")
    try:
        port = HTTPS_PORT if parts.port is None else parts.port
    except ValueError:
        raise FetchError(f"{url!r}: the port is not a number from 0 to 65535.") from None
    if (host, port) not in allowed:
        ports = ", ".join(str(p) for h, p in sorted(allowed) if h == host)
        raise FetchError(
            f"{url!r}: port {port} is not allowed for {host!r} (allowed: {ports}); list it in PRICE_IMPORT_URL_HOSTS "
            f"as {host}:{port} to allow it."
        )


def _too_big(size: int, max_bytes: int) -> FetchError:
    return FetchError(
        f"the file is larger than the import limit of {max_bytes:,} bytes (PRICE_IMPORT_MAX_BYTES); "
        f"got {size:,}+ bytes. Split it into smaller files."
    )


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (a seam for tests; the network is never used by the test suite)."""
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


NAT64 = ipaddress.ip_network("64:ff9b::/96")  # the well-known prefix: its last 32 bits are the IPv4 address reached
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # a site's own translator: never public


def is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Global unicast, judged by the IPv4 address inside an IPv6 form that carries one (NAT64, 6to4, mapped):
    ``64:ff9b::7f00:1`` and ``2002:7f00:1::`` reach 127.0.0.1 through a translator or relay."""
    if ip.version == 6:
        if ip in NAT64_LOCAL:
            return False
        embedded = ip.ipv4_mapped or ip.sixtofour
        if ip in NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public(embedded)
    return ip.is_global and not ip.is_multicast


def public_address(host: str, port: int) -> str:
    """The address to connect to; FetchError when the host resolves to any address that is not public."""
    try:
        addresses = resolve(host, port)
    except OSError as exc:
        raise FetchError(f"host {host!r} could not be resolved ({exc}).") from None
    for address in addresses:
        if not is_public(ipaddress.ip_address(address.split("%", 1)[0])):
            raise FetchError(f"host {host!r} resolves to {address}, a private or loopback address: refused.")
    if not addresses:
        raise FetchError(f"host {host!r} has no address.")
    return addresses[0]


class CheckedHTTPSConnection(http.client.HTTPSConnection):
    """Connects to the public address the host was checked to resolve to; TLS still verifies the host name."""

    def connect(self) -> None:
        address = public_address(self.host, self.port)
        sock = socket.create_connection((address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


class _CheckedHTTPS(urllib.request.HTTPSHandler):
    connection_class = CheckedHTTPSConnection

    def https_open(self, req):
        return self.do_open(self.connection_class, req, context=self._context)


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        check_url(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetch_url(url: str, *, max_bytes: int | None = None, timeout: float | None = None) -> Fetched:
    check_url(url)
    max_bytes = max_bytes or settings.PRICE_IMPORT_MAX_BYTES
    timeout = timeout or settings.PRICE_IMPORT_URL_TIMEOUT_SECONDS
    opener = urllib.request.build_opener(_CheckedHTTPS(), _CheckedRedirects())
    request = urllib.request.Request(url, headers={"User-Agent": "gpu-build-vs-rent price import"})
    try:
        with opener.open(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            if declared and declared.isascii() and declared.isdigit() and int(declared) > max_bytes:
                raise _too_big(int(declared), max_bytes)
            content = response.read(max_bytes + 1)
    except urllib.error.HTTPError as exc:
        message = f"{url!r}: the server answered HTTP {exc.code} {exc.reason}."
        raise FetchError(message, not_found=exc.code == 404) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"{url!r}: could not fetch within {timeout} s ({reason}).") from None
    if len(content) > max_bytes:
        raise _too_big(len(content), max_bytes)
    name = urlsplit(url).path.rsplit("/", 1)[-1] or url
    return Fetched(content=content, file_name=name, url=url)


def is_within(path: Path, folder: Path) -> bool:
    """Whether `path`, symlinks followed, is inside `folder`."""
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
    except (ValueError, OSError):
        return False
    return True


def check_within(path: Path, folder: Path, shown: str) -> None:
    if not is_within(path, folder):
        raise FetchError(
            f"{shown!r} is outside the import folder (PRICE_IMPORT_DIR, {folder}); scheduled files must be in it."
        )


def read_path(
    path: str | Path, *, max_bytes: int | None = None, relative_to: Path | None = None, within: Path | None = None
) -> Fetched:
    """Relative paths are taken from `relative_to` (the import folder for schedules), else the working folder.
    With `within`, a path outside that folder (symlinks followed) is refused before it is opened."""
    max_bytes = max_bytes or settings.PRICE_IMPORT_MAX_BYTES
    file = Path(path)
    if relative_to is not None and not file.is_absolute():
        file = relative_to / file
    if within is not None:
        check_within(file, within, str(path))
    try:
        size = file.stat().st_size
        if size > max_bytes:
            raise _too_big(size, max_bytes)
        content = file.read_bytes()
    except FileNotFoundError:
        raise FetchError(f"{str(path)!r}: no such file.", not_found=True) from None
    except (IsADirectoryError, PermissionError) as exc:
        raise FetchError(f"{str(path)!r}: cannot be read ({exc.strerror}).") from None
    return Fetched(content=content, file_name=file.name, url="")


def read_location(location: str, *, relative_to: Path | None = None, within: Path | None = None) -> Fetched:
    """A path or a URL, whichever `location` is."""
    if is_url(location):
        return fetch_url(location)
    return read_path(location, relative_to=relative_to, within=within)


def open_path(path: str | Path, *, relative_to: Path | None = None, within: Path | None = None) -> Fetched:
    """`read_path`'s rules, but the file is opened, not read: `content` is the open binary file (the caller closes
    it), so a feed of hundreds of MB streams into its parser. The size limit is the format's (checked on import)."""
    file = Path(path)
    if relative_to is not None and not file.is_absolute():
        file = relative_to / file
    if within is not None:
        check_within(file, within, str(path))
    try:
        opened = file.open("rb")
    except FileNotFoundError:
        raise FetchError(f"{str(path)!r}: no such file.", not_found=True) from None
    except (IsADirectoryError, PermissionError) as exc:
        raise FetchError(f"{str(path)!r}: cannot be read ({exc.strerror}).") from None
    return Fetched(content=opened, file_name=file.name, url="")


def download(url: str, *, max_bytes: int, timeout: float | None = None) -> Fetched:
    """`fetch_url`'s rules, but the body is written to a temporary file as it arrives (at most `max_bytes`):
    `content` is that file, rewound (the caller closes it)."""
    check_url(url)
    timeout = timeout or settings.PRICE_IMPORT_URL_TIMEOUT_SECONDS
    opener = urllib.request.build_opener(_CheckedHTTPS(), _CheckedRedirects())
    request = urllib.request.Request(url, headers={"User-Agent": "gpu-build-vs-rent price import"})
    spooled = tempfile.TemporaryFile()  # noqa: SIM115 (handed to the caller, who closes it)
    try:
        try:
            with opener.open(request, timeout=timeout) as response:
                size = 0
                while chunk := response.read(1 << 20):
                    size += len(chunk)
                    if size > max_bytes:
                        raise FetchError(f"{url!r}: larger than the format's limit of {max_bytes:,} bytes.")
                    spooled.write(chunk)
        except urllib.error.HTTPError as exc:
            message = f"{url!r}: the server answered HTTP {exc.code} {exc.reason}."
            raise FetchError(message, not_found=exc.code == 404) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FetchError(f"{url!r}: could not fetch within {timeout} s ({reason}).") from None
    except BaseException:
        spooled.close()
        raise
    spooled.seek(0)
    return Fetched(content=spooled, file_name=urlsplit(url).path.rsplit("/", 1)[-1] or url, url=url)


def fetch_pages(url: str, *, next_page, max_pages: int, max_bytes: int, first: bytes | None = None) -> Fetched:
    """A paged API's pages, from `url` on (`first`: its body, when already fetched): `next_page(body, url)` names
    the next page's URL (None after the last), and every page is fetched under `fetch_url`'s rules. The bodies
    are kept one after another, each on its own line; more than `max_pages` pages or `max_bytes` in all is
    refused."""
    pages: list[bytes] = []
    size = 0
    next_url: str | None = url
    while next_url is not None:
        if len(pages) == max_pages:
            raise FetchError(f"{url!r}: more than {max_pages} pages; narrow the query (a filter, a region) and retry.")
        body = first if first is not None and not pages else fetch_url(next_url, max_bytes=max_bytes).content
        size += len(body) + 1
        if size > max_bytes + 1:
            raise FetchError(f"{url!r}: its pages come to more than the format's limit of {max_bytes:,} bytes.")
        pages.append(body)
        next_url = next_page(body, next_url)
    return Fetched(content=b"\n".join(pages), file_name=urlsplit(url).path.rsplit("/", 1)[-1] or url, url=url)
