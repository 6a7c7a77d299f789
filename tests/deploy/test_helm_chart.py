"""Render checks of the Helm chart in deploy/helm/diagnose-bot (helm itself is not installable here).

The chart is rendered with tests/deploy/gotemplate.py, which follows Helm's template semantics,
then every manifest is parsed as YAML, round-tripped through the Kubernetes client's models (an
unknown or mistyped field fails, as `kubectl apply --validate=strict` would) and checked for what
an operator would notice: replicas, image, args, probes, where tokens come from, the policy file,
Redis wiring, RBAC, labels, resources and the security context.
"""

from __future__ import annotations

import base64
import posixpath
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes.client import ApiClient

from tests.deploy.gotemplate import (
    GoStruct,
    RenderedChart,
    TemplateError,
    TemplateSet,
    helm_values,
    merge_values,
    render_chart,
    to_yaml,
)

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "diagnose-bot"
CHART_META: dict[str, Any] = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))
DEFAULTS: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))

SECRET_ENV = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "RUNAI_CLIENT_ID",
    "RUNAI_CLIENT_SECRET",
    "HUAWEICLOUD_SDK_AK",
    "HUAWEICLOUD_SDK_SK",
    "HUAWEICLOUD_SDK_PROJECT_ID",
)
STANDARD_LABELS = (
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/component",
    "helm.sh/chart",
)
FAKE_TOKENS = {
    "SLACK_BOT_TOKEN": "xoxb-1111-2222-fakebottoken",
    "SLACK_SIGNING_SECRET": "fake0signing0secret0abcdef",
    "SLACK_APP_TOKEN": "xapp-1-A111-fakeapptoken",
    "RUNAI_CLIENT_SECRET": "fake-runai-client-secret-9f8e",
    "HUAWEICLOUD_SDK_SK": "FakeSecretKeyForModelArts0123",
}

VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "replicas-3-redis": {"replicaCount": 3, "redis": {"enabled": True}},
    "socket": {"mode": "socket", "secrets": {"values": FAKE_TOKENS}},
    "existing-secret": {"secrets": {"create": False, "existingSecret": "team-diagnose-tokens"}},
    "tier2": {"rbac": {"tier2": {"enabled": True}}},
    "external-redis": {"replicaCount": 2, "externalRedis": {"url": "redis://:redispw@redis.example:6379/0"}},
    "tokens-set": {"secrets": {"values": FAKE_TOKENS}, "runai": {"url": "https://acme.run.ai"}},
}


# --------------------------------------------------------------------------------------------
# helpers


def render(values: dict[str, Any] | None = None, **options: Any) -> RenderedChart:
    return render_chart(CHART, values=values, **options)


def documents_of(kind: str, rendered: RenderedChart) -> list[dict[str, Any]]:
    return [doc for doc in rendered.documents() if doc["kind"] == kind]


def bot_deployment(rendered: RenderedChart) -> dict[str, Any]:
    (deployment,) = [
        doc
        for doc in documents_of("Deployment", rendered)
        if doc["metadata"]["labels"]["app.kubernetes.io/component"] == "bot"
    ]
    return deployment


def redis_deployment(rendered: RenderedChart) -> dict[str, Any]:
    (deployment,) = [
        doc
        for doc in documents_of("Deployment", rendered)
        if doc["metadata"]["labels"]["app.kubernetes.io/component"] == "redis"
    ]
    return deployment


def bot_container(rendered: RenderedChart) -> dict[str, Any]:
    (container,) = bot_deployment(rendered)["spec"]["template"]["spec"]["containers"]
    return container


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def single(kind: str, rendered: RenderedChart) -> dict[str, Any]:
    (document,) = documents_of(kind, rendered)
    return document


def drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: drop_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_none(item) for item in value]
    return value


CLUSTER_SCOPED = ("ClusterRole", "ClusterRoleBinding")
MODEL_OF_KIND = {
    "Deployment": "V1Deployment",
    "Service": "V1Service",
    "ConfigMap": "V1ConfigMap",
    "Secret": "V1Secret",
    "ServiceAccount": "V1ServiceAccount",
    "ClusterRole": "V1ClusterRole",
    "ClusterRoleBinding": "V1ClusterRoleBinding",
    "PodDisruptionBudget": "V1PodDisruptionBudget",
}


