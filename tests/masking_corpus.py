"""Planted secrets for the masking tests (and for adversarial suites that import them).

`PLANTED`: `PlantedSecret(kind, secret, carrier)` cases: `carrier` is text as the product meets it (a
log line, an env dump, a header, JSON, YAML, a URL) that holds `secret`; after `mask(carrier)` the
secret is gone and, except for pre-signed URLs (whose query string is dropped whole), the marker
`[MASKED:<kind>]` stands in its place. Every value is invented.

`REALISTIC`: a held-out corpus of credentials as ML jobs really print them (the CLIs of W&B, Azure,
Huawei Cloud, AWS, Google, PyPI, databases; netrc files; connection strings; http.client debug
dumps; wrapped, prefixed, URL-encoded and CJK-keyed forms; invisible characters inside a token),
each with its `family`. Masking must remove each secret; the kind of its marker is not prescribed.

`UNCHANGED`: text that carries a diagnosis and no secret: `mask` must return it as is.
"""

from __future__ import annotations

from typing import NamedTuple


class PlantedSecret(NamedTuple):
    kind: str
    secret: str
    carrier: str
    # The credential family (`wandb`, `azure`, …) of the held-out corpus; "" for the first corpus.
    family: str = ""


# The kind of a pre-signed URL: no marker, the query string is removed.
PRESIGNED = "presigned_url"

FAKE_JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiJkaWFnLWJvdCIsImV4cCI6MTczNTY4OTYwMH0"
    ".c2lnbmF0dXJlLW5vdC1yZWFsLWZha2UtZmFrZS1mYWtl"
)
FAKE_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAfakefakefakefakefakefakefakefakefakefakefakefake\n"
    "Zm9vYmFyYmF6cXV4ZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2U=\n"
    "-----END RSA PRIVATE KEY-----"
)
FAKE_SIGNATURE = "783aa31ce231a8ff120b43e8fc9f9b873d5c64b114d7a6f967c730b83ec232e5"

