"""Huawei's official Python SDK (`huaweicloudsdkcore`, `huaweicloudsdkmodelarts`) as the referee.

Nothing here sends a request: the SDK's own client builds its request objects offline
(`build_future_request` resolves the path, the query and the headers exactly as it would send them
and signs them), its signer signs a request we describe to it, and its deserialiser reads recorded
bodies into its response models. The tests compare what our client does with that.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
from huaweicloudsdkcore.auth.credentials import BasicCredentials
from huaweicloudsdkcore.sdk_request import SdkRequest
from huaweicloudsdkcore.signer.signer import Signer
from huaweicloudsdkcore.utils import http_utils
from huaweicloudsdkcore.warning import warning as sdk_warning
from huaweicloudsdkmodelarts import v1 as sdk

SIGNED_BY_US = (
    "content-type",
    "host",
    "x-project-id",
    "x-sdk-content-sha256",
    "x-sdk-date",
    "x-security-token",
)


def snake(op: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()


def has_operation(op: str) -> bool:
    return hasattr(sdk.ModelArtsClient, f"_{snake(op)}_http_info")


def request_class(op: str) -> type[Any]:
    cls: type[Any] = getattr(sdk, f"{op}Request")
    return cls


def http_info(op: str, request: Any) -> dict[str, Any]:
    builder = getattr(sdk.ModelArtsClient, f"_{snake(op)}_http_info")
    info: dict[str, Any] = builder(request)
    return info


@dataclass(frozen=True)
class SdkWire:
    """What the SDK would put on the wire for one request object."""

    method: str
    path: str  # raw, percent-encoded as sent
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes


def sdk_client(*, access_key: str, secret_key: str, project_id: str, endpoint: str) -> Any:
    credentials = BasicCredentials(access_key, secret_key, project_id)
    return sdk.ModelArtsClient.new_builder().with_credentials(credentials).with_endpoints([endpoint]).build()


def sdk_wire(client: Any, op: str, request: Any) -> SdkWire:
    """The SDK's own request for `request`, built and signed offline (nothing is sent)."""
    info = http_info(op, request)
    built = client.build_future_request(
        info["method"],
        info["resource_path"],
        info["path_params"],
        info["query_params"],
        info["header_params"],
        info["body"],
        info["post_params"],
        info["cname"],
        info["response_type"],
        info["collection_formats"],
        None,
    ).result()
    parts = urlsplit(built.uri)
    body = built.body if isinstance(built.body, bytes) else str(built.body or "").encode()
    return SdkWire(
        method=built.method,
        path=parts.path,
        query=parse_qsl(parts.query, keep_blank_values=True),
        headers={key: str(value) for key, value in built.header_params.items()},
        body=body,
    )


def sdk_signature(request: httpx.Request, *, access_key: str, secret_key: str) -> str:
    """The Authorization header the SDK's signer computes for the request we sent (same headers)."""
    raw = request.url.raw_path.decode("ascii")
    path, _, query = raw.partition("?")
    signed = {key: value for key, value in request.headers.items() if key.lower() in SIGNED_BY_US}
    sdk_request = SdkRequest(
        method=request.method,
        schema=request.url.scheme,
        host=request.headers["host"],
        resource_path=path,
        query_params=parse_qsl(query, keep_blank_values=True),
        header_params=signed,
        body=request.content or "",
    )
    Signer(BasicCredentials(access_key, secret_key)).sign(sdk_request)
    authorization: str = sdk_request.header_params["Authorization"]
    return authorization


def response_type(op: str) -> str:
    return str(http_info(op, request_class(op)())["response_type"])


def deserialize(op: str, body: Any) -> Any:
    """The SDK's response model for a recorded body; a value of the wrong type raises."""
    client = sdk.ModelArtsClient()
    with warnings.catch_warnings():
        warnings.simplefilter("error", sdk_warning.TypeConversionWarning)
        warnings.simplefilter("error", sdk_warning.SdkWarning)
        kind = response_type(op)
        if isinstance(body, list):
            return client._deserialize({"body": body}, kind)
        return client._deserialize(body, kind)


def wire_form(model: Any) -> Any:
    """A response model back in wire names (the SDK's own serialiser)."""
    data = http_utils.sanitize_for_serialization(model)
    if isinstance(data, dict) and set(data) <= {"body", "status_code", "raw_content"} and "body" in data:
        return data["body"]
    return data


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(json path, value) of every non-null leaf; list items share one path (`[]`)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from leaves(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item, f"{prefix}[]")
    elif value is not None:
        yield prefix, value


def differences(op: str, body: Any) -> dict[str, str]:
    """Paths of a body that the SDK's model drops (`unknown`) or reads as another value (`type`)."""
    model = deserialize(op, body)
    back = wire_form(model)
    kept: dict[str, list[Any]] = {}
    for path, value in leaves(back):
        kept.setdefault(path, []).append(value)
    found: dict[str, str] = {}
    for path, value in leaves(body):
        if path not in kept:
            found[path] = "unknown"
        elif value not in kept[path] and not (isinstance(value, int | float) and float(value) in kept[path]):
            found[path] = "type"
    return found