def kubernetes_round_trip(document: dict[str, Any]) -> Any:
    """The document as the Kubernetes models see it: unknown fields vanish, types are coerced."""
    client = ApiClient()
    model = client._ApiClient__deserialize(document, MODEL_OF_KIND[document["kind"]])  # type: ignore[attr-defined]
    return client.sanitize_for_serialization(model)


# --------------------------------------------------------------------------------------------
# every variant: valid Kubernetes objects, labels, cross-references


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_object_is_a_valid_kubernetes_object_with_the_standard_labels(variant: str) -> None:
    rendered = render(VARIANTS[variant])
    documents = rendered.documents()
    assert documents, "the chart rendered nothing"
    for document in documents:
        where = f"{document['kind']}/{document['metadata']['name']}"
        assert document["kind"] in MODEL_OF_KIND, f"unexpected kind {where}"
        assert kubernetes_round_trip(document) == drop_none(document), f"unknown or mistyped field in {where}"
        name = document["metadata"]["name"]
        limit = 253 if document["kind"] in CLUSTER_SCOPED else 63
        assert len(name) <= limit and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name), where
        labelled = [document["metadata"]["labels"]]
        if document["kind"] == "Deployment":  # the pods too, so `kubectl get pods -l` finds them
            labelled.append(document["spec"]["template"]["metadata"]["labels"])
        for labels in labelled:
            for label in STANDARD_LABELS:
                assert labels.get(label), f"{where} lacks label {label}"
            assert labels["app.kubernetes.io/version"] == CHART_META["appVersion"]
            assert labels["app.kubernetes.io/managed-by"] == "Helm"
            assert labels["helm.sh/chart"] == f"{CHART_META['name']}-{CHART_META['version']}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_references_between_objects_resolve(variant: str) -> None:
    """What leaves a pod Pending or in CreateContainerConfigError: names that point nowhere."""
    values = VARIANTS[variant]
    rendered = render(values)
    names = {(doc["kind"], doc["metadata"]["name"]) for doc in rendered.documents()}
    existing_secret = merge_values(DEFAULTS, values)["secrets"]["existingSecret"]
    for deployment in documents_of("Deployment", rendered):
        pod = deployment["spec"]["template"]
        selector = deployment["spec"]["selector"]["matchLabels"]
        assert selector.items() <= pod["metadata"]["labels"].items()
        volumes = {volume["name"]: volume for volume in pod["spec"]["volumes"]}
        for container in pod["spec"]["containers"]:
            port_names = {port["name"] for port in container.get("ports", [])}
            for probe in ("livenessProbe", "readinessProbe"):
                for action in ("httpGet", "tcpSocket"):
                    if action in container.get(probe, {}):
                        assert container[probe][action]["port"] in port_names
            for mount in container["volumeMounts"]:
                assert mount["name"] in volumes
            for entry in container.get("env", []):
                reference = entry.get("valueFrom", {}).get("secretKeyRef")
                if reference is not None:
                    assert ("Secret", reference["name"]) in names or reference["name"] in (
                        existing_secret,
                        values.get("externalRedis", {}).get("existingSecret"),
                    )
        for volume in volumes.values():
            if "configMap" in volume:
                assert ("ConfigMap", volume["configMap"]["name"]) in names
        account = pod["spec"].get("serviceAccountName")
        if account is not None:
            assert ("ServiceAccount", account) in names
    bot_pod_labels = bot_deployment(rendered)["spec"]["template"]["metadata"]["labels"]
    for service in documents_of("Service", rendered):
        chosen = [
            deployment["metadata"]["name"]
            for deployment in documents_of("Deployment", rendered)
            if service["spec"]["selector"].items()
            <= deployment["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert len(chosen) == 1, f"Service {service['metadata']['name']} selects {chosen}"
    for budget in documents_of("PodDisruptionBudget", rendered):
        assert budget["spec"]["selector"]["matchLabels"].items() <= bot_pod_labels.items()


# --------------------------------------------------------------------------------------------
# the bot Deployment


def test_default_release_runs_one_http_replica_of_the_app_version() -> None:
    rendered = render()
    deployment = bot_deployment(rendered)
    container = bot_container(rendered)
    assert deployment["spec"]["replicas"] == 1
    assert container["image"] == f"diagnose-bot:{CHART_META['appVersion']}"
    assert container["args"] == ["bot", "--http", "--port", "3000"]
    kinds = sorted(doc["kind"] for doc in rendered.documents())
    assert kinds == ["ConfigMap", "Deployment", "Secret", "Service", "ServiceAccount"]


def test_image_tag_and_extra_args_come_from_values() -> None:
    container = bot_container(
        render(
            {
                "image": {"repository": "registry.example/ml/diagnose-bot", "tag": "2024.06.1"},
                "extraArgs": ["--bundles", "/srv/bundles"],
            }
        )
    )
    assert container["image"] == "registry.example/ml/diagnose-bot:2024.06.1"
    assert container["args"] == ["bot", "--http", "--port", "3000", "--bundles", "/srv/bundles"]


@pytest.mark.parametrize("container_port", [3000, 8080])
def test_probes_call_healthz_on_the_port_the_bot_listens_on(container_port: int) -> None:
    rendered = render({"containerPort": container_port})
    container = bot_container(rendered)
    listen_port = int(container["args"][container["args"].index("--port") + 1])
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert listen_port == container_port
    for probe in ("livenessProbe", "readinessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz"
        assert ports[container[probe]["httpGet"]["port"]] == listen_port
        assert container[probe]["periodSeconds"] > 0
    service = single("Service", rendered)
    (service_port,) = service["spec"]["ports"]
    assert ports[service_port["targetPort"]] == listen_port


def test_tokens_and_keys_come_only_from_the_secret() -> None:
    rendered = render(VARIANTS["tokens-set"])
    secret = single("Secret", rendered)
    env = env_of(bot_container(rendered))
    for name in SECRET_ENV:
        if name == "SLACK_APP_TOKEN":  # Socket Mode only
            assert name not in env
            continue
        assert "value" not in env[name], f"{name} is inline"
        reference = env[name]["valueFrom"]["secretKeyRef"]
        assert reference == {
            "name": secret["metadata"]["name"],
            "key": name,
            **({"optional": True} if not name.startswith("SLACK_") else {}),
        }
    decoded = {key: base64.b64decode(value).decode() for key, value in secret["data"].items()}
    assert decoded == FAKE_TOKENS  # the empty ones are left out
    assert env["RUNAI_URL"] == {"name": "RUNAI_URL", "value": "https://acme.run.ai"}


@pytest.mark.parametrize("variant", ["tokens-set", "socket", "external-redis"])
def test_no_secret_value_appears_in_clear_anywhere(variant: str) -> None:
    values = VARIANTS[variant]
    rendered = render(values)
    secrets = list(merge_values(DEFAULTS, values)["secrets"]["values"].values())
    secrets += [values.get("externalRedis", {}).get("url", "")]
    secrets = [secret for secret in secrets if secret]
    assert secrets
    secret_document = yaml.safe_dump(single("Secret", rendered))
    for secret in secrets:
        encoded = base64.b64encode(secret.encode()).decode()
        assert secret not in rendered.notes
        for path, text in rendered.manifests.items():
            assert secret not in text, f"{path} holds a secret in clear"
            if not path.endswith("/secret.yaml"):
                assert encoded not in text, f"{path} holds a secret outside the Secret"
        assert encoded in secret_document
    for document in rendered.documents():
        if document["kind"] == "ConfigMap":
            assert not any(secret in yaml.safe_dump(document) for secret in secrets)


def test_a_numeric_secret_value_fails_instead_of_being_mangled() -> None:
    # Helm reads 12345678 as a float64 that would print as 1.2345678e+07: quote such values.
    with pytest.raises(TemplateError, match="b64enc: wrong type for value; expected string; got float64"):
        render({"secrets": {"values": {"RUNAI_CLIENT_ID": 12345678}}})
    secret = single("Secret", render({"secrets": {"values": {"RUNAI_CLIENT_ID": "12345678"}}}))
    assert base64.b64decode(secret["data"]["RUNAI_CLIENT_ID"]) == b"12345678"


def test_empty_token_values_are_left_out_of_the_secret_and_the_notes_say_so() -> None:
    rendered = render()
    assert single("Secret", rendered).get("data") in (None, {})
    assert "SLACK_BOT_TOKEN is empty" in rendered.notes
    assert "SLACK_SIGNING_SECRET is empty" in rendered.notes
    with_tokens = render(VARIANTS["tokens-set"])
    assert "WARNING" not in with_tokens.notes


def test_existing_secret_is_referenced_and_no_secret_is_rendered() -> None:
    rendered = render(VARIANTS["existing-secret"])
    assert documents_of("Secret", rendered) == []
    env = env_of(bot_container(rendered))
    referenced = {
        entry["valueFrom"]["secretKeyRef"]["name"]
        for entry in env.values()
        if "secretKeyRef" in entry.get("valueFrom", {})
    }
    assert referenced == {"team-diagnose-tokens"}
    assert "checksum/secret" not in bot_deployment(rendered)["spec"]["template"]["metadata"]["annotations"]
    assert "team-diagnose-tokens" in rendered.notes


def test_existing_secret_without_a_name_fails_with_a_clear_message() -> None:
    with pytest.raises(TemplateError, match=r"execution error at .*secrets\.existingSecret is required"):
        render({"secrets": {"create": False}})


def test_policy_configmap_holds_the_policy_and_is_mounted_at_diagnose_policy() -> None:
    policy = {
        "demo_only": False,
        "languages": {"C0123ABC": "zh"},
        "rules": [{"channels": ["C0123ABC"], "platforms": ["runai"], "projects": ["vision-lab"]}],
        "cluster_aliases": {"équipe-ML-機械学習": "4a9e2c17-5b3d-4f80-9c61-2d7be0f4a315"},
    }
    rendered = render({"policy": policy})
    configmap = single("ConfigMap", rendered)
    deployment = bot_deployment(rendered)
    container = bot_container(rendered)
    policy_path = env_of(container)["DIAGNOSE_POLICY"]["value"]
    directory, file_name = posixpath.split(policy_path)
    (mount,) = [mount for mount in container["volumeMounts"] if mount["mountPath"] == directory]
    assert mount["readOnly"] is True
    (volume,) = [v for v in deployment["spec"]["template"]["spec"]["volumes"] if v["name"] == mount["name"]]
    assert volume["configMap"]["name"] == configmap["metadata"]["name"]
    (item,) = volume["configMap"]["items"]
    assert item["path"] == file_name
    assert yaml.safe_load(configmap["data"][item["key"]]) == policy
    assert bot_reads(configmap["data"][item["key"]], tmp_path=None).demo_only is False


def bot_reads(document: str, *, tmp_path: Any) -> Any:
    """The rendered policy as the bot itself loads it (a chart default the bot rejects is a bug)."""
    import tempfile

    from bot.policy import load_policy

    with tempfile.TemporaryDirectory() as folder:
        path = posixpath.join(folder, "policy.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(document)
        return load_policy(path)


def test_default_policy_allows_no_live_platform() -> None:
    configmap = single("ConfigMap", render())
    assert yaml.safe_load(configmap["data"]["policy.yaml"]) == DEFAULTS["policy"]
    assert bot_reads(configmap["data"]["policy.yaml"], tmp_path=None).demo_only is True


def test_a_changed_policy_rolls_the_pods() -> None:
    def policy_checksum(policy: dict[str, Any]) -> str:
        deployment = bot_deployment(render({"policy": policy}))
        checksum: str = deployment["spec"]["template"]["metadata"]["annotations"]["checksum/policy"]
        return checksum

    first = policy_checksum({"demo_only": True})
    assert first == policy_checksum({"demo_only": True})
    assert first != policy_checksum({"demo_only": False, "rules": [{"platforms": ["runai"]}]})


def test_resources_have_requests_and_a_memory_limit() -> None:
    rendered = render(VARIANTS["replicas-3-redis"])
    bot = bot_container(rendered)["resources"]
    assert bot["requests"] == {"cpu": "250m", "memory": "640Mi"}
    assert bot["limits"]["memory"] == "1536Mi"
    (redis,) = redis_deployment(rendered)["spec"]["template"]["spec"]["containers"]
    assert redis["resources"]["requests"]["cpu"] and redis["resources"]["requests"]["memory"]
    assert redis["resources"]["limits"]["memory"]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_containers_run_non_root_read_only_without_capabilities(variant: str) -> None:
    rendered = render(VARIANTS[variant])
    for deployment in documents_of("Deployment", rendered):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] > 0
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"] == {"drop": ["ALL"]}
    pod = bot_deployment(rendered)["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == 10001
    assert bot_container(rendered)["securityContext"]["runAsUser"] == 10001


def test_writable_paths_are_emptydirs_and_the_state_dir_is_one_of_them() -> None:
    rendered = render()
    container = bot_container(rendered)
    volumes = {v["name"]: v for v in bot_deployment(rendered)["spec"]["template"]["spec"]["volumes"]}
    writable = {
        mount["mountPath"]: volumes[mount["name"]]
        for mount in container["volumeMounts"]
        if not mount.get("readOnly")
    }
    state_dir = env_of(container)["DIAGNOSE_STATE_DIR"]["value"]
    assert set(writable) == {"/tmp", state_dir}
    assert all(volume["emptyDir"] == {} for volume in writable.values())


# --------------------------------------------------------------------------------------------
# replicas and Redis


def test_three_replicas_with_bundled_redis() -> None:
    rendered = render(VARIANTS["replicas-3-redis"])
    assert bot_deployment(rendered)["spec"]["replicas"] == 3
    redis_url = env_of(bot_container(rendered))["REDIS_URL"]["value"]
    match = re.fullmatch(r"redis://([a-z0-9-]+):(\d+)/0", redis_url)
    assert match is not None, redis_url
    (redis_service,) = [s for s in documents_of("Service", rendered) if s["metadata"]["name"] == match[1]]
    assert redis_service["spec"]["ports"][0]["port"] == int(match[2])
    redis_pod_labels = redis_deployment(rendered)["spec"]["template"]["metadata"]["labels"]
    assert redis_service["spec"]["selector"].items() <= redis_pod_labels.items()
    (redis,) = redis_deployment(rendered)["spec"]["template"]["spec"]["containers"]
    assert {"name": "data", "mountPath": "/data"} in redis["volumeMounts"]
    assert redis["readinessProbe"]["exec"]["command"][0] == "redis-cli"


def test_several_replicas_get_a_disruption_budget_and_spread_over_nodes() -> None:
    rendered = render(VARIANTS["replicas-3-redis"])
    budget = single("PodDisruptionBudget", rendered)
    assert budget["spec"]["maxUnavailable"] == 1
    (spread,) = bot_deployment(rendered)["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert spread["topologyKey"] == "kubernetes.io/hostname"
    assert spread["whenUnsatisfiable"] == "ScheduleAnyway"
    pod_labels = bot_deployment(rendered)["spec"]["template"]["metadata"]["labels"]
    assert spread["labelSelector"]["matchLabels"].items() <= pod_labels.items()
    single_replica = render()
    assert documents_of("PodDisruptionBudget", single_replica) == []
    assert "topologySpreadConstraints" not in bot_deployment(single_replica)["spec"]["template"]["spec"]
    assert "REDIS_URL" not in env_of(bot_container(single_replica))


def test_several_replicas_without_redis_fail_with_a_clear_message() -> None:
    with pytest.raises(TemplateError) as failure:
        render({"replicaCount": 3})
    message = str(failure.value)
    assert message.startswith("execution error at (diagnose-bot/templates/")
    assert "replicaCount > 1 needs a shared Redis" in message
    assert "redis.enabled=true" in message and "externalRedis.url" in message


def test_external_redis_url_goes_through_the_secret() -> None:
    values = VARIANTS["external-redis"]
    rendered = render(values)
    reference = env_of(bot_container(rendered))["REDIS_URL"]["valueFrom"]["secretKeyRef"]
    secret = single("Secret", rendered)
    assert reference == {"name": secret["metadata"]["name"], "key": "REDIS_URL"}
    assert base64.b64decode(secret["data"]["REDIS_URL"]).decode() == values["externalRedis"]["url"]
    assert documents_of("PodDisruptionBudget", rendered)


def test_external_redis_from_an_existing_secret() -> None:
    rendered = render(
        {"replicaCount": 2, "externalRedis": {"existingSecret": "shared-redis", "existingSecretKey": "url"}}
    )
    reference = env_of(bot_container(rendered))["REDIS_URL"]["valueFrom"]["secretKeyRef"]
    assert reference == {"name": "shared-redis", "key": "url"}
    assert "REDIS_URL" not in (single("Secret", rendered).get("data") or {})


def test_external_redis_url_without_the_charts_secret_fails_clearly() -> None:
    values = {
        "secrets": {"create": False, "existingSecret": "tokens"},
        "externalRedis": {"url": "redis://r:6379/0"},
    }
    with pytest.raises(TemplateError, match=r"externalRedis\.existingSecret instead"):
        render(values)


# --------------------------------------------------------------------------------------------
# Socket Mode


def test_socket_mode_is_one_replica_without_service_or_http_probes() -> None:
    rendered = render({"mode": "socket", "replicaCount": 3})  # no Redis needed: forced to 1
    deployment = bot_deployment(rendered)
    container = bot_container(rendered)
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert container["args"] == ["bot"]
    assert "ports" not in container
    assert "livenessProbe" not in container and "readinessProbe" not in container
    assert documents_of("Service", rendered) == []
    assert documents_of("PodDisruptionBudget", rendered) == []
    env = env_of(container)
    assert env["SLACK_APP_TOKEN"]["valueFrom"]["secretKeyRef"]["key"] == "SLACK_APP_TOKEN"
    assert "SLACK_SIGNING_SECRET" not in env
    assert "Socket Mode" in rendered.notes


def test_an_unknown_mode_fails_with_a_clear_message() -> None:
    with pytest.raises(TemplateError, match=r'mode must be "http" or "socket" \(got websocket\)'):
        render({"mode": "websocket"})


# --------------------------------------------------------------------------------------------
# Tier-2 RBAC


def test_tier2_rbac_is_read_only_and_bound_to_the_bots_service_account() -> None:
    rendered = render(VARIANTS["tier2"], namespace="ml-ops")
    role = single("ClusterRole", rendered)
    granted: dict[str, set[str]] = {}
    for rule in role["rules"]:
        assert rule["apiGroups"] == [""]
        for resource in rule["resources"]:
            granted.setdefault(resource, set()).update(rule["verbs"])
    assert granted == {
        "pods": {"get", "list"},
        "pods/log": {"get", "list"},
        "events": {"get", "list"},
        "nodes": {"get"},
    }
    binding = single("ClusterRoleBinding", rendered)
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": role["metadata"]["name"],
    }
    pod = bot_deployment(rendered)["spec"]["template"]["spec"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": pod["serviceAccountName"], "namespace": "ml-ops"}
    ]
    assert pod["automountServiceAccountToken"] is True


def test_without_tier2_there_is_no_rbac_and_no_api_token_in_the_pod() -> None:
    rendered = render()
    assert documents_of("ClusterRole", rendered) == []
    assert documents_of("ClusterRoleBinding", rendered) == []
    assert bot_deployment(rendered)["spec"]["template"]["spec"]["automountServiceAccountToken"] is False
    assert single("ServiceAccount", rendered)["automountServiceAccountToken"] is False


def test_cluster_role_names_differ_between_namespaces() -> None:
    first = single("ClusterRole", render(VARIANTS["tier2"], namespace="team-a"))
    second = single("ClusterRole", render(VARIANTS["tier2"], namespace="team-b"))
    assert first["metadata"]["name"] != second["metadata"]["name"]


# --------------------------------------------------------------------------------------------
# naming


def test_long_release_names_are_cut_to_valid_kubernetes_names() -> None:
    values = merge_values(VARIANTS["replicas-3-redis"], VARIANTS["tier2"])
    rendered = render(values, release_name="a-very-long-release-name-for-the-ml-platform-team-x")
    names = [(doc["kind"], doc["metadata"]["name"]) for doc in rendered.documents()]
    for kind, name in names:
        if kind not in CLUSTER_SCOPED:
            assert len(name) <= 63 and not name.endswith("-"), name
    assert len(set(names)) == len(names), names
    deployments = [name for kind, name in names if kind == "Deployment"]
    assert len(set(deployments)) == 2, deployments


def test_release_named_like_the_chart_is_not_doubled() -> None:
    assert bot_deployment(render(release_name="diagnose-bot"))["metadata"]["name"] == "diagnose-bot"
    assert bot_deployment(render(release_name="prod"))["metadata"]["name"] == "prod-diagnose-bot"


# --------------------------------------------------------------------------------------------
# properties: what the operator puts in values comes out unchanged


# Printable text: PyYAML itself cannot round-trip control and line-separator characters (e.g. U+0085).
_text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20)
_scalars = st.one_of(_text, st.integers(-(10**6), 10**6), st.booleans(), st.none())
_policies = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(_text.filter(bool), children, max_size=4),
    ),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None)
@given(rules=_policies)
def test_any_policy_document_reaches_the_configmap_verbatim(rules: Any) -> None:
    # Helm merges the operator's `policy:` over the chart's default key by key.
    configmap = single("ConfigMap", render({"policy": {"rules": rules}}))
    # Helm's merge: a null the operator writes removes that key from the defaults.
    expected = merge_values(DEFAULTS["policy"], {"rules": rules})
    assert yaml.safe_load(configmap["data"]["policy.yaml"]) == expected


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40))
def test_quote_produces_yaml_that_reads_back_as_the_same_string(text: str) -> None:
    templates = TemplateSet()
    templates.add("t", "value: {{ .Values.s | quote }}\n")
    assert yaml.safe_load(templates.render("t", {"Values": {"s": text}})) == {"value": text}


