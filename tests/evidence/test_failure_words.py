"""Why a call failed, in the report's language: the reason this side gives (a refused connection,
a name that does not resolve, a call the bundle does not hold) is translated, while the
exception's name, the request and whatever the platform answered stay as they are."""

from __future__ import annotations

import socket
from typing import get_args

import httpx
import pytest

from diagnosis.evidence.answer import Answer
from diagnosis.evidence.failures import ErrorKind
from diagnosis.evidence.http.readonly import ReadOnlyGuard
from diagnosis.evidence.http.retrying import Retrying, RetryPolicy
from diagnosis.evidence.messages import CATALOGUE
from diagnosis.evidence.routes import Route, RouteTable
from diagnosis.evidence.source import HttpSource
from diagnosis.render.i18n import LANGUAGES

ROUTES = RouteTable(
    [
        Route("get_thing", "GET", "/api/v1/things/{thingId}"),
        Route("put_thing", "PUT", "/api/v1/things/{thingId}"),
    ]
)


def _refusing(exc: Exception) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    return httpx.MockTransport(handler)


async def _fetch(transport: httpx.AsyncBaseTransport, op: str = "get_thing") -> Answer:
    async with httpx.AsyncClient(transport=transport) as client:
        return await HttpSource(routes=ROUTES, client=client, base_url="http://x").fetch(op, thingId="a")


async def test_a_name_that_does_not_resolve_is_said_in_each_language_with_the_exception_name_kept() -> None:
    error = httpx.ConnectError("[Errno -2] Name or service not known")
    error.__cause__ = socket.gaierror(-2, "Name or service not known")
    answer = await _fetch(Retrying(_refusing(error), policy=RetryPolicy(attempts=1)))
    assert answer.error_kind == "dns"
    # The English text is the answer's own error (logs, the JSON of a failed call).
    assert answer.error == "host name not resolved (ConnectError)"
    assert answer.describe_failure() == answer.describe_failure(lang="en") == answer.error
    assert answer.describe_failure(lang="fr") == "nom d'hôte non résolu (ConnectError)"
    assert answer.describe_failure(lang="zh") == "无法解析主机名（ConnectError）"
    assert answer.describe_failure(lang="ja") == "ホスト名を解決できません（ConnectError）"


async def test_a_refused_write_names_the_request_in_every_language() -> None:
    answer = await _fetch(ReadOnlyGuard(_refusing(AssertionError("never sent"))), op="put_thing")
    assert answer.error_kind == "refused"
    for lang in LANGUAGES:
        assert "PUT /api/v1/things/a" in answer.describe_failure(lang=lang), lang
    assert (
        answer.describe_failure(lang="ja")
        == "PUT /api/v1/things/a を拒否しました：このツールは読み取りのみを行います"
    )


async def test_the_platforms_own_words_are_not_translated() -> None:
    answer = Answer(
        op="get_thing",
        args={},
        status=503,
        body={"error_code": "APIGW.0201", "error_msg": "Backend unavailable"},
    )
    assert answer.describe_failure(lang="ja") == "HTTP 503 APIGW.0201: Backend unavailable"


@pytest.mark.parametrize("kind", [kind for kind in get_args(ErrorKind) if kind != "unreadable"])
def test_every_kind_of_failure_has_its_words(kind: ErrorKind) -> None:
    """A new kind of failure gets its reason in the catalogue (the catalogue tests then ask for
    it in every language); an unreadable answer says why (`failure.too_large`, `failure.nested`)."""
    assert f"failure.{kind}" in CATALOGUE["en"]
