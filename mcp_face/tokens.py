"""Bearer tokens over HTTP, checked by the MCP SDK's bearer middleware against the access policy.

A request without a token, or with one no client holds, is answered `401 invalid_token` by the SDK
before it reaches a tool. A tool then finds its caller from the token the middleware accepted.
"""

from __future__ import annotations

import getpass
import hashlib

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context

from mcp_face.access import Caller, Policy, Refusal
from mcp_face.messages import message


class PolicyTokenVerifier:
    """The SDK's `TokenVerifier` over the policy's token digests."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    async def verify_token(self, token: str) -> AccessToken | None:
        caller = self.policy.caller_for_token(token)
        if caller is None:
            return None
        # The principal the SDK binds sessions to; the token itself is kept nowhere.
        fingerprint = hashlib.sha256(token.encode("utf-8")).hexdigest()
        return AccessToken(token=fingerprint, client_id=caller.name, scopes=[])


def local_caller() -> Caller:
    """Over stdio: the local user, who runs the server with their own credentials."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "local"
    return Caller(name=user, transport="stdio")


def http_caller(policy: Policy, context: Context) -> Caller:
    """The policy client of this request's token; Refusal when there is none."""
    access = get_access_token()
    if access is None:
        # The streamable HTTP transport may run a session's handlers outside the request that
        # set the SDK's context variable; the request itself still carries the authenticated user.
        request = context.request_context.request
        user = getattr(request, "scope", {}).get("user") if request is not None else None
        access = user.access_token if isinstance(user, AuthenticatedUser) else None
    caller = policy.caller_named(access.client_id) if access is not None else None
    if caller is None:
        raise Refusal(message("refused.no_token"), detail="no authenticated client")
    return caller