# --------------------------------------------------------------------------------------------
# the renderer itself


def run(source: str, values: dict[str, Any] | None = None, **data: Any) -> str:
    templates = TemplateSet()
    templates.add("t", source)
    return templates.render("t", {"Values": helm_values(values or {}), **data})


def test_whitespace_trim_markers_remove_adjacent_whitespace_and_newlines() -> None:
    assert run("a  {{- 1 -}}  \n b") == "a1b"
    assert run("a  {{ 1 }}  b") == "a  1  b"
    assert run("x:\n  {{- /* a comment */}}\ny") == "x:\ny"


def test_missing_values_print_empty_but_fields_of_missing_values_fail_like_helm() -> None:
    assert run("[{{ .Values.nothing }}]") == "[]"
    with pytest.raises(TemplateError, match=r"nil pointer evaluating interface \{\}\.port"):
        run("{{ .Values.redis.port }}")


def test_values_numbers_behave_as_helms_float64() -> None:
    assert run("{{ .Values.n }}", {"n": 3}) == "3"
    assert run("{{ .Values.n }}", {"n": 1000000}) == "1e+06"  # the well-known Helm surprise
    assert run("{{ int .Values.n }}", {"n": 1000000}) == "1000000"
    with pytest.raises(TemplateError, match="incompatible types for comparison"):
        run("{{ gt .Values.n 1 }}", {"n": 3})
    assert run("{{ gt (int .Values.n) 1 }}", {"n": 3}) == "true"


