"""The Web API client and the fallbacks used when a message cannot be posted."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)

from blocks.kit import SlackMessage

log = logging.getLogger("diagnose.bot")

Respond = Callable[..., Any]


def retry_handlers() -> list[Any]:
    """A 429 waits for Retry-After and tries again; 5xx and dropped connections are retried too."""
    return [
        ConnectionErrorRetryHandler(max_retry_count=2),
        RateLimitErrorRetryHandler(max_retry_count=5),
        ServerErrorRetryHandler(max_retry_count=2),
    ]


def make_client(*, token: str | None, base_url: str | None) -> WebClient:
    kwargs: dict[str, Any] = {"token": token, "retry_handlers": retry_handlers(), "timeout": 30}
    if base_url:
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    return WebClient(**kwargs)


# A logger that never logs request bodies (slack_sdk logs them at DEBUG): for credential-bearing sends.
_QUIET = logging.getLogger("diagnose.bot.credential")
_QUIET.setLevel(logging.WARNING)


def quiet_client(client: WebClient) -> WebClient:
    """The same client, whose request bodies never reach a log, whatever the log level (a body may carry the short-lived full-log link)."""
    return WebClient(
        token=client.token,
        base_url=client.base_url,
        timeout=client.timeout,
        retry_handlers=list(client.retry_handlers),
        logger=_QUIET,
    )


def best_effort_client(client: WebClient) -> WebClient:
    """The same client without the rate-limit wait: for progress lines, which a 429 simply skips
    (the report that follows still gets every retry)."""
    return WebClient(
        token=client.token,
        base_url=client.base_url,
        timeout=client.timeout,
        retry_handlers=[ConnectionErrorRetryHandler(max_retry_count=1)],
        logger=client.logger,
    )


# A trigger id lives 3 seconds, and over HTTP Slack's answer to the click waits for views.open.
MODAL_TIMEOUT_SECONDS = 2


def modal_client(client: WebClient) -> WebClient:
    """The same client for views.open: no rate-limit wait, a short timeout (a late modal is a
    failed one; the click is answered and the person told instead)."""
    return WebClient(
        token=client.token,
        base_url=client.base_url,
        timeout=MODAL_TIMEOUT_SECONDS,
        retry_handlers=[],
        logger=client.logger,
    )


def slack_error(exc: Exception) -> str:
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error") or "error")
    return type(exc).__name__


class Notifier:
    """Tells one person something only they see: the slash command's response_url when there is
    one, else chat.postEphemeral. Never raises."""

    def __init__(
        self,
        client: WebClient,
        *,
        channel: str,
        user: str,
        thread_ts: str | None = None,
        respond: Respond | None = None,
    ) -> None:
        self.client = client
        self.channel = channel
        self.user = user
        self.thread_ts = thread_ts
        self.respond = respond

    def tell(self, message: SlackMessage) -> bool:
        if self.respond is not None:
            try:
                self.respond(
                    text=message.text,
                    blocks=message.blocks,
                    response_type="ephemeral",
                    replace_original=False,
                )
                return True
            except (SlackClientError, OSError, ValueError) as exc:
                log.info("response_url failed: %s", type(exc).__name__)
        try:
            kwargs: dict[str, Any] = {"channel": self.channel, "user": self.user, **message.payload()}
            if self.thread_ts:
                kwargs["thread_ts"] = self.thread_ts
            self.client.chat_postEphemeral(**kwargs)
            return True
        except SlackClientError as exc:
            log.warning("could not tell %s: %s", self.user, slack_error(exc))
            return False
