"""Who is asking: the peer address, or behind trusted proxies the right-most untrusted hop.

Rate limits and the answer log key on this address, so it must not be something the
client writes. A forwarding header (`X-Forwarded-For` unless `ASKDOCS_CLIENT_IP_HEADER`
names another) is read only when the peer is one of `ASKDOCS_TRUSTED_PROXIES` (addresses
or CIDRs); its hops are then walked from the right, skipping trusted proxies, and the
first untrusted hop is the client. Every hop to the left of it was written by the client
and is ignored. uvicorn's own proxy-header handling is switched off (`askdocs serve`
passes `proxy_headers=False`): this is the one place that reads those headers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from askdocs.errors import AskdocsError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(values: Sequence[str]) -> tuple[Network, ...]:
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError as exc:
            raise AskdocsError(
                f"ASKDOCS_TRUSTED_PROXIES: {value!r} is not an IP address or CIDR (e.g. 10.0.0.0/8)"
            ) from exc
    return tuple(networks)


def _address(hop: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    hop = hop.strip()
    if hop.startswith("["):  # [v6]:port
        hop = hop[1 : hop.find("]")] if "]" in hop else hop
    elif hop.count(":") == 1:  # v4:port
        hop = hop.split(":")[0]
    try:
        return ipaddress.ip_address(hop)
    except ValueError:
        return None


class ClientAddress:
    def __init__(self, trusted: Sequence[str], header: str | None = None) -> None:
        self.networks = parse_networks(trusted)
        self.header = (header or "X-Forwarded-For").lower().encode("latin-1")

    def trusts(self, host: str) -> bool:
        address = _address(host)
        return address is not None and any(address in network for network in self.networks)

    def resolve(self, peer: str, forwarded: Sequence[str]) -> str:
        """The client address, given the peer and the forwarding header's values."""
        if not self.networks or not self.trusts(peer):
            return peer
        hops = [hop.strip() for value in forwarded for hop in value.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not self.trusts(hop):
                address = _address(hop)
                return str(address) if address is not None else hop[:64]
        # Every hop is a trusted proxy (or there is none): the peer is as far as we can see.
        return str(_address(hops[0])) if hops else peer


class ClientAddressMiddleware:
    """Pure ASGI: puts the resolved client address into `scope["client"]` for everyone after."""

    def __init__(self, app: ASGIApp, resolver: ClientAddress) -> None:
        self.app = app
        self.resolver = resolver

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.resolver.networks:
            peer, port = scope.get("client") or ("unknown", 0)
            values = [v.decode("latin-1") for k, v in scope["headers"] if k == self.resolver.header]
            client = self.resolver.resolve(peer, values)
            if client != peer:
                scope = {**scope, "client": (client, 0)}
        await self.app(scope, receive, send)
