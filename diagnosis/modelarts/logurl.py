"""The full-log link, fetched on demand only.

`ShowObsUrlOfTrainingJobLogs` answers a pre-signed OBS link to a task's whole log, valid for about
5 minutes: a credential to the log. It is never called during a diagnosis, never recorded in a
bundle, never logged; the CLI prints it to stdout and the Slack bot sends it ephemerally to the
person who asked. Huawei classes its IAM action `modelarts:trainJob:logExport` as a write action.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import httpx

from diagnosis.evidence.answer import Answer
from diagnosis.modelarts import project, temporary_keys
from diagnosis.modelarts.client import DEFAULT_TIMEOUT, build_client
from diagnosis.modelarts.routes import ROUTES
from diagnosis.modelarts.settings import ConfigError, endpoint_for
from diagnosis.modelarts.signer import AkSkAuth

LOG_URL_OP = "ShowObsUrlOfTrainingJobLogs"
LOG_EXPORT_ACTION = "modelarts:trainJob:logExport"
# `text/plain` asks for a preview link, `application/octet-stream` for a download link (API doc).
CONTENT_TYPES: Mapping[str, str] = {"download": "application/octet-stream", "preview": "text/plain"}


class LogUrlError(RuntimeError):
    """The link could not be obtained; the message says why (never holds a key or a link)."""


async def fetch_log_url(
    *,
    job_id: str,
    task_id: str,
    region: str | None = None,
    kind: Literal["download", "preview"] = "download",
    profile: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> str:
    """The task's 5-minute OBS log link. Raises ConfigError or LogUrlError with a clear reason."""
    if not job_id.strip() or not task_id.strip():
        raise LogUrlError("a job id and a task id (e.g. worker-0) are both needed")
    found = await temporary_keys.resolve_with_temporary(region, profile=profile)
    base_url = endpoint_for(found.region)
    found = await project.with_project(found, transport=transport)
    auth = AkSkAuth(
        found.access_key, found.secret_key, project_id=found.project, security_token=found.security_token
    )
    route = ROUTES.route_for(LOG_URL_OP)
    url, _query, _body = route.build(
        base_url,
        {"project_id": found.project, "training_job_id": job_id.strip(), "task_id": task_id.strip()},
    )
    async with build_client(auth=auth, transport=transport, timeout=DEFAULT_TIMEOUT) as client:
        try:
            response = await client.get(url, headers={"Content-Type": CONTENT_TYPES[kind]})
        except httpx.TimeoutException:
            raise LogUrlError(f"{LOG_URL_OP}: timeout") from None
        except httpx.TransportError as exc:
            raise LogUrlError(f"{LOG_URL_OP}: connection failed ({type(exc).__name__})") from None
    body = _json(response)
    if response.status_code in (401, 403):
        answer = Answer(op=LOG_URL_OP, args={}, status=response.status_code, body=body)
        raise LogUrlError(
            f"{LOG_URL_OP}: {answer.describe_failure()}; the link needs the IAM action {LOG_EXPORT_ACTION}"
        )
    if not 200 <= response.status_code < 300:
        answer = Answer(op=LOG_URL_OP, args={}, status=response.status_code, body=body)
        raise LogUrlError(f"{LOG_URL_OP}: {answer.describe_failure()}")
    link = body.get("obs_url") if isinstance(body, dict) else None
    if not isinstance(link, str) or not link.startswith("https://"):
        raise LogUrlError(f"{LOG_URL_OP}: the answer holds no https obs_url")
    return link


def _json(response: httpx.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return None


__all__ = ["LOG_EXPORT_ACTION", "ConfigError", "LogUrlError", "fetch_log_url"]