def test_conditionals_with_and_range() -> None:
    source = (
        '{{ if eq .Values.m "a" }}A{{ else if eq .Values.m "b" }}B{{ else }}other{{ end }}'
        "|{{ with .Values.w }}{{ .x }}{{ else }}none{{ end }}"
        "|{{ range $k, $v := .Values.map }}{{ $k }}={{ $v }};{{ end }}"
        "|{{ range .Values.list }}<{{ . }}>{{ else }}empty{{ end }}"
    )
    values = {"m": "b", "w": {"x": "wx"}, "map": {"z": 1, "a": "s"}, "list": ["p", "q"]}
    assert run(source, values) == "B|wx|a=s;z=1;|<p><q>"
    assert run(source, {"m": "c", "w": {}, "map": {}, "list": []}) == "other|none||empty"


def test_define_include_and_indentation() -> None:
    source = (
        '{{- define "labels" -}}\na: {{ .a }}\nb: x\n{{- end }}'
        'meta:\n  labels:\n    {{- include "labels" .Values | nindent 4 }}\n'
        "list:\n{{ toYaml .Values.l | indent 2 }}\n"
    )
    rendered = run(source, {"a": "one", "l": ["x", {"k": "v"}]})
    assert yaml.safe_load(rendered) == {"meta": {"labels": {"a": "one", "b": "x"}}, "list": ["x", {"k": "v"}]}


