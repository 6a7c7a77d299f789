"""Who may diagnose what over HTTP: one bearer token per client, mapped to the Run:ai clusters and
projects and the ModelArts regions and projects it may diagnose.

Loaded from the YAML or JSON file named by `DIAGNOSE_MCP_POLICY` (or `--policy`), or from the same
document inline in `DIAGNOSE_MCP_POLICY_JSON`. The file holds SHA-256 digests of the tokens, never
the tokens themselves (`printf %s "$TOKEN" | sha256sum`):

```yaml
clients:
  assistant-oncall:                # the client's name in audit lines
    token_sha256: 5e884898da28…    # hex digest of the bearer token
    runai:                         # omitted: no Run:ai access
      clusters: ["3f1c…"]          # omitted or "*": any
      projects: [ml-team]
    modelarts:                     # omitted: no ModelArts access
      regions: [cn-north-4]
      projects: ["4f1d2c…"]        # ModelArts project ids
```

A call is checked twice, as the Slack bot checks its requests: before it runs, on the identifiers
given (an identifier not given yet passes), and after, on what the diagnosis resolved (a workload id
reveals its project only once read), where every restricted dimension must be known and listed.
Over stdio the caller is the local user, with the local user's own credentials: nothing is checked.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from diagnosis.models import Diagnosis, Platform
from mcp_face.messages import message

ANY = "*"
PLATFORM_NAMES: dict[Platform, str] = {"runai": "Run:ai", "modelarts": "ModelArts"}
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


class PolicyError(ValueError):
    """A policy that cannot be used, with a one-line reason."""


class Refusal(Exception):
    """A call the policy does not admit: `reason` goes back to the client, `detail` to the audit line."""

    def __init__(self, reason: str, *, detail: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class _Strict(BaseModel):
    # A misspelt key must stop the server with a clear message, not silently open or close access.
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunaiGrant(_Strict):
    clusters: list[str] = Field(default_factory=lambda: [ANY])
    projects: list[str] = Field(default_factory=lambda: [ANY])


class ModelArtsGrant(_Strict):
    regions: list[str] = Field(default_factory=lambda: [ANY])
    projects: list[str] = Field(default_factory=lambda: [ANY])


class ClientGrant(_Strict):
    token_sha256: str
    runai: RunaiGrant | None = None
    modelarts: ModelArtsGrant | None = None

    @field_validator("token_sha256")
    @classmethod
    def _hex_digest(cls, value: str) -> str:
        digest = value.strip().lower()
        if not _SHA256_HEX.match(digest):
            raise ValueError("must be the 64-character hex SHA-256 digest of the token")
        return digest


class Scope(BaseModel):
    """What a call touches; None = not known (yet). `project` is a Run:ai project name or a
    ModelArts project id."""

    model_config = ConfigDict(extra="forbid")

    platform: Platform
    cluster: str | None = None
    project: str | None = None
    region: str | None = None

    def describe(self) -> str:
        parts = [PLATFORM_NAMES[self.platform]]
        for label, value in (("cluster", self.cluster), ("project", self.project), ("region", self.region)):
            if value is not None:
                parts.append(f"{label} {value!r}")
        return " ".join(parts)


class Caller(BaseModel):
    """The client a call comes from: a policy client over HTTP, the local user over stdio."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    transport: str
    grant: ClientGrant | None = None  # None: the local user, unrestricted

    def check(self, scope: Scope, *, final: bool) -> None:
        """Raise Refusal when the caller may not touch `scope` (`final`: after the call resolved it)."""
        if self.grant is None:
            return
        dimensions = _dimensions(self.grant, scope)
        if dimensions is None:
            name = PLATFORM_NAMES[scope.platform]
            raise Refusal(message("refused.platform", platform=name), detail=f"no {scope.platform} grant")
        for dimension, (allowed, value) in dimensions.items():
            if ANY in allowed:
                continue
            if value is None:
                if not final:
                    continue
                raise Refusal(
                    message("refused.target", platform=PLATFORM_NAMES[scope.platform]),
                    detail=f"{dimension} unknown after the call",
                )
            if value not in allowed:
                reason = (
                    message("refused.target", platform=PLATFORM_NAMES[scope.platform])
                    if final
                    else message("refused.scope", what=scope.describe())
                )
                raise Refusal(reason, detail=f"{dimension} {value!r} not granted")

    def require(self, scope: Scope, *, dimension: str) -> None:
        """A scan must name `dimension` up front when the grant restricts it (a scan of a whole
        cluster would otherwise read projects the token may not see)."""
        if self.grant is None:
            return
        dimensions = _dimensions(self.grant, scope)
        if dimensions is None:
            self.check(scope, final=False)
            return
        allowed, value = dimensions[dimension]
        if ANY not in allowed and value is None:
            raise Refusal(
                message(
                    "refused.scope_unknown", platform=PLATFORM_NAMES[scope.platform], dimension=dimension
                ),
                detail=f"{dimension} not given for a restricted grant",
            )