PLANTED: list[PlantedSecret] = [
    # Huawei AK/SK: env pairs of the SDK, the credentials INI file, KooCLI's JSON, the signer header.
    PlantedSecret("ak", "AKTESTEXAMPLE0000000", "HUAWEICLOUD_SDK_AK=AKTESTEXAMPLE0000000"),
    PlantedSecret("sk", "sk-test-example-secret", "HUAWEICLOUD_SDK_SK=sk-test-example-secret"),
    PlantedSecret("sk", "sk-test-example-secret", "signing with SK sk-test-example-secret failed"),
    PlantedSecret(
        "ak", "HPUAFAKEFAKEFAKE0001", "[basic]\nak = HPUAFAKEFAKEFAKE0001\nsk = c2VjcmV0c2VjcmV0c2VjcmV0\n"
    ),
    PlantedSecret(
        "sk",
        "c2VjcmV0c2VjcmV0c2VjcmV0",
        "[basic]\nak = HPUAFAKEFAKEFAKE0001\nsk = c2VjcmV0c2VjcmV0c2VjcmV0\n",
    ),
    PlantedSecret("ak", "QWERTYFAKE0000000001", '{"name": "default", "accessKeyId": "QWERTYFAKE0000000001"}'),
    PlantedSecret(
        "sk",
        "fakeSecretAccessKey0000000000000000000000",
        '"secretAccessKey": "fakeSecretAccessKey0000000000000000000000",',
    ),
    PlantedSecret("token", "FAKE-SECURITY-TOKEN-EXAMPLE", "X-Security-Token: FAKE-SECURITY-TOKEN-EXAMPLE"),
    PlantedSecret(
        "token",
        "FAKE-SECURITY-TOKEN-EXAMPLE",
        '{"securityToken": "FAKE-SECURITY-TOKEN-EXAMPLE", "region": "cn-north-4"}',
    ),
    PlantedSecret(
        "token",
        FAKE_SIGNATURE,
        "Authorization: SDK-HMAC-SHA256 Access=AKTESTEXAMPLE0000000, "
        f"SignedHeaders=content-type;host;x-project-id;x-sdk-date, Signature={FAKE_SIGNATURE}",
    ),
    PlantedSecret(
        "token",
        "AKTESTEXAMPLE0000000",
        "Authorization: SDK-HMAC-SHA256 Access=AKTESTEXAMPLE0000000, "
        f"SignedHeaders=content-type;host;x-project-id;x-sdk-date, Signature={FAKE_SIGNATURE}",
    ),
    PlantedSecret(
        "ak",
        "AKTESTEXAMPLE0000000",
        "canonical request rejected for Access=AKTESTEXAMPLE0000000 at 20250101T000000Z",
    ),
    # AWS
    PlantedSecret("aws_key", "AKIAIOSFODNN7EXAMPLE", "using access key AKIAIOSFODNN7EXAMPLE for s3://bucket"),
    PlantedSecret("aws_key", "ASIAFAKEFAKEFAKE0000", "temporary credentials ASIAFAKEFAKEFAKE0000 expired"),
    PlantedSecret(
        "sk",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    PlantedSecret(
        "sk",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    # Bearer tokens and JWTs (Run:ai's API token)
    PlantedSecret(
        "bearer", "opaqueToken0123456789abcdef", "Authorization: Bearer opaqueToken0123456789abcdef"
    ),
    PlantedSecret(
        "bearer",
        "opaqueToken0123456789abcdef",
        'curl -H "Authorization: Bearer opaqueToken0123456789abcdef" https://runai.example.com/api/v1/workloads',
    ),
    PlantedSecret(
        "bearer", "opaqueToken0123456789abcdef", "retrying with bearer opaqueToken0123456789abcdef after 401"
    ),
    PlantedSecret(
        "bearer", "dXNlcjpwYXNzd29yZA==", '{"headers": {"authorization": "Bearer dXNlcjpwYXNzd29yZA=="}}'
    ),
    PlantedSecret("password", "dXNlcjpwYXNzd29yZA==", "Authorization: Basic dXNlcjpwYXNzd29yZA=="),
    PlantedSecret("jwt", FAKE_JWT, f"token refreshed: {FAKE_JWT} (expires in 3600 s)"),
    PlantedSecret("jwt", FAKE_JWT, f'{{"accessToken": "{FAKE_JWT}", "expiresIn": 3600}}'),
    PlantedSecret("jwt", FAKE_JWT, f"jwt={FAKE_JWT}; refreshed"),
    # Slack
    PlantedSecret(
        "slack_token",
        "xoxb-0000000000-0000000000000-FAKEfakeFAKEfake00000000",
        "SLACK_BOT_TOKEN=xoxb-0000000000-0000000000000-FAKEfakeFAKEfake00000000",
    ),
    PlantedSecret(
        "slack_token",
        "xapp-1-A00000FAKE0-0000000000000-fakefakefakefakefakefakefakefake",
        "socket mode connecting with xapp-1-A00000FAKE0-0000000000000-fakefakefakefakefakefakefakefake",
    ),
    PlantedSecret(
        "slack_token",
        "xoxp-0000000000-0000000000-FAKEfake0000",
        "user token: xoxp-0000000000-0000000000-FAKEfake0000",
    ),
    PlantedSecret(
        "slack_token", "xoxe.xoxp-1-FAKEfakeFAKEfake0000", "refresh with xoxe.xoxp-1-FAKEfakeFAKEfake0000 now"
    ),
    PlantedSecret("secret", "0123fakesigningsecret4567", "SLACK_SIGNING_SECRET=0123fakesigningsecret4567"),
    PlantedSecret(
        "slack_webhook",
        "T00000000/B00000000/FAKEfakeFAKEfake00000000",
        "alert sent to https://hooks.slack.com/services/T00000000/B00000000/FAKEfakeFAKEfake00000000.",
    ),
    # Code hosting and model hubs
    PlantedSecret(
        "token",
        "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0000",
        "git clone https://ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0000@github.com/org/repo.git",
    ),
    PlantedSecret(
        "token", "github_pat_FAKE0000fake0000FAKE0000fake", "GH=github_pat_FAKE0000fake0000FAKE0000fake"
    ),
    PlantedSecret("token", "glpat-FAKEfakeFAKEfake0000", "using glpat-FAKEfakeFAKEfake0000 for the registry"),
    PlantedSecret(
        "token",
        "hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake00",
        "huggingface-cli login --token hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake00",
    ),
    PlantedSecret(
        "token",
        "hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake00",
        "Downloading with hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake00",
    ),
    PlantedSecret(
        "sk", "sk-proj-FAKEfakeFAKEfake0000fake", "OPENAI_API_KEY=sk-proj-FAKEfakeFAKEfake0000fake"
    ),
    PlantedSecret(
        "api_key",
        "AIzaFAKEfakeFAKEfakeFAKEfakeFAKEfake000",
        "maps key AIzaFAKEfakeFAKEfakeFAKEfakeFAKEfake000 rejected",
    ),
    # Private keys, raw and with newlines escaped inside JSON text
    PlantedSecret("private_key", "MIIEowIBAAKCAQEAfakefake", f"loaded key:\n{FAKE_PEM}\nok"),
    PlantedSecret(
        "private_key",
        "MIIEowIBAAKCAQEAfakefake",
        '{"privateKey": "' + FAKE_PEM.replace("\n", "\\n") + '\\n"}',
    ),
    PlantedSecret("private_key", "MIIEowIBAAKCAQEAfakefake", "ssh key: " + FAKE_PEM.replace("\n", "\\n")),
    # `key: value` lines of a config or log quoted inside JSON text (newlines escaped)
    PlantedSecret(
        "password",
        "yamlPassw0rd",
        '{"message": "loaded config:\\ndb:\\n  password: yamlPassw0rd\\n  user: train"}',
    ),
    PlantedSecret("token", "hfTokenInLog0123", '"stdout": "step 3\\r\\nHF_TOKEN: hfTokenInLog0123\\r\\n"'),
    # URLs: userinfo and pre-signed query strings
    PlantedSecret(
        "url_credentials", "s3cr3tP4ss", "remote: https://deploy:s3cr3tP4ss@git.example.com/repo.git"
    ),
    PlantedSecret(
        "url_credentials", "redisPass0", "broker redis://:redisPass0@cache.internal:6379/0 unreachable"
    ),
    PlantedSecret("url_credentials", "pgPass0rd", "connecting to postgresql://app:pgPass0rd@db.internal/app"),
    PlantedSecret(
        PRESIGNED,
        "b2a3c4d5e6f70819a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819",
        "log at https://bucket.s3.amazonaws.com/logs/run.log?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=AKIDFAKE%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z"
        "&X-Amz-Expires=300&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=b2a3c4d5e6f70819a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819 (5 min)",
    ),
    PlantedSecret(
        PRESIGNED,
        "FAKEsig%2Bfake%3D",
        "https://obs.cn-north-4.myhuaweicloud.com/job/log.txt?AccessKeyId=AKTESTEXAMPLE0000000"
        "&Expires=1735689600&Signature=FAKEsig%2Bfake%3D",
    ),
    PlantedSecret(
        PRESIGNED, "sv=2024&sig=FAKE", "https://acct.blob.core.windows.net/c/b.log?sp=r&sv=2024&sig=FAKE"
    ),
    PlantedSecret(
        PRESIGNED, "jupyterFakeToken000", "open http://notebook.internal/lab?token=jupyterFakeToken000"
    ),
    PlantedSecret(
        "token", "abc123fakefake", "GET /api/v1/stream?limit=5&access_token=abc123fakefake HTTP/1.1"
    ),
    # KEY=value, --key=value, --key value, KEY: value, JSON and Python reprs, argv, env pairs
    PlantedSecret("password", "hunter2!x", "DB_PASSWORD=hunter2!x python train.py"),
    PlantedSecret("password", "p@ss w0rd", "mysql-client --password 'p@ss w0rd' --host db"),
    PlantedSecret("password", "Pa55word", "launcher --db_passwd=Pa55word --epochs 3"),
    PlantedSecret("password", "Pa55word", "password: Pa55word"),
    PlantedSecret("password", "Pa55word", "  - password: Pa55word"),
    PlantedSecret("password", "Pa55word", "user: bob, password: Pa55word; retries: 3"),
    PlantedSecret("password", "Pa55word", "{'user': 'bob', 'password': 'Pa55word'}"),
    PlantedSecret("password", "Pa55word", 'spec: {\\"password\\": \\"Pa55word\\"}'),
    PlantedSecret("password", "97531086420", '{"password": 97531086420}'),
    PlantedSecret("password", "s3cr3tpwd", "DB_PWD=s3cr3tpwd"),
    PlantedSecret("token", "tkn_fake_001", "torchrun train.py --auth-token tkn_fake_001 --max_new_tokens 64"),
    PlantedSecret("token", "tkn_fake_001", "torchrun train.py --auth-token=tkn_fake_001"),
    PlantedSecret("token", "tkn_fake_001", "X-Auth-Token: tkn_fake_001"),
    PlantedSecret("token", "tkn_fake_001", "HF_TOKEN: tkn_fake_001"),
    PlantedSecret("token", "legacyVerif0000", '{"token": "legacyVerif0000", "team_id": "T0001"}'),
    PlantedSecret("token", "tkn_fake_001", "os.environ['HF_TOKEN'] = 'tkn_fake_001'"),
    PlantedSecret("token", "tkn_fake_001", '"command": ["python", "train.py", "--hf-token", "tkn_fake_001"]'),
    PlantedSecret(
        "token", "hf_short1", '"environmentVariables": [{"name": "HF_TOKEN", "value": "hf_short1"}]'
    ),
    PlantedSecret(
        "token",
        "hf_short1",
        "env:\n  - name: HF_TOKEN\n    value: hf_short1\n  - name: EPOCHS\n    value: '3'\n",
    ),
    PlantedSecret(
        "secret",
        "fakeClientSecret0",
        '{"grantType": "client_credentials", "clientId": "diag-bot", "clientSecret": "fakeClientSecret0"}',
    ),
    PlantedSecret("api_key", "fakeApiKey0001", "WANDB_API_KEY=fakeApiKey0001"),
    PlantedSecret("api_key", "fakeApiKey0001", "x-api-key: fakeApiKey0001"),
    PlantedSecret("secret", "fakeCredential01", "GOOGLE_CREDENTIALS=fakeCredential01"),
    PlantedSecret("private_key", "fakePrivateKeyBody", "private_key: fakePrivateKeyBody"),
]


# ---------------------------------------------------------------------------------------------------
# The held-out corpus: credentials as ML jobs print them. Every value is invented.

WANDB_KEYS = (
    "ec5726bb5f782e9f3167db0f98aea1bfc61ae4dc",
    "50c73ebc68088b1900a9d9fb8dd719273bc9f96b",
    "49e854c9f7531f58bc6f65c76876d12d58b0d522",
    "fc84bf7a7b077a581c7d8f4c4bf946f086993659",
    "43ad01f89a8ed12fb36e8a40155064af86af0d09",
    "be5762d704e870c7a377c2e14a05a9b4b1dc6c14",
)
AZURE_ACCOUNT_KEY = "18O7hlTm3eXTPTvdUooErLDhnNlhePPAdZ/3k/5o47B/tlz94nG1TDuf9bZSKLOClE5EipZXVCl1AA/wy/PLrw=="
AZURE_ACCOUNT_KEY_2 = (
    "TWtTPKEIPD+YpcDjzjR1euSMEvt4nSE2l5vTaZMC34BD0eOPa0I7l2WyLdt2PIFSgluvRinmKXqQ3tMlAA6LTA=="
)
AZURE_SAS_SIG = "Tslh70nxSHluCiZJEJNy9pt4cQN%2Bn9mWE%2B2JKUQa0MA%3D"
AZURE_SAS_SIG_2 = "OFUksrmlURj87n3ld4YGWaYNHFBaUhqL9avr1pc3J%2Bc%3D"
# Huawei IAM tokens are long PKI blobs beginning `MII`; STS security tokens are base64url.
IAM_TOKEN = (
    "MIIEhgYJKoZIhvcNAQcCoIIEdzCCBHMCAQEx"
    "g/LY8hmUcnCceZyUNhvPq9cnZfoIFzjW5iQ8iLIQlNRbYTIlGRe2zsOpKbMFj2C5ov3EqUJKjf6aI0EB3njju+e85R3zSO"
    "+g8ZwuKWlCdEhb+tBy1lXZ5EwJcPhtLSET658MXXPAb9tOr9ungKi9e1wO6tus9rBB6eWhiJLYkML2vtOAMMcSaqlK9Dip"
)
IAM_TOKEN_2 = (
    "MIIDgwYJKoZIhvcNAQcCoIIDdDCCA3ACAQEx"
    "CTUXi1UEWZNXeOM+238l1ryp+eOeXb7P7uwtM600lniSgUH0BI7yVfoNHPBmQycJa9/cQK3qKbQ2RubxX3ZyrzF/XZfZZfa"
)
IAM_TOKEN_3 = (
    "MIIFpAYJKoZIhvcNAQcCoIIFlTCCBZECAQEx"
    "AGewlCMQXuK74ZtTuWEFieW8VfIXTRqAtZDA/gDkvSgzWI2EK8VueBsUnQWS0xByc7YmgHBSEzkkW2gvfrrJuvGBZnq0ocl"
)
STS_TOKEN = (
    "gQpjbi1ub3J0aC00ZcuBQEFbXc3z-w0X_YMHxw6PwI0A5kvcwZLVg74i_GbGT_ZvLPna0yKmBZzn93YP211FXNRX-ucmQ_"
    "QYYes5GkMcLRSXyR2yFDdoCMxOXbQVyEZmL1Mo9WnXbyTXD3cfNU_yxAzu0igsePJwpJBU5dCWWUmcf-t0"
)
HUAWEI_AKS = ("HPFHPFKZR7KVSCIFSPHV", "COFHLSH9J1EZZQM53JNS", "EOV42QVA80CTTBGSJSRL", "88P78YIP637305PMJZ2J")
HUAWEI_SK = "Zxl1Gkuz4bmGF4bYAtvfqIMQUoYZsUx35AdCAN7n"
AWS_SECRET = "JXiFLaiURnBI1kAYxl1vOCcHzGrp755svUvkLvC3"
AWS_SESSION_TOKEN = (
    "IQoJb3JpZ2luX2VjEa9zD1xvOCQDQ3g4ELZC9E2rGVscwC2/6w9vTBfCHgAdoKtsHJnwTkwW9b5Whebst7ZZWgewbL8Nwm2"
    "+Gr8kd7EWSuaIrRu7uawb3ciU+6vSjp6gSfJLn6v7eJD0uTKU8i6FEA6XoORYU6wff3FTRdSb2CiDWl1F6MZajHWQnxwXj6"
)
GOOGLE_ACCESS_TOKEN = (
    "ya29.a0K-pSrXrb8J4tjcXtEbRsaI-ZDHy84WMOUj3rizl0-V-Nmd5AT5YFKTOgsuF3jrBmrQybVWilBabrfKTlD5CXunxyh"
    "Rq1uvLkPOIULqs-gRcXI7FdhEraF960puoWozLsdoXeP8PjFTduIarODGfXAa"
)
GOOGLE_ACCESS_TOKEN_2 = (
    "ya29.c.b0wGOosCu6Jn5iclYE3yUZCtkKA1_1g5W05BKJS8EtdnZxKW_cUluF6i7POCKUAEVF0QxNsAQQFgTh1SzApihkt8G"
)
PYPI_TOKEN = (
    "pypi-AgEIcHlwaS5vcmcCJUEd8-if-Ig980bWvd6RGKq98TK5mIjtecRRBNzbl_1gARxp6ARRdNE0R3tmOnAZ_xnT3l1rPTa"
    "_0hdPWZyqdciPZfgeXegSCcXKldALvhPdq3vkvOEweA3XPuiyIJBF6vT"
)
PYPI_TOKEN_2 = (
    "pypi-AgEIcHlwaS5vcmcCJCrWLzf0YtuPCPLPCeWn71qlg5J_xIzNGDm3Q3pmgAXwVY-IgduA_ir77PVRiKf4iMCgKYi7nqw"
)
HF_TOKENS = ("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", "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")
OPAQUE_TOKENS = (
    "Br3m3vg3xGdon6kV6d3Jkjvkgkjw",
    "nEQikJPv1fCwQcCrraCr30rtsRJ0",
    "jYBfcM7cmFkU91uhjs9aitqtR6vm",
    "Apkk2BXcNpDZVSS5sSsoHHfpNoKT",
)
RUNAI_JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0"
    ".eyJzdWIiOiJzdmMtdHJhaW4iLCJhdWQiOiJydW5haSIsImV4cCI6MTc2NzIyNTYwMCwiaWF0IjoxNzY3MjIyMDAwfQ"
    ".p1qUSSn0Q_MFQmFBw6qDggDAfPDD3v0JtQX-eMk4pg3eQ0IU9DpDFofFFfHyuVRvlSmpusaHW_R71rsZl2YOWc"
)
PEM_BODY = (
    "MIIEpAIBAAKCAQEAsCs0J5wU5HqkwPAInTiQudXYXY4nWFny4GYd65mMA2KEc6wo",
    "rSMeBrfxtJdPmT5oJGAhahGcTdlsgbSjPveOTFr7I63QnSxmq1Nftt4Q+rUiYic2",
    "M7n4VFnK8EEi0l1UJKqa9iUOsMGljWLGpvm/+katRb5tEyFlh2eTK/ZHEzcp6W+t",
)


def _pem(label: str, prefix: str) -> str:
    """A private key block whose every line carries a log prefix (`[worker-0] `)."""
    lines = [f"-----BEGIN {label}-----", *PEM_BODY, f"-----END {label}-----"]
    return "\n".join(prefix + line for line in lines)


def _wrapped(text: str, width: int) -> str:
    """`text` cut into lines of `width` characters, as a terminal or a log collector wraps it."""
    return "\n".join(text[start : start + width] for start in range(0, len(text), width))


def _cri(line: str, index: int) -> str:
    """A line in the CRI log format of containerd (`kubectl logs` reads these files)."""
    return f"2025-01-10T08:00:{index:02d}.{123456789 + index * 1111}Z stdout F {line}"


REALISTIC: list[PlantedSecret] = [
    # Weights & Biases: the CLI, the Python call, a launcher flag, netrc lines it writes.
    PlantedSecret("api_key", WANDB_KEYS[0], f"+ wandb login {WANDB_KEYS[0]}", "wandb"),
    PlantedSecret(
        "api_key",
        WANDB_KEYS[1],
        f"wandb login --relogin --host https://wandb.ml.example.com local-{WANDB_KEYS[1]}",
        "wandb",
    ),
    PlantedSecret("api_key", WANDB_KEYS[2], f'    wandb.login(key="{WANDB_KEYS[2]}", relogin=True)', "wandb"),
    PlantedSecret(
        "api_key", WANDB_KEYS[3], f"python train.py --wandb_key {WANDB_KEYS[3]} --epochs 10", "wandb"
    ),
    PlantedSecret(
        "password",
        WANDB_KEYS[4],
        f"cat ~/.netrc\nmachine api.wandb.ai\n  login user\n  password {WANDB_KEYS[4]}\n",
        "wandb",
    ),
    PlantedSecret(
        "password", WANDB_KEYS[5], f"machine api.wandb.ai login mluser password {WANDB_KEYS[5]}", "wandb"
    ),
    # Azure storage: connection strings, the CLI flag, SAS tokens outside a URL.
    PlantedSecret(
        "sk",
        AZURE_ACCOUNT_KEY,
        "BlobServiceClient.from_connection_string: DefaultEndpointsProtocol=https;AccountName=mlckpt01;"
        f"AccountKey={AZURE_ACCOUNT_KEY};EndpointSuffix=core.windows.net",
        "azure",
    ),
    PlantedSecret(
        "sk",
        AZURE_ACCOUNT_KEY_2,
        '{"connection": "DefaultEndpointsProtocol=https;AccountName=mlckpt02;AccountKey='
        f'{AZURE_ACCOUNT_KEY_2};EndpointSuffix=core.chinacloudapi.cn"}}',
        "azure",
    ),
    PlantedSecret(
        "sk",
        AZURE_ACCOUNT_KEY,
        f"az storage blob upload-batch --account-name mlckpt01 --account-key {AZURE_ACCOUNT_KEY} -d ckpt -s ./out",
        "azure",
    ),
    PlantedSecret(
        "sk",
        AZURE_ACCOUNT_KEY_2,
        f"az storage container list --account-name mlckpt02 --account-key={AZURE_ACCOUNT_KEY_2}",
        "azure",
    ),
    PlantedSecret(
        "token",
        AZURE_SAS_SIG,
        "BlobEndpoint=https://mlckpt01.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b"
        f"&srt=sco&sp=rwdlac&se=2025-06-30T00:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig={AZURE_SAS_SIG}",
        "azure",
    ),
    PlantedSecret(
        "token",
        AZURE_SAS_SIG_2,
        "mounting with SharedAccessSignature=sv=2021-08-06&ss=b&srt=o&sp=r&se=2025-03-01T00:00:00Z"
        f"&sig={AZURE_SAS_SIG_2} (read only)",
        "azure",
    ),
    # Huawei Cloud IAM: token headers in curl lines and http.client debug dumps, STS JSON, bare AK/SK.
    PlantedSecret(
        "token",
        IAM_TOKEN,
        f'curl -s -H "X-Auth-Token: {IAM_TOKEN}" https://modelarts.cn-north-4.myhuaweicloud.com/v2/'
        "0a1b2c3d4e5f60718293a4b5c6d7e8f9/training-jobs",
        "huawei",
    ),
    PlantedSecret(
        "token",
        IAM_TOKEN_2,
        "send: b'GET /v2/0a1b2c3d4e5f60718293a4b5c6d7e8f9/training-jobs/3f0c HTTP/1.1\\r\\nHost: "
        "modelarts.cn-north-4.myhuaweicloud.com\\r\\nAccept-Encoding: identity\\r\\nX-Auth-Token: "
        f"{IAM_TOKEN_2}\\r\\nContent-Type: application/json\\r\\n\\r\\n'",
        "huawei",
    ),
    PlantedSecret(
        "token",
        IAM_TOKEN_3,
        f"reply: 'HTTP/1.1 201 Created\\r\\n'\nheader: Content-Type: application/json\nheader: X-Subject-Token: {IAM_TOKEN_3}\n"
        "header: X-Request-Id: 5f1c0f4e9b2a4c1d",
        "huawei",
    ),
    PlantedSecret(
        "token",
        IAM_TOKEN_2,
        f"< HTTP/1.1 201 Created\n< X-Subject-Token: {IAM_TOKEN_2}\n< Connection: keep-alive",
        "huawei",
    ),
    PlantedSecret(
        "token",
        STS_TOKEN,
        f"> GET /v1/0a1b2c3d/buckets HTTP/1.1\n> X-Security-Token: {STS_TOKEN}\n> Accept: */*",
        "huawei",
    ),
    PlantedSecret(
        "token",
        STS_TOKEN,
        f'{{"credential": {{"access": "{HUAWEI_AKS[0]}", "secret": "{HUAWEI_SK}", "securitytoken": '
        f'"{STS_TOKEN}", "expires_at": "2025-01-10T09:00:00.000000Z"}}}}',
        "huawei",
    ),
    PlantedSecret(
        "ak",
        HUAWEI_AKS[0],
        f'{{"credential": {{"access": "{HUAWEI_AKS[0]}", "secret": "{HUAWEI_SK}", "securitytoken": '
        f'"{STS_TOKEN}", "expires_at": "2025-01-10T09:00:00.000000Z"}}}}',
        "huawei",
    ),
    PlantedSecret(
        "ak",
        HUAWEI_AKS[1],
        f"APIGW.0301 Incorrect IAM authentication information: AK {HUAWEI_AKS[1]} is disabled",
        "huawei",
    ),
    PlantedSecret(
        "ak", HUAWEI_AKS[2], f"downloading obs://ckpt-bucket/run-7 as {HUAWEI_AKS[2]} (temporary)", "huawei"
    ),
    PlantedSecret(
        "sk",
        HUAWEI_SK,
        f"./obsutil config -i={HUAWEI_AKS[3]} -k={HUAWEI_SK} -e=obs.cn-north-4.myhuaweicloud.com",
        "huawei",
    ),
    # AWS CLI, Google OAuth access tokens, PyPI tokens.
    PlantedSecret("sk", AWS_SECRET, f"+ aws configure set aws_secret_access_key {AWS_SECRET}", "aws"),
    PlantedSecret(
        "token",
        AWS_SESSION_TOKEN,
        f"aws configure set aws_session_token {AWS_SESSION_TOKEN} --profile ci",
        "aws",
    ),
    PlantedSecret(
        "token",
        GOOGLE_ACCESS_TOKEN,
        f"gcs upload refused for {GOOGLE_ACCESS_TOKEN}: 401 invalid_token",
        "google",
    ),
    PlantedSecret(
        "token",
        GOOGLE_ACCESS_TOKEN_2,
        f"$ gcloud auth print-access-token\n{GOOGLE_ACCESS_TOKEN_2}\n",
        "google",
    ),
    PlantedSecret(
        "token",
        PYPI_TOKEN,
        f"twine upload --repository-url https://upload.pypi.org/legacy/ -u __token__ -p {PYPI_TOKEN} dist/*",
        "pypi",
    ),
    PlantedSecret("token", PYPI_TOKEN_2, f"publishing wheel with {PYPI_TOKEN_2}", "pypi"),
    # Passwords handed to command-line tools.
    PlantedSecret(
        "password",
        "uve7Pd#FVXln",
        "curl -sf -u admin:uve7Pd#FVXln https://registry.internal/v2/_catalog",
        "cli",
    ),
    PlantedSecret(
        "password",
        "lwv!774eWZi0",
        "curl --user deploy:lwv!774eWZi0 -T model.tar https://artifacts.example.com/upload",
        "cli",
    ),
    PlantedSecret(
        "password",
        "tbhdtGQoOjU1",
        "docker login -u robot -p tbhdtGQoOjU1 swr.cn-north-4.myhuaweicloud.com",
        "cli",
    ),
    PlantedSecret(
        "password",
        "I59K4rOOjsxM",
        "mysql -h db.internal -u trainer -pI59K4rOOjsxM mlmeta -e 'select 1'",
        "cli",
    ),
    PlantedSecret(
        "password", "CM7zb#ahD94H", "sshpass -p 'CM7zb#ahD94H' ssh ma-user@worker-1 nvidia-smi", "cli"
    ),
    PlantedSecret("password", "ck4rFEYB7bTc", "redis-cli -h cache.internal -a ck4rFEYB7bTc PING", "cli"),
    # DSNs whose password holds `/`, `#` or `@`.
    PlantedSecret(
        "url_credentials",
        "pa/ss#w0rd9",
        "MLFLOW_BACKEND_STORE_URI=postgresql://mlflow:pa/ss#w0rd9@db.internal:5432/mlflow",
        "dsn",
    ),
    PlantedSecret(
        "url_credentials",
        "Ab3/xY9#kL",
        "pymongo.errors.ServerSelectionTimeoutError: mongodb://trainer:Ab3/xY9#kL@mongo-0.mongo:27017/runs timed out",
        "dsn",
    ),
    PlantedSecret(
        "url_credentials",
        "Q2w#e4/R6t@x",
        "optuna.create_study(storage='mysql+pymysql://optuna:Q2w#e4/R6t@x@optuna-db/optuna')",
        "dsn",
    ),
    # URL-encoded credentials (a URL passed as a query parameter, once or twice encoded).
    PlantedSecret(
        "url_credentials",
        "Gh7kP2mXq9",
        "GET /login?next=https%3A%2F%2Fdeploy%3AGh7kP2mXq9%40git.example.com%2Forg%2Frepo.git HTTP/1.1",
        "url_encoded",
    ),
    PlantedSecret(
        PRESIGNED,
        "tk_9Fh3Kq7Lz2Wm",
        "registering webhook callback=https%3A%2F%2Fapi.example.com%2Fhook%3Ftoken%3Dtk_9Fh3Kq7Lz2Wm",
        "url_encoded",
    ),
    PlantedSecret(
        "url_credentials",
        "Vb8nM3qZ5x",
        "redirect=https%253A%252F%252Fci%253AVb8nM3qZ5x%2540ci.example.com%252Fbuild",
        "url_encoded",
    ),
    PlantedSecret(
        "url_credentials",
        "mw9%Emr6SXUw",
        "HTTPS_PROXY=http%3A%2F%2Fsvc%3Amw9%25Emr6SXUw%40proxy.corp%3A3128",
        "url_encoded",
    ),
    # Full-width colons and key names in Chinese and Japanese.
    PlantedSecret("password", "O43rcCDSYU7H", "password：O43rcCDSYU7H", "cjk"),
    PlantedSecret(
        "password", "W9JduuagtbdX", "连接数据库失败 host=db.internal 用户名：train 密码：W9JduuagtbdX", "cjk"
    ),
    PlantedSecret("password", "%vo9Kx!cZhj3", "口令: %vo9Kx!cZhj3", "cjk"),
    PlantedSecret("sk", HUAWEI_SK, f"访问密钥ID：{HUAWEI_AKS[3]}，秘密访问密钥：{HUAWEI_SK}", "cjk"),
    PlantedSecret("token", OPAQUE_TOKENS[0], f"访问令牌：{OPAQUE_TOKENS[0]}", "cjk"),
    PlantedSecret("password", "I59K4rOOjsxM", "パスワード：I59K4rOOjsxM", "cjk"),
    # Secrets wrapped over two lines (a terminal or a log collector cuts long lines).
    PlantedSecret(
        "token",
        HF_TOKENS[0],
        _wrapped(
            f"2025-01-10 08:00:01,204 INFO [setup.py:31] environment: HF_TOKEN={HF_TOKENS[0]} EPOCHS=3", 80
        ),
        "wrapped",
    ),
    PlantedSecret("jwt", RUNAI_JWT, _wrapped(f"token refreshed: {RUNAI_JWT}", 76), "wrapped"),
    PlantedSecret(
        "token", IAM_TOKEN, _wrapped(f"DEBUG request headers: X-Auth-Token: {IAM_TOKEN}", 100), "wrapped"
    ),
    PlantedSecret(
        "token",
        HF_TOKENS[1],
        f"export HF_TOKEN={HF_TOKENS[1][:18]}\\\n{HF_TOKENS[1][18:]}\npython train.py",
        "wrapped",
    ),
    # YAML and JSON env entries with `value` before `name`.
    PlantedSecret(
        "password",
        "CM7zb#ahD94H",
        'env:\n- value: "CM7zb#ahD94H"\n  name: DB_PASSWORD\n- name: EPOCHS\n  value: "3"',
        "env",
    ),
    PlantedSecret(
        "token", OPAQUE_TOKENS[1], f'[{{"value": "{OPAQUE_TOKENS[1]}", "name": "API_TOKEN"}}]', "env"
    ),
    # Private keys whose every line carries a prefix.
    PlantedSecret("private_key", PEM_BODY[1], _pem("RSA PRIVATE KEY", "[worker-0] "), "pem"),
    PlantedSecret(
        "private_key",
        PEM_BODY[2],
        "\n".join(
            _cri(line, index) for index, line in enumerate(_pem("OPENSSH PRIVATE KEY", "").split("\n"))
        ),
        "pem",
    ),
    PlantedSecret("private_key", PEM_BODY[0], _pem("EC PRIVATE KEY", "[pod/train-0/trainer] "), "pem"),
    # Invisible characters inside a token (zero-width, soft hyphen, bidi, control characters).
    PlantedSecret(
        "token", HF_TOKENS[0], f"HF_TOKEN={HF_TOKENS[0][:10]}\u200b{HF_TOKENS[0][10:]}", "invisible"
    ),
    PlantedSecret(
        "slack_token",
        "xoxb-2741953062-5018377490216-QkZ3rT8wLp2mXv9nBc4yHs6D",
        "posting with xoxb-2741953062-5018377490216-QkZ3rT\x088wLp2mXv9nBc4yHs6D",
        "invisible",
    ),
    PlantedSecret(
        "aws_key", "AKIA2OGYBAH6STMJ5QWE", "using access key AKIA2OGY\x00BAH6STMJ5QWE", "invisible"
    ),
    PlantedSecret(
        "sk",
        "sk-proj-Ab3De5Fg7Hi9Jk1Lm3No5Pq7",
        "OPENAI key sk-proj-Ab3De5\u00adFg7Hi9Jk1Lm3No5Pq7 rejected",
        "invisible",
    ),
    PlantedSecret(
        "token",
        "ghp_" + OPAQUE_TOKENS[2] + "x1Y2z3",
        f"git push https://ghp_\u202e{OPAQUE_TOKENS[2]}x1Y2z3\u202c@github.com/org/repo",
        "invisible",
    ),
    PlantedSecret("password", "Hunter2xyz!", "DB_PASSWORD=Hun\x7fter2xyz! python train.py", "invisible"),
    PlantedSecret("token", OPAQUE_TOKENS[3], f"pass\u200bword={OPAQUE_TOKENS[3]}", "invisible"),
    # No rule names these shapes: a high-entropy value next to a credential word.
    PlantedSecret(
        "token",
        "35nRCFsc0VSk0CVs6xTxhke9RKg1",
        'kaggle.json: {"username":"mluser","key":"35nRCFsc0VSk0CVs6xTxhke9RKg1"}',
        "entropy",
    ),
    PlantedSecret(
        "secret",
        "eEQVSmZ1K2sNSaidKGqriUiYwwfG",
        "vault: loaded secret eEQVSmZ1K2sNSaidKGqriUiYwwfG for job train-7",
        "entropy",
    ),
    PlantedSecret(
        "token",
        "nEQikJPv1fCwQcCrraCr30rtsRJ0",
        "E0110 08:00:01.204 exec plugin: token nEQikJPv1fCwQcCrraCr30rtsRJ0 AWS_SECRET_ACCESS_KEY="
        + AWS_SECRET,
        "entropy",
    ),
    PlantedSecret(
        "sk",
        AWS_SECRET,
        "kubeconfig exec stderr: AWS_SECRET_ACCESS_KEY=" + AWS_SECRET + " token expired",
        "entropy",
    ),
]


# Text that carries a diagnosis and no secret: masking leaves it exactly as it is.
UNCHANGED: list[str] = [
    # Tracebacks and exception lines
    "Traceback (most recent call last):\n"
    '  File "/workspace/train.py", line 42, in <module>\n'
    "    outputs = model.generate(inputs, max_new_tokens=args.max_new_tokens)\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 29.76 GiB",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty of "
    "6.00 GiB of which 0 bytes is free.",
    "InvalidTokenError: Signature has expired",
    "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo",
    "KeyError: 'input_ids'",
    "    token = tokenizer(text, return_tensors='pt')",
    '    token = os.environ["HF_TOKEN"]',
    "ValueError: --tokenizer must name a model, got author=None",
    # NCCL / torch.distributed
    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, "
    "NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.",
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
    "terminate called after throwing an instance of 'c10::DistBackendError' what(): [PG 0 Rank 1] "
    "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "exitcode  : -9 (pid: 14750)\ntraceback : Signal 9 (SIGKILL) received by PID 14750",
    "RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error.",
    "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus",
    "OSError: [Errno 28] No space left on device",
    # Kubernetes messages
    "OOMKilled",
    'Back-off pulling image "registry.example.com/team/trainer:1.4.2"',
    'Failed to pull image "ghcr.io/org/img:v2": rpc error: code = Unknown desc = failed to pull and unpack image '
    '"ghcr.io/org/img:v2": failed to resolve reference "ghcr.io/org/img:v2": failed to authorize: '
    "failed to fetch anonymous token: unexpected status: 401 Unauthorized",
    "failed to fetch oauth token: unexpected status from GET request to "
    "https://ghcr.io/token?scope=repository:org/img:pull&service=ghcr.io: 403 Forbidden",
    "pull access denied, repository does not exist or may require authorization: server message: "
    "insufficient_scope: authorization failed",
    "Error: ImagePullBackOff",
    'Error: secret "db" not found',
    'MountVolume.SetUp failed for volume "hf-token" : secret "hf-token" not found',
    "couldn't find key HF_TOKEN in Secret team-a/hf-credentials",
    "0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 node(s) had untolerated taint "
    "{node-role.kubernetes.io/control-plane: }.",
    "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki.",
    "container has runAsNonRoot and image will run as root",
    # Platform error codes and messages
    '{"error_code": "APIGW.0306", "error_msg": "API access denied", "request_id": "5f1c0f4e9b2a4c1d"}',
    "Incorrect IAM authentication information: verify aksk signature fail",
    "Incorrect IAM authentication information: AK access failed to reach the limit,forbidden",
    "ModelArts.0010 internal error; ModelArts.2775 job not found; EL0004 / ERR99999",
    "You do not have sufficient permissions.",
    "exit code 137 (SIGKILL); exit_code=139; reason: OOMKilled",
    # Identifiers, versions, times, paths
    "workload a1b2c3d4-0000-4000-8000-000000000001 on cluster 7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "project_id 0123456789abcdef0123456789abcdef",
    "torch 2.1.0+cu121, CUDA 12.1, cuDNN 8.9.2.26, driver 535.104.05, NCCL 2.18.1, Run:ai 1.224.0, sm_80",
    "pip install nvidia-cudnn-cu12==8.9.2.26 libcudnn8=8.9.2.26-1+cuda12.1",
    "2024-05-01T10:04:10.123+08:00 step 1200 at 10:04:10, 2025-01-01 00:00:00Z, X-Sdk-Date 20250101T000000Z",
    "/home/user/.hcloud/config.json /workspace/data/train.jsonl C:\\Users\\me\\.hcloud\\config.json",
    "python train.py --max_new_tokens 128 --tokenizer gpt2 --author team --authority local",
    "max_new_tokens=256 tokenizer=llama num_tokens: 4096",
    "PWD=/workspace/run-3 HOME=/root",
    "auth_url=https://iam.cn-north-4.myhuaweicloud.com/v3 --password-file /run/secrets/db",
    "slice x[1::2] and x[::-1] and std::vector<int>",
    'Bearer realm="https://auth.example.com/token",service="registry"',
    "use a bearer token from the service account",
    "secrets are masked as [MASKED:token]",
    # Near the held-out corpus's shapes, and none of them a secret: what the new rules must leave.
    "git checkout 3f2a9c1e7b5d4f8a6c0e2b4d6f8a1c3e5b7d9f0a && pip install -e .",
    "pulled registry.example.com/team/trainer@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Successfully built 3f2a9c1e7b5d image sha256:4bf5a3c2e1d0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4",
    "job 7c9e6679-7425-40de-944b-e07fc1f90ae7 commit 5d41402abc4b2a76b9719d911017c592aa7e3f01 (HEAD -> main)",
    "NCCL INFO comm 0x55d5c8e0 rank 0 nranks 8 cudaDev 0 busId 1b000 commId 0x3f2a9c1e7b5d4f8a - Init COMPLETE",
    'data: {"payload": "eyJtZXNzYWdlIjoiaGVsbG8ifQ==", "encoding": "base64"}',
    "docker run -u 1000:1000 -p 8080:80 --gpus all trainer:1.4.2",
    "ssh -p 2222 ma-user@worker-1 and python -u train.py --epochs 3",
    "mysql -h db.internal -u trainer -p mlmeta (it prompts for the password)",
    "curl -u admin https://registry.internal/v2/_catalog prompts for the password",
    "wandb: Currently logged in as: mluser (team). Use `wandb login --relogin` to force relogin",
    "wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc",
    "machine learning pipeline on machine worker-1 finished",
    "forward pass took 12 ms; backward pass 30 ms; loss scale 65536; KeyError: 'attention_mask'",
    'Missing key(s) in state_dict: "lm_head.weight". Unexpected key(s): "model.norm.bias"',
    "loaded token embeddings from /models/llama/tokenizer.model (32000 tokens)",
    "密码错误，请重试；令牌已过期：请重新获取；密钥长度：2048",
    "パスワードが違います。トークンの有効期限が切れました。",
    "certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwcmRXSmwK",
    "AccountName=mlckpt01;EndpointSuffix=core.windows.net; container ckpt not found",
    "X-Request-Id: 5f1c0f4e9b2a4c1d; X-Subject-Token expired: re-authenticate",
    "ModelArts.4503 training job 3f0c2a1b-8d7e-4c6b-9a5f-1e2d3c4b5a69 failed: exit code 137 (OOMKilled)",
    "CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_SOCKET_IFNAME=eth0 OMP_NUM_THREADS=8 torchrun --nproc_per_node 4",
    "100%|██████████| 4/4 [00:09<00:00,  2.31s/it] 50%|█████     | 2/4",
    "the secret was rotated; see the credentials documentation",
    "step 1200/50000 loss=0.2345 tokens/s 11873.2 lr=3e-4 grad_norm=0.98 max_new_tokens=256",
]