def test_toyaml_sorts_keys_and_drops_the_final_newline() -> None:
    assert to_yaml({"b": 1.0, "a": [True, None]}) == "a:\n- true\n- null\nb: 1"
    assert to_yaml({}) == "{}"
    assert to_yaml("plain") == "plain"


def test_sprig_string_functions() -> None:
    assert run('{{ "a\\"b" | quote }} {{ quote .Values.gone }}') == '"a\\"b" '
    assert (
        run(
            '{{ .Values.e | default "d" }}{{ .Values.z | default "d" }}{{ "x" | default "d" }}',
            {"e": "", "z": 0},
        )
        == "ddx"
    )
    assert run('{{ printf "%s-%d-%v" "a" 7 true }}') == "a-7-true"
    assert run('{{ printf "%d" .Values.n }}', {"n": 3}) == "%!d(float64=3)"
    assert run('{{ "abcdef-" | trunc 7 | trimSuffix "-" }} {{ trunc 3 "abcdef" }}') == "abcdef abc"
    assert run('{{ "s3cr3t" | b64enc }}') == base64.b64encode(b"s3cr3t").decode()
    assert run('{{ contains "bot" "diagnose-bot" }} {{ not (contains "x" "y") }}') == "true true"
    assert run('{{ and 1 0 }} {{ or 0 "" "z" }} {{ len .Values.l }}', {"l": [1, 2]}) == "0 z 2"


