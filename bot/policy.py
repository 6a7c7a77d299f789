"""Access policy: which Slack organisations' people, in which channels (and optionally which users
or user groups), may diagnose which platforms, clusters, projects and regions.

Loaded from the YAML or JSON file named by `DIAGNOSE_POLICY`. Without one, a new install answers
from the demo bundles only. A request is checked twice: before it runs, on the identifiers given,
and after, on the resolved target (a workload id reveals its project only once read); both denials
show the same message, so a denial never tells whether a job exists.

People of other organisations (a Slack Connect channel) are refused at every entry point before
anything runs: a person is admitted when Slack names their workspace in `teams` or their Enterprise
Grid org in `enterprises` (Slack names the org on commands and events, and on clicks of people of
the app's own workspace; list a workspace of the org under `teams` to admit its clicks everywhere).

```yaml
teams: [T0ACME001, T0PARTNER]     # workspaces whose people may use the bot; "*" = any
                                  # omitted = only the workspace the bot's token belongs to
enterprises: [E0ACMEORG]          # Enterprise Grid orgs whose people may use the bot
demo_only: false                  # true: answer from the demo bundles only
languages: {C0INC0042: zh}        # report language per channel (labels and free text; quotes stay verbatim)
cluster_aliases: {prod-a: 3f1c…}  # cluster names people type → cluster ids
rate_limit: {per_user: 10, window_seconds: 600}
rules:                            # a list, or a mapping of rule names to rules
  - channels: [C0INC0042]         # channel ids, or "*"
    users: [U0ALICE01]            # optional; with usergroups, either admits
    usergroups: [S0MLOPS]         # optional (needs the usergroups:read scope)
    platforms: [runai]            # omitted = both
    clusters: ["3f1c…"]           # omitted or "*" = any
    projects: [ml-team]
    regions: [cn-north-4]
```
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from diagnosis.models import Diagnosis, Platform
from diagnosis.render.i18n import Language

ANY = "*"
BOTH_PLATFORMS: tuple[Platform, ...] = ("runai", "modelarts")
GroupMembers = Callable[[str], set[str]]


class PolicyError(ValueError):
    """A policy file that cannot be used, with a one-line reason."""


class _Strict(BaseModel):
    # A misspelt key must stop the bot with a clear message, not silently open or close access.
    model_config = ConfigDict(extra="forbid")


class RateLimit(_Strict):
    per_user: int = Field(default=10, ge=1)
    window_seconds: int = Field(default=600, ge=1)


class Rule(_Strict):
    channels: list[str] = Field(default_factory=lambda: [ANY])
    users: list[str] = Field(default_factory=list)
    usergroups: list[str] = Field(default_factory=list)
    platforms: list[Platform] = Field(default_factory=lambda: list(BOTH_PLATFORMS))
    clusters: list[str] = Field(default_factory=lambda: [ANY])
    projects: list[str] = Field(default_factory=lambda: [ANY])
    regions: list[str] = Field(default_factory=lambda: [ANY])

    def admits_person(self, *, user: str, channel: str, members: GroupMembers | None) -> bool:
        if ANY not in self.channels and channel not in self.channels:
            return False
        if not self.users and not self.usergroups:
            return True
        if user in self.users:
            return True
        if members is None:
            return False
        return any(user in members(group) for group in self.usergroups)


class Organisation(BaseModel):
    """Who acts, where, and the workspace (`T…`) and Enterprise Grid org (`E…`) ids Slack names for
    that person in the request (see bot/organisations.py for where each payload names them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: str
    channel: str
    teams: frozenset[str]
    enterprises: frozenset[str]


class Decision(BaseModel):
    allowed: bool
    # For the audit log only: users see one generic denial.
    reason: str


class Scope(BaseModel):
    """What a request touches; None = not known yet (checked again on the diagnosis target)."""

    platform: Platform
    cluster: str | None = None
    project: str | None = None
    region: str | None = None


class Policy(_Strict):
    # None: the workspace the bot's token belongs to (auth.test), and only it.
    teams: list[str] | None = None
    enterprises: list[str] = Field(default_factory=list)
    demo_only: bool = False
    languages: dict[str, Language] = Field(default_factory=dict)
    cluster_aliases: dict[str, str] = Field(default_factory=dict)
    rate_limit: RateLimit = Field(default_factory=RateLimit)
    rules: list[Rule] = Field(default_factory=list)

    @field_validator("rules", mode="before")
    @classmethod
    def _named_rules(cls, value: Any) -> Any:
        """`rules` may also be a mapping of names to rules (`{oncall: {channels: [...]}}`)."""
        return list(value.values()) if isinstance(value, dict) else value

    @classmethod
    def default(cls) -> Policy:
        """A new install: everyone, everywhere, but only the demo bundles."""
        return cls(demo_only=True, rules=[Rule()])

    def decide(
        self,
        scope: Scope,
        *,
        user: str,
        channel: str,
        members: GroupMembers | None = None,
        final: bool = False,
    ) -> Decision:
        """`final=False` (before running) lets unknown dimensions through; `final=True` (on the
        diagnosis target) requires every restricted dimension to be known and listed."""
        people = [
            rule for rule in self.rules if rule.admits_person(user=user, channel=channel, members=members)
        ]
        if not people:
            return Decision(allowed=False, reason=f"no rule admits user {user} in channel {channel}")
        for rule in people:
            if scope.platform not in rule.platforms:
                continue
            if all(
                _admits(allowed, value, final=final)
                for allowed, value in (
                    (rule.clusters, scope.cluster),
                    (rule.projects, scope.project),
                    (rule.regions, scope.region),
                )
            ):
                return Decision(allowed=True, reason="allowed")
        return Decision(allowed=False, reason=f"no rule admits {scope.model_dump(exclude_none=True)}")

    def admits_organisation(self, person: Organisation, *, installed_team: str | None) -> Decision:
        """Whether the person's organisation may use the bot at all: every workspace Slack names for
        them is listed in `teams`, or every org it names is in `enterprises`. Nothing named, or no
        installing workspace known while `teams` is left to default: refused."""
        teams = self.teams if self.teams is not None else [installed_team] if installed_team else []
        if ANY in teams:
            return Decision(allowed=True, reason="allowed")
        if person.teams and person.teams <= set(teams):
            return Decision(allowed=True, reason="allowed")
        if person.enterprises and person.enterprises <= set(self.enterprises):
            return Decision(allowed=True, reason="allowed")
        named = sorted(person.teams | person.enterprises)
        return Decision(
            allowed=False,
            reason=f"organisation {'/'.join(named) or 'unknown'} is not admitted (teams, enterprises)",
        )

    def lang_for(self, channel: str) -> str | None:
        return self.languages.get(channel)

    def cluster_id(self, typed: str) -> str:
        """A cluster name from the alias table becomes its id; anything else is kept as typed."""
        return self.cluster_aliases.get(typed, typed)


def _admits(allowed: list[str], value: str | None, *, final: bool) -> bool:
    if ANY in allowed:
        return True
    if value is None:
        return not final
    return value in allowed


def scope_of_target(diagnosis: Diagnosis) -> Scope:
    target = diagnosis.target
    return Scope(
        platform=diagnosis.platform, cluster=target.cluster_id, project=target.project, region=target.region
    )


def load_policy(path: str | Path | None) -> Policy:
    """The policy file, or the demo-only default when no path is set."""
    if not path:
        return Policy.default()
    file = Path(path)
    try:
        raw = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"cannot read policy {file}: {exc.strerror or exc}") from None
    try:
        data: Any = json.loads(raw) if file.suffix == ".json" else yaml.safe_load(raw)
    except (ValueError, yaml.YAMLError) as exc:
        raise PolicyError(
            f"policy {file} is not valid {'JSON' if file.suffix == '.json' else 'YAML'}: {exc}"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PolicyError(f"policy {file}: the top level must be a mapping")
    try:
        return Policy.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise PolicyError(f"policy {file}: {where}: {first.get('msg')}") from None
