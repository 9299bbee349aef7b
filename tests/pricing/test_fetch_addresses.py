"""The address check of URL imports sees through IPv6 forms that carry an IPv4 address (no network used)."""

from __future__ import annotations

import pytest

from pricing import fetch


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::7f00:1",  # NAT64 (RFC 6052) of 127.0.0.1
        "64:ff9b::a00:7",  # NAT64 of 10.0.0.7
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254, the cloud metadata address
        "64:ff9b:1::7f00:1",  # the local-use NAT64 prefix (RFC 8215)
        "2002:7f00:1::",  # 6to4 (RFC 3056) of 127.0.0.1
        "2002:c0a8:114::1",  # 6to4 of 192.168.1.20
        "::ffff:127.0.0.1",  # IPv4-mapped
    ],
)
def test_ipv6_forms_of_a_private_or_loopback_address_are_refused(monkeypatch, address):
    monkeypatch.setattr(fetch, "resolve", lambda host, port: [address])
    with pytest.raises(fetch.FetchError, match="a private or loopback address: refused"):
        fetch.public_address("prices.example", 443)


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "2002:808:808::1", "2606:4700:4700::1111"])
def test_ipv6_forms_of_a_public_address_are_public(monkeypatch, address):
    monkeypatch.setattr(fetch, "resolve", lambda host, port: [address])
    assert fetch.public_address("prices.example", 443) == address