def test_required_and_fail_stop_rendering_with_the_message_and_position() -> None:
    with pytest.raises(TemplateError, match=r"^execution error at \(t:2:\d+\): need a token$"):
        run('ok\n{{ required "need a token" .Values.token }}')
    assert run('{{ required "need a token" .Values.token }}', {"token": "t"}) == "t"
    with pytest.raises(TemplateError, match=r"^execution error at \(t:1:\d+\): stop here$"):
        run('{{ fail "stop here" }}')


def test_type_errors_that_helm_reports_are_reported() -> None:
    with pytest.raises(TemplateError, match="expected string; got map"):
        run("{{ .Values.m | nindent 2 }}", {"m": {"a": 1}})
    with pytest.raises(TemplateError, match="expected int; got float64"):
        run('{{ indent .Values.n "x" }}', {"n": 2})


def test_variables_are_scoped_to_their_block() -> None:
    assert run("{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ $y := 3 }}{{ $y }}{{ end }}{{ $x }}") == "32"
    with pytest.raises(TemplateError, match=r"undefined variable: \$y"):
        run("{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}")
    assert run("{{ with .Values.a }}{{ $.Values.b }}{{ end }}", {"a": "x", "b": "root"}) == "root"


def test_templates_outside_the_subset_do_not_parse() -> None:
    with pytest.raises(TemplateError, match='function "upper" not defined'):
        run("{{ upper .Values.a }}")
    with pytest.raises(TemplateError, match="missing"):
        run("{{ if .Values.a }}never closed")
    with pytest.raises(TemplateError, match="unexpected"):
        run("{{ end }}")


