"""Planted secrets for the masking tests (and for adversarial suites that import them).

`PLANTED`: `PlantedSecret(kind, secret, carrier)` cases: `carrier` is text as the product meets it (a
log line, an env dump, a header, JSON, YAML, a URL) that holds `secret`; after `mask(carrier)` the
secret is gone and, except for pre-signed URLs (whose query string is dropped whole), the marker
`[MASKED:<kind>]` stands in its place. Every value is invented.

`UNCHANGED`: text that carries a diagnosis and no secret: `mask` must return it as is.
"""

from __future__ import annotations

from typing import NamedTuple


class PlantedSecret(NamedTuple):
    kind: str
    secret: str
    carrier: str


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
]
