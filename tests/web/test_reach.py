"""Reaching the page: which addresses are printed, QR codes that decode back, the page's QR."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.journal import Journal
from companion.table.session import TableSession
from companion.web.app import create_app
from companion.web.reach import (
    lan_addresses,
    page_urls,
    print_qr,
    qr_png,
    qr_svg,
    share_url,
)

LAN = ["127.0.0.1", "192.168.1.23", "fe80::1%eth0", "192.168.1.23", "10.0.0.5", "fd00::7"]


def test_every_address_prints_the_lan_addresses_and_the_mdns_name() -> None:
    urls = page_urls("0.0.0.0", 8000, addresses=LAN, hostname="tablepi")
    assert urls == [
        "http://192.168.1.23:8000/",
        "http://10.0.0.5:8000/",
        "http://tablepi.local:8000/",
    ]


def test_ipv6_wildcard_also_gives_ipv6_addresses_in_brackets() -> None:
    urls = page_urls("::", 8080, addresses=LAN, hostname="tablepi.example.org")
    assert urls == [
        "http://192.168.1.23:8080/",
        "http://10.0.0.5:8080/",
        "http://[fd00::7]:8080/",
        "http://tablepi.local:8080/",
    ]


def test_a_name_already_local_is_kept() -> None:
    assert page_urls("0.0.0.0", 1, addresses=[], hostname="go.local") == ["http://go.local:1/"]


def test_nothing_known_falls_back_to_localhost() -> None:
    urls = page_urls("0.0.0.0", 8000, addresses=["127.0.0.1", "junk"], hostname="localhost")
    assert urls == ["http://localhost:8000/"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_loopback_host_is_only_localhost(host: str) -> None:
    assert page_urls(host, 9, addresses=LAN, hostname="tablepi") == ["http://localhost:9/"]


def test_one_named_address_is_that_address() -> None:
    assert page_urls("192.168.1.23", 9, addresses=LAN, hostname="x") == ["http://192.168.1.23:9/"]
    assert page_urls("fd00::7", 9, addresses=LAN, hostname="x") == ["http://[fd00::7]:9/"]


def test_lan_addresses_are_addresses() -> None:
    for address in lan_addresses():
        assert address  # whatever the machine has; the chooser filters them


def decode(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image is not None
    text, points, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert points is not None, "no QR code found"
    return str(text)


@pytest.mark.parametrize(
    "url", ["http://192.168.1.23:8000/", "http://tablepi.local:8000/", "http://[fd00::7]:80/"]
)
def test_qr_code_decodes_back(url: str) -> None:
    assert decode(qr_png(url)) == url


def test_qr_refuses_what_is_not_an_address() -> None:
    with pytest.raises(ValueError):
        qr_png("")
    with pytest.raises(ValueError):
        qr_svg("http://x/" + "a" * 5000)


def test_terminal_qr_is_block_characters() -> None:
    out = io.StringIO()
    print_qr("http://192.168.1.23:8000/", out)
    lines = out.getvalue().splitlines()
    assert len(lines) > 10
    assert any("█" in line or "▀" in line or "▄" in line for line in lines)


def test_share_url_prefers_what_the_browser_used_unless_local() -> None:
    urls = ["http://192.168.1.23:8000/"]
    assert share_url("http://192.168.1.23:8000/", urls) == urls[0]
    assert share_url("http://tablepi.local:8000/", urls) == "http://tablepi.local:8000/"
    assert share_url("http://localhost:8000/", urls) == urls[0]
    assert share_url("http://[::1]:8000/", urls) == urls[0]
    assert share_url("http://localhost:8000/", []) == "http://localhost:8000/"


def test_page_shows_the_qr_of_its_lan_address(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    app = create_app(table, pin="424242", calibration_dir=tmp_path / "cal")
    app.config["PAGE_URLS"] = ["http://192.168.1.23:8000/"]
    client = app.test_client()
    resp = client.get("/qr.svg", base_url="http://localhost:8000")
    assert resp.status_code == 200
    assert resp.mimetype == "image/svg+xml"
    assert resp.data == qr_svg("http://192.168.1.23:8000/")
    page = client.get("/", base_url="http://localhost:8000").get_data(as_text=True)
    assert 'src="/qr.svg"' in page
    assert "http://192.168.1.23:8000/" in page
    # a phone that came by the mDNS name gets that name back
    resp = client.get("/qr.svg", base_url="http://tablepi.local:8000")
    assert resp.data == qr_svg("http://tablepi.local:8000/")
    table.close()
