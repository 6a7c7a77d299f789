"""The "no secret leaves" invariant: diagnosis/masking/ (every string the product emits is masked)."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.masking import ADVERSARIAL, KIB, MIB, PLANTED_SECRETS, training_log
from diagnosis.masking import (
    MaskingFilter,
    ip_token,
    mask,
    mask_diagnosis,
    mask_obj,
    mask_url,
    masked,
    secret_kind,
)
from diagnosis.models import Diagnosis, Evidence, Measurements, Recommendation, Target
from tests.conftest import EXAMPLES, load_json
from tests.masking_corpus import FAKE_JWT, PLANTED, PRESIGNED, REALISTIC, UNCHANGED, PlantedSecret
from tests.safety.outputs import haystack, leaked

IP_TOKEN = re.compile(r"ip-[0-9a-f]{8}")


def sha_token(address: str) -> str:
    return "ip-" + hashlib.sha256(address.encode()).hexdigest()[:8]


# ---------------------------------------------------------------------------------------------------
# The planted corpus and the text that must stay as it is


@pytest.mark.parametrize("case", PLANTED, ids=[f"{c.kind}:{c.carrier[:40]}" for c in PLANTED])
def test_a_planted_secret_is_masked_with_its_kind(case: PlantedSecret) -> None:
    result = mask(case.carrier)
    assert case.secret not in result
    if case.kind != PRESIGNED:
        assert masked(case.kind) in result
    assert mask(result) == result


@pytest.mark.parametrize("case", REALISTIC, ids=[f"{c.family}:{c.carrier[:40]}" for c in REALISTIC])
def test_a_credential_as_ml_jobs_print_it_is_masked(case: PlantedSecret) -> None:
    """The held-out corpus: the secret is gone from what a reader sees (invisible characters
    dropped, wrapped lines joined, %-escapes decoded), a marker stands in, and a second pass
    changes nothing."""
    result = mask(case.carrier)
    assert not leaked(case.secret, haystack("text", result)), result
    if case.kind != PRESIGNED:
        assert "[MASKED:" in result
    assert mask(result) == result


@pytest.mark.parametrize("text", UNCHANGED, ids=[t[:50] for t in UNCHANGED])
def test_text_that_carries_a_diagnosis_and_no_secret_is_unchanged(text: str) -> None:
    assert mask(text) == text


# ---------------------------------------------------------------------------------------------------
# Exact outputs: what a reader of a report sees

EXACT: list[tuple[str, str]] = [
    # assignment shapes; the value ends at the closing quote, whitespace (`=`) or the line end (`:`)
    ("HF_TOKEN=hf_abc next", "HF_TOKEN=[MASKED:token] next"),
    ("--auth-token=abc --epochs 3", "--auth-token=[MASKED:token] --epochs 3"),
    ("--auth-token abc --epochs 3", "--auth-token [MASKED:token] --epochs 3"),
    ("--password 'two words' -v", "--password '[MASKED:password]' -v"),
    ("--token --verbose", "--token --verbose"),
    ("GET /x?token=abc&limit=5#top", "GET /x?token=[MASKED:token]&limit=5#top"),
    ('{"password": "a b, c", "user": "bob"}', '{"password": "[MASKED:password]", "user": "bob"}'),
    ('{"password":"x","n":1}', '{"password":"[MASKED:password]","n":1}'),
    ("{'api_key': 'k1'}", "{'api_key': '[MASKED:api_key]'}"),
    ("password: two words, user: bob", "password: [MASKED:password], user: bob"),
    ("password: a; b", "password: [MASKED:password]; b"),
    ("{secret: abc}", "{secret: [MASKED:secret]}"),
    ("db: x; passwd: y", "db: x; passwd: [MASKED:password]"),
    ("  token: 'quoted, with comma'", "  token: '[MASKED:token]'"),
    ('export AWS_SECRET_ACCESS_KEY="abc def"', 'export AWS_SECRET_ACCESS_KEY="[MASKED:sk]"'),
    ("sk = abc/DEF+1=", "sk = [MASKED:sk]"),
    ("HUAWEICLOUD_SDK_AK=AKTESTEXAMPLE0000000", "HUAWEICLOUD_SDK_AK=[MASKED:ak]"),
    ("accessKeyId: QWERTY0000", "accessKeyId: [MASKED:ak]"),
    ("PRIVATE_KEY=abc", "PRIVATE_KEY=[MASKED:private_key]"),
    # prose: no assignment, stays readable
    (
        "failed to fetch anonymous token: unexpected status: 401",
        "failed to fetch anonymous token: unexpected status: 401",
    ),
    ("the token was rejected", "the token was rejected"),
    ("token_rotation_enabled: false", "token_rotation_enabled: false"),
    ('"token": null', '"token": null'),
    # headers: the scheme stays, the credential goes
    ("Authorization: Bearer abc.def-123", "Authorization: Bearer [MASKED:bearer]"),
    ("authorization: basic dXNlcjpwYXNz", "authorization: basic [MASKED:password]"),
    ("Authorization: opaque-value", "Authorization: [MASKED:token]"),
    ('"Authorization": "Bearer abc123456"', '"Authorization": "Bearer [MASKED:bearer]"'),
    (
        "Authorization: SDK-HMAC-SHA256 Access=AKTESTEXAMPLE0000000, SignedHeaders=host, Signature=ab12",
        "Authorization: SDK-HMAC-SHA256 [MASKED:token]",
    ),
    ("Proxy-Authorization: Basic dXNlcjpwYXNz", "Proxy-Authorization: Basic [MASKED:password]"),
    ("X-Auth-Token: abc", "X-Auth-Token: [MASKED:token]"),
    # token shapes anywhere
    (f"sent {FAKE_JWT}.", "sent [MASKED:jwt]."),
    ("key AKIAIOSFODNN7EXAMPLE!", "key [MASKED:aws_key]!"),
    ("AKIAIOSFODNN7EXAMPLEX", "AKIAIOSFODNN7EXAMPLEX"),  # 21 characters: not an AWS key id
    ("Bearer abcdef123456", "Bearer [MASKED:bearer]"),
    # URLs
    ("https://user:pa55@host.example.com/p?q=1", "https://[MASKED:url_credentials]@host.example.com/p?q=1"),
    ("ssh://git@github.com/org/repo.git", "ssh://git@github.com/org/repo.git"),
    (
        "see https://b.s3.amazonaws.com/k.log?X-Amz-Signature=ab12&X-Amz-Expires=300#frag).",
        "see https://b.s3.amazonaws.com/k.log).",
    ),
    ("https://example.com/search?q=nccl&page=2", "https://example.com/search?q=nccl&page=2"),
    ("<https://obs.example.com/l.txt?Signature=s1|full log>", "<https://obs.example.com/l.txt|full log>"),
    ("https://example.com/cb?api_key=k1&page=2 ok", "https://example.com/cb ok"),
    # private keys: the whole block, nothing of its body
    (
        "k=-----BEGIN EC PRIVATE KEY-----\nAAAA\nBBBB\n-----END EC PRIVATE KEY-----\ndone",
        "k=[MASKED:private_key]\ndone",
    ),
    ('"-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----"', '"[MASKED:private_key]"'),
    # a block whose END was cut off: its base64 lines go, the next ordinary line stays
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBB==\n[truncated]", "[MASKED:private_key]\n[truncated]"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\nnext line",
        "[MASKED:private_key]\nnext line",
    ),
    ('{"k": "-----BEGIN PRIVATE KEY-----\\nAAAA\\nBBBB", "n": 1}', '{"k": "[MASKED:private_key]", "n": 1}'),
    # `key: value` on an escaped line inside JSON text (a config or log quoted in an API answer)
    (
        '{"msg": "config:\\npassword: hunter2xyz\\nuser: bob"}',
        '{"msg": "config:\\npassword: [MASKED:password]\\nuser: bob"}',
    ),
    ('"env:\\r\\n  - HF_TOKEN: abc123def456\\""', '"env:\\r\\n  - HF_TOKEN: [MASKED:token]\\""'),
    ('"\\tapi_key: AbC9\\"x"', '"\\tapi_key: [MASKED:api_key]\\"x"'),
    ('"\\nsteps: 100\\nmonkey: banana"', '"\\nsteps: 100\\nmonkey: banana"'),
    # exception names, error codes and paths survive next to a masked value
    ("AuthError: token=abc expired", "AuthError: token=[MASKED:token] expired"),
    ("APIGW.0301 password=x /etc/app.yaml", "APIGW.0301 password=[MASKED:password] /etc/app.yaml"),
]


@pytest.mark.parametrize(("text", "expected"), EXACT, ids=[e[0][:50] for e in EXACT])
def test_mask_gives_the_expected_text(text: str, expected: str) -> None:
    assert mask(text) == expected


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("HF_TOKEN", "token"),
        ("--auth-token", "token"),
        ("X-Auth-Token", "token"),
        ("securityToken", "token"),
        ("OAuthToken", "token"),
        ("AWS_SECRET_ACCESS_KEY", "sk"),
        ("secretAccessKey", "sk"),
        ("accessKeyId", "ak"),
        ("HUAWEICLOUD_SDK_AK", "ak"),
        ("sk", "sk"),
        ("db_password", "password"),
        ("MYSQL_PWD", "password"),
        ("passwd", "password"),
        ("clientSecret", "secret"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "secret"),
        ("apiKey", "api_key"),
        ("x-api-key", "api_key"),
        ("privateKey", "private_key"),
        ("max_new_tokens", None),
        ("--tokenizer", None),
        ("author", None),
        ("authority", None),
        ("authentication", None),
        ("task", None),
        ("key", None),
        ("monkey_patch", None),
        ("AccountKey", "sk"),
        ("--account-key", "sk"),
        ("--wandb_key", "api_key"),
        ("securitytoken", "token"),
        ("SharedAccessSignature", "token"),
        ("client-key-data", "api_key"),
        ("sort_key", None),
        ("object_key", None),
        ("cache_key", None),
        ("primary_key", None),
        ("数据库密码", "password"),
        ("访问密钥ID", "sk"),
        ("令牌", "token"),
        ("パスワード", "password"),
        ("密码错误", None),
        ("用户名", None),
    ],
)
def test_which_names_name_a_secret(name: str, kind: str | None) -> None:
    assert secret_kind(name) == kind


def test_a_path_or_url_under_a_secret_named_key_is_a_location_not_a_secret() -> None:
    assert mask("--password-file /run/secrets/db") == "--password-file /run/secrets/db"
    assert mask("auth_url=https://iam.example.com/v3") == "auth_url=https://iam.example.com/v3"
    assert mask("PWD=/workspace") == "PWD=/workspace"
    # …but a secret-named key whose value is not a place is masked
    assert mask("--password-file hunter2") == "--password-file [MASKED:password]"
    assert mask("DB_PWD=/notapath") == "DB_PWD=[MASKED:password]"


def test_a_non_secret_assignment_does_not_hide_a_secret_one_inside_its_value() -> None:
    text = 'App(client=WebClient(token="xoxb-test"), signing_secret="s1")'
    assert mask(text) == 'App(client=WebClient(token="[MASKED:token]"), signing_secret="[MASKED:secret]")'


def test_code_in_a_traceback_source_line_is_not_taken_for_a_secret() -> None:
    assert mask("    token = tokenizer.encode(text)") == "    token = tokenizer.encode(text)"
    assert mask("    password = 'hunter2'") == "    password = '[MASKED:password]'"


def test_a_secret_at_the_end_of_a_long_line_does_not_swallow_the_traceback_that_follows() -> None:
    # A long line ending with a secret may go on on the next line (a wrapped token), but a
    # traceback's header starts a new record: the failure it opens stays readable.
    text = (
        "2026-05-06 07:58:01,000 INFO  os.environ AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\n"
        "Traceback (most recent call last):\n"
        '  File "/workspace/ppo.py", line 301, in <module>\n'
        "RuntimeError: The size of tensor a (4096) must match the size of tensor b (2048)"
    )
    masked = mask(text).split("\n")
    assert masked[0].endswith("AWS_SECRET_ACCESS_KEY=[MASKED:sk]")
    assert masked[1:] == text.split("\n")[1:]


# ---------------------------------------------------------------------------------------------------
# URLs


def test_mask_url_keeps_scheme_host_and_path() -> None:
    assert (
        mask_url("https://u:p@h.example.com:8443/a/b?x=1")
        == "https://[MASKED:url_credentials]@h.example.com:8443/a/b?x=1"
    )
    assert mask_url("https://obs.example.com/log.txt?AccessKeyId=AK1&Expires=1&Signature=s%3D") == (
        "https://obs.example.com/log.txt"
    )
    assert (
        mask_url("https://acct.blob.core.windows.net/c/b?sv=2024&sig=abc")
        == "https://acct.blob.core.windows.net/c/b"
    )
    assert (
        mask_url("https://hooks.slack.com/services/T0/B0/xyz")
        == "https://hooks.slack.com/services/[MASKED:slack_webhook]"
    )
    assert mask_url("https://ghcr.io/token?scope=repository:o/i:pull&service=ghcr.io") == (
        "https://ghcr.io/token?scope=repository:o/i:pull&service=ghcr.io"
    )
    assert mask_url("not a url") == "not a url"


def test_a_presigned_url_inside_json_text_loses_its_query() -> None:
    text = '{"url": "https://b.example.com/k?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff00", "n": 1}'
    assert mask(text) == '{"url": "https://b.example.com/k", "n": 1}'


# ---------------------------------------------------------------------------------------------------
# IP addresses


def test_an_ip_becomes_a_stable_short_hash() -> None:
    first = mask("connect to 172.17.0.9 failed")
    assert first == f"connect to {sha_token('172.17.0.9')} failed"
    assert ip_token("172.17.0.9") == sha_token("172.17.0.9")
    # same host, same token; another host, another token
    both = mask("from 10.0.0.1 to 10.0.0.1 and 10.0.0.2")
    tokens = IP_TOKEN.findall(both)
    assert tokens[0] == tokens[1] != tokens[2]
    assert "10.0.0" not in both


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("MASTER_ADDR=172.17.0.9:29500", f"MASTER_ADDR={sha_token('172.17.0.9')}:29500"),
        (
            "trying to connect to (172.17.0.9, 46229).",
            f"trying to connect to ({sha_token('172.17.0.9')}, 46229).",
        ),
        (
            "lookup reg on 10.96.0.10:53: no such host",
            f"lookup reg on {sha_token('10.96.0.10')}:53: no such host",
        ),
        ("http://192.168.1.20:8080/api", f"http://{sha_token('192.168.1.20')}:8080/api"),
        ("peer fe80::1ff:fe23:4567:890a down", f"peer {sha_token('fe80::1ff:fe23:4567:890a')} down"),
        ("[2001:db8::1]:8080", f"[{sha_token('2001:db8::1')}]:8080"),
        ("pod fd00:10:244::5 ready", f"pod {sha_token('fd00:10:244::5')} ready"),
        ("cidr 10.244.0.0/16", f"cidr {sha_token('10.244.0.0')}/16"),
    ],
)
def test_ip_addresses_are_masked_with_their_ports_kept(text: str, expected: str) -> None:
    assert mask(text) == expected


def test_an_ipv4_mapped_ipv6_address_is_the_same_host_as_its_ipv4_form() -> None:
    assert mask("::ffff:10.1.2.3") == mask("10.1.2.3") == sha_token("10.1.2.3")


@pytest.mark.parametrize(
    "text",
    [
        "NCCL version 2.18.1",
        "Run:ai 1.224.0, torch 2.1.0+cu121",
        "cuDNN 8.9.2.26, TensorRT version 8.6.1.6",
        "nvidia-cudnn-cu12==8.9.2.26",
        "OID 1.3.6.1.4.1.2021",
        "v1.2.3.4",
        "256.1.1.1 is not an address",
        "at 10:04:10 and 2024-05-01T10:04:10.123+08:00",
        "mac 00:1a:2b:3c:4d:5e",
        "c10d::ProcessGroupNCCL::WorkNCCL at::Tensor std::vector",
        "x[1::2] y[::3] z[::-1]",
        "a1b2c3d4-0000-4000-8000-000000000001 sm_80 sm_90a",
        "listening on 0.0.0.0:8080 and 127.0.0.1:29500 and [::1]:80",
    ],
)
def test_numbers_that_are_not_hosts_are_left_alone(text: str) -> None:
    assert mask(text) == text


# ---------------------------------------------------------------------------------------------------
# Idempotence and "no planted secret survives", over generated text

FRAGMENTS = [
    "token",
    "password",
    "HF_TOKEN",
    "--auth-token",
    "Authorization",
    "Bearer ",
    "bearer",
    "secret",
    "=",
    ": ",
    ":",
    "::",
    "\n",
    " ",
    ",",
    ";",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "\\",
    '\\"',
    "?",
    "&",
    "#",
    "-",
    "--",
    "://",
    "https://",
    "@",
    "u:p@",
    "eyJ",
    "eyJabcd.eyJabcd.sig",
    "xoxb-",
    "xoxb-1234567890",
    "AKIAIOSFODNN7EXAMPLE",
    "sk-test-example-secret",
    "hf_",
    "10.0.0.1",
    "172.17.0.9:29500",
    "fe80::1",
    "1.2.3",
    "[MASKED:",
    "[MASKED:token]",
    "ip-",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "name",
    "value",
    "- name: HF_TOKEN\n  value: ",
    '{"name": "HF_TOKEN", "value": ',
    "Signature=",
    "sig=",
    "null",
    "Error",
    "ValueError: ",
    "|",
    "`",
    "(",
    ")",
    "x",
    # the shapes of the held-out corpus
    "wandb login ",
    "wandb.login(key=",
    "machine api.wandb.ai login u password ",
    "curl -u ",
    "--user ",
    "docker login -p ",
    "mysql -p",
    "sshpass -p ",
    "aws configure set aws_secret_access_key ",
    "AccountKey=",
    "SharedAccessSignature=sv=1&sig=",
    "X-Auth-Token: ",
    "header: X-Subject-Token: ",
    "> ",
    "ya29.a0AfB_byC3kL9mN2pQ4rS6tU8vW0xY2zA4b",
    "pypi-AgEIcHlwaS5vcmcCJUEd8-if-Ig980bWvd6RGKq98TK5mIjtecRRBNzbl_1gA",
    "HPFHPFKZR7KVSCIFSPHV",
    "%3A",
    "%40",
    "%253A",
    "token%3D",
    "密码：",
    "访问令牌=",
    "：",
    "\u200b",
    "\x00",
    "\x08",
    "\u00ad",
    "\u202e",
    "\x1b[31m",
    "- value: ",
    "  name: DB_PASSWORD",
    "[worker-0] ",
    "\\\n",
    "loaded secret ",
    "eEQVSmZ1K2sNSaidKGqriUiYwwfG",
    "A" * 70,
]

generated_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet="abcAZ019_.-/+= :\n\"'", max_size=6)),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(generated_text)
def test_masking_is_idempotent(text: str) -> None:
    once = mask(text)
    assert mask(once) == once


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(PLANTED), min_size=1, max_size=5),
    st.lists(st.sampled_from(UNCHANGED), max_size=4),
    st.randoms(use_true_random=False),
)
def test_no_planted_secret_survives_among_prose(
    cases: list[PlantedSecret], prose: list[str], shuffler: random.Random
) -> None:
    lines = [case.carrier for case in cases] + prose
    shuffler.shuffle(lines)
    result = mask("\n".join(lines))
    for case in cases:
        assert case.secret not in result
    assert mask(result) == result


# ---------------------------------------------------------------------------------------------------
# mask_obj


def test_mask_obj_masks_strings_at_any_depth_and_keeps_keys_and_other_types() -> None:
    data: dict[str, Any] = {
        "status": {"phase": "Failed", "exitCode": 137, "ok": False, "nothing": None, "ratio": 0.984},
        "messages": ["connect to 10.0.0.1 failed", ("password=hunter2", 3)],
        "10.0.0.1": "key kept as is",
    }
    result = mask_obj(data)
    assert result == {
        "status": {"phase": "Failed", "exitCode": 137, "ok": False, "nothing": None, "ratio": 0.984},
        "messages": [f"connect to {sha_token('10.0.0.1')} failed", ("password=[MASKED:password]", 3)],
        "10.0.0.1": "key kept as is",
    }
    assert data["messages"][0] == "connect to 10.0.0.1 failed"  # the input is not modified


def test_a_secret_named_key_masks_its_value_whatever_it_is() -> None:
    data = {
        "password": "x",
        "clientSecret": 12345,
        "token": "",
        "securityToken": None,
        "authEnabled": True,
        "credentials": {"ak": "AK1", "sk": "SK1", "region": "cn-north-4"},
        "imagePullSecrets": [{"name": "regcred"}],
        "Authorization": "Bearer abc",
        "tokenizer": "gpt2",
        "max_new_tokens": 64,
    }
    assert mask_obj(data) == {
        "password": "[MASKED:password]",
        "clientSecret": "[MASKED:secret]",
        "token": "",
        "securityToken": None,
        "authEnabled": True,
        "credentials": {"ak": "[MASKED:secret]", "sk": "[MASKED:secret]", "region": "[MASKED:secret]"},
        "imagePullSecrets": [{"name": "[MASKED:secret]"}],
        "Authorization": "[MASKED:bearer]",
        "tokenizer": "gpt2",
        "max_new_tokens": 64,
    }


def test_env_pairs_mask_the_value_of_a_secret_named_variable() -> None:
    spec = {
        "environmentVariables": [
            {"name": "HF_TOKEN", "value": "hf_abc"},
            {"name": "EPOCHS", "value": "3"},
            {"name": "DB_PASSWORD", "secret": {"name": "db", "key": "password"}},
            {"Key": "API_KEY", "Value": "k-1"},
        ],
        "command": ["python", "train.py", "--hf-token", "hf_def", "--epochs", "3", "--token-file", "/run/t"],
    }
    result = mask_obj(spec)
    assert result["environmentVariables"] == [
        {"name": "HF_TOKEN", "value": "[MASKED:token]"},
        {"name": "EPOCHS", "value": "3"},
        {"name": "DB_PASSWORD", "secret": {"name": "[MASKED:secret]", "key": "[MASKED:secret]"}},
        {"Key": "API_KEY", "Value": "[MASKED:api_key]"},
    ]
    assert result["command"] == [
        "python",
        "train.py",
        "--hf-token",
        "[MASKED:token]",
        "--epochs",
        "3",
        "--token-file",
        "/run/t",
    ]


def test_mask_obj_returns_other_types_unchanged() -> None:
    marker = object()
    assert mask_obj(marker) is marker
    assert mask_obj(42) == 42
    assert mask_obj(None) is None
    assert mask_obj("password=x") == "password=[MASKED:password]"


def test_the_worked_examples_hold_no_secret_and_are_left_exactly_as_they_are() -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        data = load_json(path)
        assert mask_obj(data) == data, path.name
    for path in sorted(EXAMPLES.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        assert mask(text) == text, path.name


# ---------------------------------------------------------------------------------------------------
# mask_diagnosis


def test_mask_diagnosis_masks_every_string_and_keeps_numbers(diagnosis_schema: dict[str, Any]) -> None:
    diagnosis = Diagnosis(
        platform="runai",
        target=Target(workload_id="a1b2c3d4-0000-4000-8000-000000000001", name="train-llm", project="team-a"),
        outcome="diagnosed",
        category="CRASH_APP_ERROR",
        signature="RuntimeError: login failed for https://bot:pa55w0rd@git.example.com",
        confidence="HIGH",
        root_cause="The job passed HF_TOKEN=hf_secretvalue0001 and crashed on 10.1.2.3.",
        evidence=[
            Evidence(source="get_workload_events", text="Authorization: Bearer abcdef123456", value=137),
            Evidence(source="get_workload_pods", field="exitCode", text="exit 137", value="password=x"),
        ],
        measurements=Measurements(
            memory_limit_bytes=17179869184, memory_peak_bytes=16903045120, exit_code=137
        ),
        recommendations=[
            Recommendation(text="Rotate the token xoxb-1234567890-abcdef", changes_resources=True)
        ],
        limitations=["pod log of 172.17.0.9 truncated"],
        calls=["get_workload_status", "get_workload_events"],
    )
    result = mask_diagnosis(diagnosis)
    dumped = json.dumps(result.to_json_dict())
    for secret in (
        "pa55w0rd",
        "hf_secretvalue0001",
        "10.1.2.3",
        "abcdef123456",
        "password=x",
        "xoxb-1234567890",
        "172.17.0.9",
    ):
        assert secret not in dumped
    assert (
        result.signature == "RuntimeError: login failed for https://[MASKED:url_credentials]@git.example.com"
    )
    assert result.measurements == diagnosis.measurements
    assert result.evidence[0].value == 137
    assert result.target == diagnosis.target
    assert result.calls == diagnosis.calls
    assert result.category == "CRASH_APP_ERROR"
    jsonschema.validate(result.to_json_dict(), diagnosis_schema)


# ---------------------------------------------------------------------------------------------------
# MaskingFilter: the product's own log lines


def make_logger(name: str) -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(MaskingFilter())
    logger = logging.getLogger(name)
    logger.handlers = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, stream


def test_masking_filter_masks_message_args_and_exception_text() -> None:
    logger, stream = make_logger("tests.masking.filter")
    logger.info(
        "calling %s with %s", "https://runai.example.com/api/v1/token", {"clientSecret": "s3cr3t-value"}
    )
    logger.warning("peer %s unreachable", "10.2.3.4")
    try:
        raise RuntimeError("login failed: password=hunter2-in-exception")
    except RuntimeError:
        logger.exception("request failed with Authorization: Bearer abcdef123456")
    output = stream.getvalue()
    for secret in ("s3cr3t-value", "10.2.3.4", "hunter2-in-exception", "abcdef123456"):
        assert secret not in output
    assert "'clientSecret': '[MASKED:secret]'" in output
    assert "RuntimeError: login failed: password=[MASKED:password]" in output
    assert "Traceback (most recent call last)" in output


PLUGIN_TOKEN = "hf_PluginLeakABCDEFGHIJKLMNOPQRSTUV"
PLUGIN_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLUGINKEY"


def test_a_kubeconfig_exec_plugin_failure_is_logged_masked_by_the_cli(tmp_path: Path) -> None:
    """The Kubernetes client logs a failing exec plugin's stderr through the root logger; the CLI
    (a fresh process, as a user runs it) prints it masked."""
    plugin = tmp_path / "plugin.py"
    plugin.write_text(
        "import sys\n"
        f"sys.stderr.write('error: token {PLUGIN_TOKEN} AWS_SECRET_ACCESS_KEY={PLUGIN_SECRET}\\n')\n"
        "sys.exit(1)\n",
        encoding="utf-8",
    )
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\n"
        "clusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:9\n"
        "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
        f"      command: {sys.executable}\n      args: [{str(plugin)!r}]\n"
        "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n",
        encoding="utf-8",
    )
    environment = {
        **os.environ,
        "KUBECONFIG": str(kubeconfig),
        "RUNAI_URL": "http://127.0.0.1:9",
        "RUNAI_CLIENT_ID": "diag-client",
        "RUNAI_CLIENT_SECRET": "diag-secret-value-123",
    }
    environment.pop("KUBERNETES_SERVICE_HOST", None)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "runai", "--cluster-id", "c", "--workload-id", "w"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    shown = done.stdout + done.stderr
    assert "exec: process returned 1" in shown  # the plugin ran and its failure was printed
    assert PLUGIN_TOKEN not in shown and PLUGIN_SECRET not in shown
    assert "[MASKED:token]" in shown and "AWS_SECRET_ACCESS_KEY=[MASKED:sk]" in shown


def test_masking_filter_survives_a_bad_format_string_without_leaking_args() -> None:
    logger, stream = make_logger("tests.masking.badformat")
    logger.info("%d tokens", "token=abc123-secret")
    output = stream.getvalue()
    assert "abc123-secret" not in output
    assert "tokens" in output


# ---------------------------------------------------------------------------------------------------
# Linear time on hostile input (the timings themselves are in bench/masking.py)

# The shapes the safety review timed (12.7 s and 10.7 s at a fraction of a megabyte before), and
# the other hostile shapes of the benchmark, at 1 MiB and 256 KiB.
FULL_SIZE_SHAPES = (
    "-----BEGIN RSA PRIVATE KEY-----\\n repeated",
    "step=1,loss=0.12,task=cls, repeated",
    '"key": " unterminated, repeated',
    "BEGIN + base64 body, no END",
    "one line of base64 after token:",
    "wrapped HF_TOKEN lines",
)


class _TooSlow(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise _TooSlow


@pytest.mark.parametrize("shape", list(ADVERSARIAL), ids=list(ADVERSARIAL))
def test_masking_hostile_input_finishes(shape: str) -> None:
    """A quadratic regression takes minutes on a megabyte; linear masking takes about a second.
    The alarm is generous (20 s: a loaded 2-core machine) so that only the former fails."""
    size = MIB if shape in FULL_SIZE_SHAPES else 256 * KIB
    text = ADVERSARIAL[shape](size)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(20)
    try:
        once = mask(text)
    except _TooSlow:
        pytest.fail(f"masking {size // KIB} KiB of {shape!r} took over 20 s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert once.count("\n") <= text.count("\n")  # masking never adds a line


def test_a_megabyte_of_training_log_keeps_its_lines_and_loses_its_secrets() -> None:
    text = training_log(1_000_000)
    result = mask(text)
    for secret in PLANTED_SECRETS:
        assert secret not in result
    assert "10.42." not in result
    assert result.count("\n") == text.count("\n")
    assert "torch.OutOfMemoryError: CUDA out of memory" in result
    assert "tokens/s 11873.2 | max_new_tokens 256 | tokenizer llama" in result
    assert mask(result) == result
