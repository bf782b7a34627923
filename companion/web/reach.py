"""Where the page can be reached from: the LAN addresses and mDNS name, and QR codes of them.

``companion serve`` listens on every address by default, so ``http://localhost:PORT/`` is the
one address a phone at the table cannot open. :func:`page_urls` (pure) picks the addresses to
print; :func:`lan_addresses` asks the machine for them without sending anything; the QR codes
come from segno (pure Python, no network), for the terminal, the page (SVG) and tests (PNG).
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import socket
from collections.abc import Iterable
from typing import TextIO

import segno

WILDCARDS = frozenset({"", "0.0.0.0", "::", "*"})
LOOPBACKS = frozenset({"localhost", "127.0.0.1", "::1"})
MAX_URL = 512  # a QR code of a page address, never of arbitrary data


def _url_host(host: str) -> str:
    """``host`` as it goes in a URL (IPv6 literals in brackets)."""
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]"
    return host


def _usable(address: str) -> bool:
    """A LAN address another device could use (not loopback, link-local or unspecified)."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def page_urls(host: str, port: int, *, addresses: Iterable[str], hostname: str | None) -> list[str]:
    """The URLs to print for a page listening on ``host``:``port``, best first.

    On every address (``0.0.0.0``, ``::``): each usable LAN address of ``addresses`` (IPv4
    before IPv6, no duplicates), then ``http://HOSTNAME.local:PORT/`` (mDNS, which Raspberry Pi
    OS answers), and ``localhost`` last only when nothing else is known. On a loopback host:
    localhost only. On one named address: that address.
    """
    if host in LOOPBACKS:
        return [f"http://localhost:{port}/"]
    if host not in WILDCARDS:
        return [f"http://{_url_host(host)}:{port}/"]
    seen: list[str] = []
    for address in addresses:
        if _usable(address) and address not in seen:
            seen.append(address)
    seen.sort(key=lambda a: ipaddress.ip_address(a.split("%")[0]).version)
    urls = [f"http://{_url_host(a)}:{port}/" for a in seen if host != "0.0.0.0" or ":" not in a]
    name = (hostname or "").strip().rstrip(".")
    if name and name not in LOOPBACKS:
        if not name.endswith(".local"):
            name = name.split(".")[0] + ".local"
        urls.append(f"http://{name}:{port}/")
    return urls or [f"http://localhost:{port}/"]


def lan_addresses() -> list[str]:
    """This machine's addresses, as far as the standard library can tell (nothing is sent).

    The address of the default route comes first: "connecting" a UDP socket only picks the
    outgoing interface. Then whatever the host name resolves to. Errors mean fewer addresses.
    """
    found: list[str] = []
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            found.append(str(sock.getsockname()[0]))
    with contextlib.suppress(OSError, UnicodeError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.append(str(info[4][0]))
    return found


def _qr(url: str) -> segno.QRCode:
    if not url or len(url) > MAX_URL:
        raise ValueError(f"not a page address to encode ({len(url)} characters)")
    return segno.make(url, error="m", micro=False)


def qr_svg(url: str) -> bytes:
    """An SVG QR code of ``url`` (black on white, scalable, with the quiet zone)."""
    out = io.BytesIO()
    _qr(url).save(out, kind="svg", scale=4, border=4, xmldecl=False, svgns=True, title=url)
    return out.getvalue()


def qr_png(url: str, scale: int = 8) -> bytes:
    """A PNG QR code of ``url``."""
    out = io.BytesIO()
    _qr(url).save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def print_qr(url: str, out: TextIO) -> None:
    """A QR code of ``url`` in the terminal (half-block characters: two modules per line)."""
    _qr(url).terminal(out=out, compact=True)


def share_url(request_url: str, urls: list[str]) -> str:
    """The address a page shows for others to join: the one this browser used, unless that is
    only good on this machine (localhost), then the first printed LAN address."""
    host = request_url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
    if host in LOOPBACKS and urls:
        return urls[0]
    return request_url
