"""The access policy over HTTP: how a file is read, how a token finds its client, and what a
grant admits before a call runs and after it resolved its target."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from diagnosis.models import Diagnosis, Target
from mcp_face.access import Caller, PolicyError, Refusal, Scope, load_policy, parse_policy

TOKEN = "s3cr3t-token-for-alice"
DIGEST = hashlib.sha256(TOKEN.encode()).hexdigest()


def policy_with(**grant: object) -> dict[str, object]:
    return {"clients": {"alice": {"token_sha256": DIGEST, **grant}}}


def alice(**grant: object) -> Caller:
    caller = parse_policy(policy_with(**grant), origin="test").caller_for_token(TOKEN)
    assert caller is not None
    return caller


def test_a_token_finds_its_client_by_digest_and_nothing_else_does() -> None:
    policy = parse_policy(policy_with(runai={}), origin="test")
    caller = policy.caller_for_token(TOKEN)
    assert caller is not None and (caller.name, caller.transport) == ("alice", "http")
    assert policy.caller_for_token(TOKEN + " ") is None
    assert policy.caller_for_token(DIGEST) is None  # the digest itself is no token
    assert policy.caller_for_token("") is None


def test_policy_files_that_cannot_be_used_stop_the_server_with_the_reason(tmp_path: Path) -> None:
    def reason(data: object, suffix: str = ".yaml") -> str:
        path = tmp_path / f"policy{suffix}"
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        with pytest.raises(PolicyError) as failure:
            load_policy(path=path, inline=None)
        return str(failure.value)

    assert reason({"clients": {"a": {"token_sha256": "abc"}}}).endswith(
        "clients.a.token_sha256: Value error, must be the 64-character hex SHA-256 digest of the token"
    )
    assert "clients.a.runai.cluster" in reason(
        {"clients": {"a": {"token_sha256": DIGEST, "runai": {"cluster": []}}}}
    )
    assert reason(
        {"clients": {"a": {"token_sha256": DIGEST}, "b": {"token_sha256": DIGEST.upper()}}}
    ).endswith("two clients share one token")
    assert reason({"clients": {}}).endswith("no clients: every call over HTTP would be refused")
    assert reason("[1, 2]").endswith("the top level must be a mapping")
    assert "is not valid JSON" in reason("{", suffix=".json")
    assert "is not valid YAML" in reason("clients: [", suffix=".yaml")
    with pytest.raises(PolicyError, match="cannot read policy"):
        load_policy(path=tmp_path / "absent.yaml", inline=None)
    with pytest.raises(PolicyError, match="needs an access policy"):
        load_policy(path=None, inline=None)
    inline = load_policy(path=None, inline=json.dumps(policy_with(modelarts={})))
    assert inline.caller_for_token(TOKEN) is not None
    with pytest.raises(PolicyError, match="DIAGNOSE_MCP_POLICY_JSON is not valid JSON"):
        load_policy(path=None, inline="{nope")


def test_before_a_call_only_what_was_given_is_checked() -> None:
    caller = alice(runai={"clusters": ["c1"], "projects": ["p1"]})
    caller.check(Scope(platform="runai", cluster="c1"), final=False)  # project not known yet
    caller.check(Scope(platform="runai", cluster="c1", project="p1"), final=False)
    with pytest.raises(Refusal) as other_project:
        caller.check(Scope(platform="runai", cluster="c1", project="p2"), final=False)
    assert (
        other_project.value.reason == "Refused: this token may not diagnose Run:ai cluster 'c1' project 'p2'."
    )
    assert other_project.value.detail == "project 'p2' not granted"
    with pytest.raises(Refusal, match="may not diagnose ModelArts"):
        caller.check(Scope(platform="modelarts", region="cn-north-4"), final=False)


def test_after_a_call_every_restricted_dimension_must_be_known_and_granted() -> None:
    caller = alice(runai={"projects": ["p1"]}, modelarts={"regions": ["cn-north-4"]})
    caller.check(Scope(platform="runai", cluster="any-cluster", project="p1"), final=True)
    with pytest.raises(Refusal) as unknown:
        caller.check(Scope(platform="runai", cluster="c1"), final=True)
    assert unknown.value.detail == "project unknown after the call"
    with pytest.raises(Refusal) as elsewhere:
        caller.check(Scope(platform="runai", cluster="c1", project="p9"), final=True)
    # The client is not told where the workload turned out to be.
    assert "p9" not in elsewhere.value.reason and "p9" in elsewhere.value.detail
    caller.check(Scope(platform="modelarts", region="cn-north-4", project="anything"), final=True)


def test_a_scan_names_the_project_when_the_grant_restricts_it() -> None:
    restricted = alice(runai={"projects": ["p1"]})
    with pytest.raises(Refusal, match="give the project"):
        restricted.require(Scope(platform="runai", cluster="c1"), dimension="project")
    restricted.require(Scope(platform="runai", cluster="c1", project="p1"), dimension="project")
    alice(runai={}).require(Scope(platform="runai", cluster="c1"), dimension="project")


def test_the_local_user_over_stdio_is_not_restricted() -> None:
    local = Caller(name="someone", transport="stdio")
    local.check(Scope(platform="runai", cluster="c", project="p"), final=True)
    local.check(Scope(platform="modelarts"), final=True)
    local.require(Scope(platform="runai"), dimension="project")


def test_a_diagnosis_target_gives_the_scope_checked_after_the_call() -> None:
    from mcp_face.access import target_scope

    runai = Diagnosis(platform="runai", outcome="diagnosed", target=Target(cluster_id="c", project="p"))
    modelarts = Diagnosis(
        platform="modelarts", outcome="diagnosed", target=Target(region="r", project_id="id")
    )
    assert target_scope(runai) == Scope(platform="runai", cluster="c", project="p")
    assert target_scope(modelarts) == Scope(platform="modelarts", region="r", project="id")
