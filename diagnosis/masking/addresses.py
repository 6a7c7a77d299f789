"""IP addresses become `ip-` + 8 hex digits of the SHA-256 of the address: same host, same token.

Loopback and unspecified addresses (the same on every machine) stay as they are, and so do numbers
that only look like addresses: versions (`cuDNN 8.9.2.26`), OIDs, package pins, times, MAC
addresses, C++ names (`c10d::ProcessGroupNCCL`) and Python slices (`x[1::2]`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from functools import lru_cache

from diagnosis.masking.rules import Rule


@lru_cache(maxsize=4096)
def ip_token(address: str) -> str:
    """`ip-` + 8 hex digits of SHA-256 of the canonical address: same host, same token."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        canonical = address.lower()
    else:
        # An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the same host as its IPv4 form.
        mapped = getattr(parsed, "ipv4_mapped", None)
        canonical = str(mapped if mapped is not None else parsed)
    return "ip-" + hashlib.sha256(canonical.encode("ascii", "replace")).hexdigest()[:8]


# Four dotted numbers, not inside a longer dotted number (1.3.6.1.4.1) or a word (v1.2.3.4), not a
# package pin (`==1.2.3.4`, `8.9.2.26-1+cuda12.1`; a range `10.0.0.1-10.0.0.9` is two addresses);
# `ipaddress` rejects octets over 255.
_IPV4 = r"[0-9](?<![A-Za-z0-9.][0-9])(?<!==[0-9])[0-9]{0,2}(?:\.[0-9]{1,3}){3}(?![0-9A-Za-z_]|\.[0-9]|[+~][0-9]|-[0-9](?![0-9]{0,2}(?:\.[0-9]{1,3}){3})|\[MASKED:)"
# A version string that happens to have four parts (cuDNN 8.9.2.26, TensorRT 8.6.1.6).
_VERSION_WORD = re.compile(r"(?i)(?:version|ver|release|build|cudnn|tensorrt|trt|driver|nccl|cuda)[\s:=]*$")
# IPv6 candidates (validated by `ipaddress`), never inside a word or a C++ name (`c10d::ProcessGroup`),
# nor right after or before a `[MASKED:…]` marker (what touches a marker was part of a word before
# it was masked: idempotence).
_IPV6 = (
    r"(?<![\w:.\]])(?:[0-9A-Fa-f]{0,4}:){2,7}"
    r"(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.[0-9]|\[MASKED:)"
)


def _names_no_host(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback (127.0.0.1, ::1) and unspecified (0.0.0.0, ::) are the same string on every machine:
    they identify no host, and `MASTER_ADDR=127.0.0.1` on a multi-node job is itself a finding."""
    return address.is_loopback or address.is_unspecified


@lru_cache(maxsize=4096)
def _ipv4_names_a_host(candidate: str) -> bool:
    try:
        address = ipaddress.IPv4Address(candidate)
    except ValueError:
        return False  # 999.1.2.3, leading zeros: not an address
    return not _names_no_host(address)


def _replace_ipv4(match: re.Match[str]) -> str:
    candidate = match.group(0)
    if not _ipv4_names_a_host(candidate):
        return candidate
    before = match.string[max(0, match.start() - 16) : match.start()].rstrip(" \t:=")
    if before[-1:].isalpha() and _VERSION_WORD.search(before):
        return candidate
    return ip_token(candidate)


def _replace_ipv6(match: re.Match[str]) -> str:
    return _ipv6_replacement(match.group(0))


@lru_cache(maxsize=4096)
def _ipv6_replacement(candidate: str) -> str:
    if "::" not in candidate and candidate.count(":") < 7:
        return candidate  # a time (10:04:10), a MAC address: too few groups for an address
    if not any(c.isdigit() for c in candidate):
        return candidate  # `::`, `a::b`: a separator or a name, not a host
    try:
        address = ipaddress.IPv6Address(candidate)
    except ValueError:
        return candidate  # `1:2::3:4::5`: not an address
    if _names_no_host(address) or (address.ipv4_mapped is not None and _names_no_host(address.ipv4_mapped)):
        return candidate
    groups = [group for group in candidate.split(":") if group]
    if len(groups) < 3 and all(len(group) < 3 for group in groups):
        return candidate  # `1::2`, `::1`: a Python slice or loopback, not an identifying host
    return ip_token(candidate)


# IPv6 first: an IPv4-mapped address (::ffff:10.0.0.1) is one host, one token.
ADDRESS_RULES: tuple[Rule, ...] = (
    Rule("ipv6", _IPV6, _replace_ipv6, needles=(":",)),
    Rule("ipv4", _IPV4, _replace_ipv4, needles=(".",)),
)