def _dimensions(grant: ClientGrant, scope: Scope) -> dict[str, tuple[list[str], str | None]] | None:
    if scope.platform == "runai":
        if grant.runai is None:
            return None
        return {
            "cluster": (grant.runai.clusters, scope.cluster),
            "project": (grant.runai.projects, scope.project),
        }
    if grant.modelarts is None:
        return None
    return {
        "region": (grant.modelarts.regions, scope.region),
        "project": (grant.modelarts.projects, scope.project),
    }


def target_scope(diagnosis: Diagnosis) -> Scope:
    """What a diagnosis resolved: Run:ai cluster and project, ModelArts region and project id."""
    target = diagnosis.target
    if diagnosis.platform == "runai":
        return Scope(platform="runai", cluster=target.cluster_id, project=target.project)
    return Scope(platform="modelarts", region=target.region, project=target.project_id or target.project)


class Policy(_Strict):
    clients: dict[str, ClientGrant] = Field(default_factory=dict)

    def caller_for_token(self, token: str) -> Caller | None:
        """The client whose digest matches `token` (compared in constant time), else None."""
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        found: Caller | None = None
        for name, grant in self.clients.items():
            if hmac.compare_digest(digest, grant.token_sha256):
                found = Caller(name=name, transport="http", grant=grant)
        return found

    def caller_named(self, name: str) -> Caller | None:
        grant = self.clients.get(name)
        return Caller(name=name, transport="http", grant=grant) if grant is not None else None


def parse_policy(data: Any, *, origin: str) -> Policy:
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise PolicyError(f"policy {origin}: the top level must be a mapping")
    try:
        policy = Policy.model_validate(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise PolicyError(f"policy {origin}: {where}: {first.get('msg')}") from None
    digests = [grant.token_sha256 for grant in policy.clients.values()]
    if len(set(digests)) != len(digests):
        raise PolicyError(f"policy {origin}: two clients share one token")
    if not policy.clients:
        raise PolicyError(f"policy {origin}: no clients: every call over HTTP would be refused")
    return policy


def load_policy(*, path: Path | None, inline: str | None) -> Policy:
    """The policy from a file, else from inline JSON; PolicyError when neither is set or usable."""
    if path is not None:
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise PolicyError(f"cannot read policy {path}: {exc.strerror or exc}") from None
        try:
            data: Any = json.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
        except (ValueError, yaml.YAMLError) as exc:
            kind = "JSON" if path.suffix == ".json" else "YAML"
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise PolicyError(f"policy {path} is not valid {kind}: {reason}") from None
        return parse_policy(data, origin=str(path))
    if inline:
        try:
            data = json.loads(inline)
        except ValueError as exc:
            raise PolicyError(f"DIAGNOSE_MCP_POLICY_JSON is not valid JSON: {exc}") from None
        return parse_policy(data, origin="DIAGNOSE_MCP_POLICY_JSON")
    raise PolicyError(
        "serving over HTTP needs an access policy: --policy FILE, DIAGNOSE_MCP_POLICY or "
        "DIAGNOSE_MCP_POLICY_JSON (one bearer token per client; see docs/mcp.md)"
    )