def test_unknown_release_field_is_an_error_not_an_empty_string() -> None:
    templates = TemplateSet()
    templates.add("t", "{{ .Release.Nmae }}")
    with pytest.raises(TemplateError, match="can't evaluate field Nmae"):
        templates.render("t", GoStruct("chartutil.Values", {"Release": GoStruct("release", {"Name": "r"})}))


def test_merge_values_overrides_deeply_and_null_removes_a_default_key() -> None:
    merged = merge_values({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 9}, "d": None, "e": None})
    assert merged == {"a": {"b": 9, "c": 2}, "e": None}
    assert yaml.safe_load(
        single("ConfigMap", render({"policy": {"demo_only": None}}))["data"]["policy.yaml"]
    ) == {"rules": []}


@pytest.mark.parametrize(("web", "work"), [(2, 1), (4, 2), (1, 0)])
def test_http_mode_sets_the_web_and_work_process_counts_the_cli_reads(
    web: int, work: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    from cli.bot import register

    env = env_of(bot_container(render({"processes": {"web": web, "work": work}})))
    for name, entry in env.items():
        if name.startswith("DIAGNOSE_BOT_"):
            monkeypatch.setenv(name, entry["value"])
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["bot", "--http"])
    assert (args.workers, args.work_processes) == (web, work)


def test_socket_mode_sets_no_process_counts() -> None:
    env = env_of(bot_container(render({"mode": "socket"})))
    assert not [name for name in env if name.endswith("_PROCESSES")]
