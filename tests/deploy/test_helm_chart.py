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
    "replicas-3-redis": {
        "web": {"replicas": 3},
        "worker": {"replicas": 2},
        "redis": {"enabled": True},
        "secrets": {"values": {"REDIS_PASSWORD": "fake-redis-password-7b3"}},
    },
    "socket": {"mode": "socket", "secrets": {"values": FAKE_TOKENS}},
    "existing-secret": {"secrets": {"create": False, "existingSecret": "team-diagnose-tokens"}},
    "tier2": {"rbac": {"tier2": {"enabled": True}}},
    "external-redis": {
        "web": {"replicas": 2},
        "externalRedis": {"url": "redis://:redispw@redis.example:6379/0"},
    },
    "ingress": {
        "ingress": {"enabled": True, "host": "diagnose.example.com", "tlsSecretName": "diagnose-tls"}
    },
    "tokens-set": {"secrets": {"values": FAKE_TOKENS}, "runai": {"url": "https://acme.run.ai"}},
}


# --------------------------------------------------------------------------------------------
# helpers


def render(values: dict[str, Any] | None = None, **options: Any) -> RenderedChart:
    return render_chart(CHART, values=values, **options)


def documents_of(kind: str, rendered: RenderedChart) -> list[dict[str, Any]]:
    return [doc for doc in rendered.documents() if doc["kind"] == kind]


def deployment_of(component: str, rendered: RenderedChart) -> dict[str, Any]:
    (deployment,) = [
        doc
        for doc in documents_of("Deployment", rendered)
        if doc["metadata"]["labels"]["app.kubernetes.io/component"] == component
    ]
    return deployment


def bot_deployment(rendered: RenderedChart) -> dict[str, Any]:
    """The Deployment of the web side: the single pod with SQLite ("bot"), "web" with Redis."""
    (deployment,) = [
        doc
        for doc in documents_of("Deployment", rendered)
        if doc["metadata"]["labels"]["app.kubernetes.io/component"] in ("bot", "web")
    ]
    return deployment


def worker_deployment(rendered: RenderedChart) -> dict[str, Any]:
    """The Deployment the worker container is in (the single pod's, with SQLite)."""
    found = [doc for doc in documents_of("Deployment", rendered) if "worker" in containers_of(doc)]
    (deployment,) = found
    return deployment


def redis_deployment(rendered: RenderedChart) -> dict[str, Any]:
    return deployment_of("redis", rendered)


def containers_of(deployment: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        container["name"]: container for container in deployment["spec"]["template"]["spec"]["containers"]
    }


def bot_container(rendered: RenderedChart) -> dict[str, Any]:
    """The web side's container (HTTP server or Socket Mode connection)."""
    return containers_of(bot_deployment(rendered))["web"]


def worker_container(rendered: RenderedChart) -> dict[str, Any]:
    return containers_of(worker_deployment(rendered))["worker"]


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
    "PersistentVolumeClaim": "V1PersistentVolumeClaim",
    "NetworkPolicy": "V1NetworkPolicy",
    "Ingress": "V1Ingress",
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
            if "persistentVolumeClaim" in volume:
                assert ("PersistentVolumeClaim", volume["persistentVolumeClaim"]["claimName"]) in names
        account = pod["spec"].get("serviceAccountName")
        if account is not None:
            assert ("ServiceAccount", account) in names
    pods = {
        deployment["metadata"]["name"]: deployment["spec"]["template"]["metadata"]["labels"]
        for deployment in documents_of("Deployment", rendered)
    }
    selectors = [(service["spec"]["selector"], service) for service in documents_of("Service", rendered)]
    selectors += [
        (budget["spec"]["selector"]["matchLabels"], budget)
        for budget in documents_of("PodDisruptionBudget", rendered)
    ]
    for selector, document in selectors:
        chosen = [name for name, labels in pods.items() if selector.items() <= labels.items()]
        assert len(chosen) == 1, f"{document['kind']} {document['metadata']['name']} selects {chosen}"
    for ingress in documents_of("Ingress", rendered):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                assert ("Service", path["backend"]["service"]["name"]) in names


# --------------------------------------------------------------------------------------------
# the bot Deployment


def test_default_release_is_one_pod_with_a_web_and_a_worker_container_on_a_claimed_volume() -> None:
    rendered = render()
    deployment = bot_deployment(rendered)
    containers = containers_of(deployment)
    assert deployment["spec"]["replicas"] == 1
    # Two pods must never hold separate SQLite state: the old pod stops before the new one starts.
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert list(containers) == ["web", "worker"]
    for container in containers.values():
        assert container["image"] == f"diagnose-bot:{CHART_META['appVersion']}"
    assert containers["web"]["args"] == ["bot", "--role", "web", "--http", "--port", "3000", "--threads", "8"]
    assert containers["worker"]["args"] == ["bot", "--role", "worker", "--health-port", "8081"]
    kinds = sorted(doc["kind"] for doc in rendered.documents())
    assert kinds == [
        "ConfigMap",
        "Deployment",
        "PersistentVolumeClaim",
        "Secret",
        "Service",
        "ServiceAccount",
    ]
    claim = single("PersistentVolumeClaim", rendered)
    volumes = {volume["name"]: volume for volume in deployment["spec"]["template"]["spec"]["volumes"]}
    assert volumes["state"] == {
        "name": "state",
        "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]},
    }
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "1Gi"
    for container in containers.values():
        assert {"name": "state", "mountPath": "/var/lib/diagnose"} in container["volumeMounts"]


def test_image_tag_and_extra_args_come_from_values() -> None:
    rendered = render(
        {
            "image": {"repository": "registry.example/ml/diagnose-bot", "tag": "2024.06.1"},
            "extraArgs": ["--bundles", "/srv/bundles"],
        }
    )
    for container in (bot_container(rendered), worker_container(rendered)):
        assert container["image"] == "registry.example/ml/diagnose-bot:2024.06.1"
        assert container["args"][-2:] == ["--bundles", "/srv/bundles"]


def test_the_worker_has_its_own_probes_and_the_thread_counts_the_cli_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.settings import BotSettings

    rendered = render({"worker": {"diagnosisThreads": 6, "chatThreads": 3, "healthPort": 9090}})
    worker = worker_container(rendered)
    ports = {port["name"]: port["containerPort"] for port in worker["ports"]}
    assert int(worker["args"][worker["args"].index("--health-port") + 1]) == 9090
    for probe in ("livenessProbe", "readinessProbe"):
        assert worker[probe]["httpGet"]["path"] == "/healthz"
        assert ports[worker[probe]["httpGet"]["port"]] == 9090
    for name, entry in env_of(worker).items():
        if name.startswith("DIAGNOSE_BOT_"):
            monkeypatch.setenv(name, entry["value"])
    settings = BotSettings()
    assert (settings.diagnosis_slots, settings.chat_threads) == (6, 3)


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
    web = bot_container(rendered)["resources"]
    assert web["requests"] == {"cpu": "100m", "memory": "128Mi"} and web["limits"]["memory"] == "256Mi"
    worker = worker_container(rendered)["resources"]
    assert worker["requests"] == {"cpu": "250m", "memory": "256Mi"} and worker["limits"]["memory"] == "1Gi"
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


@pytest.mark.parametrize("variant", ["default", "replicas-3-redis"])
def test_writable_paths_are_scratch_and_the_state_dir(variant: str) -> None:
    rendered = render(VARIANTS[variant])
    for deployment in (bot_deployment(rendered), worker_deployment(rendered)):
        volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
        for container in containers_of(deployment).values():
            writable = {
                mount["mountPath"]: volumes[mount["name"]]
                for mount in container["volumeMounts"]
                if not mount.get("readOnly")
            }
            state_dir = env_of(container)["DIAGNOSE_STATE_DIR"]["value"]
            assert set(writable) == {"/tmp", state_dir}
            assert writable["/tmp"]["emptyDir"] == {}
            # SQLite: the state on the claimed volume; Redis: the state dir is scratch only.
            kind = "persistentVolumeClaim" if variant == "default" else "emptyDir"
            assert kind in writable[state_dir]


# --------------------------------------------------------------------------------------------
# replicas and Redis


def test_with_bundled_redis_web_and_worker_are_deployments_of_their_own() -> None:
    rendered = render(VARIANTS["replicas-3-redis"])
    web, worker = deployment_of("web", rendered), deployment_of("worker", rendered)
    assert (web["spec"]["replicas"], worker["spec"]["replicas"]) == (3, 2)
    assert list(containers_of(web)) == ["web"] and list(containers_of(worker)) == ["worker"]
    assert web["spec"]["strategy"]["type"] == worker["spec"]["strategy"]["type"] == "RollingUpdate"
    assert documents_of("PersistentVolumeClaim", rendered) == []
    secret = single("Secret", rendered)
    for container in (bot_container(rendered), worker_container(rendered)):
        env = container["env"]
        names = [entry["name"] for entry in env]
        # The password first: Kubernetes expands $(REDIS_PASSWORD) only from entries before it.
        assert names.index("REDIS_PASSWORD") < names.index("REDIS_URL")
        password = env_of(container)["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
        assert password == {"name": secret["metadata"]["name"], "key": "REDIS_PASSWORD"}
        redis_url = env_of(container)["REDIS_URL"]["value"]
        match = re.fullmatch(r"redis://:\$\(REDIS_PASSWORD\)@([a-z0-9-]+):(\d+)/0", redis_url)
        assert match is not None, redis_url
    (redis_service,) = [s for s in documents_of("Service", rendered) if s["metadata"]["name"] == match[1]]
    assert redis_service["spec"]["ports"][0]["port"] == int(match[2])
    redis_pod_labels = redis_deployment(rendered)["spec"]["template"]["metadata"]["labels"]
    assert redis_service["spec"]["selector"].items() <= redis_pod_labels.items()
    (redis,) = redis_deployment(rendered)["spec"]["template"]["spec"]["containers"]
    assert {"name": "data", "mountPath": "/data"} in redis["volumeMounts"]
    assert redis["args"][-2:] == ["--requirepass", "$(REDIS_PASSWORD)"]
    assert env_of(redis)["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]["key"] == "REDIS_PASSWORD"
    assert "REDISCLI_AUTH" in redis["readinessProbe"]["exec"]["command"][-1]
    assert "noeviction" in redis["args"], "queued tasks are never evicted"


def test_only_the_bots_pods_may_reach_the_bundled_redis() -> None:
    rendered = render(VARIANTS["replicas-3-redis"])
    policy = single("NetworkPolicy", rendered)
    redis_pod = redis_deployment(rendered)["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= redis_pod.items()
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    (rule,) = policy["spec"]["ingress"]
    (source,) = rule["from"]
    assert rule["ports"] == [{"port": 6379, "protocol": "TCP"}]

    def admitted(labels: dict[str, str]) -> bool:
        selector = source["podSelector"]
        if not selector["matchLabels"].items() <= labels.items():
            return False
        return all(labels.get(e["key"]) in e["values"] for e in selector.get("matchExpressions", []))

    for deployment in documents_of("Deployment", rendered):
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        expected = labels["app.kubernetes.io/component"] in ("web", "worker")
        assert admitted(labels) == expected, deployment["metadata"]["name"]
    other_release = {**bot_deployment(rendered)["spec"]["template"]["metadata"]["labels"]}
    other_release["app.kubernetes.io/instance"] = "someone-else"
    assert not admitted(other_release)


def test_the_bundled_redis_needs_a_password() -> None:
    with pytest.raises(TemplateError, match=r"redis\.enabled needs a password"):
        render({"redis": {"enabled": True}})
    rendered = render(
        {"redis": {"enabled": True, "auth": {"existingSecret": "redis-auth", "existingSecretKey": "pw"}}}
    )
    reference = env_of(worker_container(rendered))["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert reference == {"name": "redis-auth", "key": "pw"}


def test_several_replicas_get_a_disruption_budget_and_spread_over_nodes() -> None:
    rendered = render(VARIANTS["replicas-3-redis"])
    budgets = documents_of("PodDisruptionBudget", rendered)
    assert len(budgets) == 2 and all(budget["spec"]["maxUnavailable"] == 1 for budget in budgets)
    for deployment in (deployment_of("web", rendered), deployment_of("worker", rendered)):
        (spread,) = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
        assert spread["topologyKey"] == "kubernetes.io/hostname"
        assert spread["whenUnsatisfiable"] == "ScheduleAnyway"
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert spread["labelSelector"]["matchLabels"].items() <= pod_labels.items()
    single_pod = render()
    assert documents_of("PodDisruptionBudget", single_pod) == []
    assert "topologySpreadConstraints" not in bot_deployment(single_pod)["spec"]["template"]["spec"]
    assert "REDIS_URL" not in env_of(bot_container(single_pod))


def test_several_web_replicas_without_redis_fail_with_a_clear_message() -> None:
    with pytest.raises(TemplateError) as failure:
        render({"web": {"replicas": 3}})
    message = str(failure.value)
    assert message.startswith("execution error at (diagnose-bot/templates/")
    assert "web.replicas > 1 needs a shared Redis" in message
    assert "redis.enabled=true" in message and "externalRedis.url" in message
    with pytest.raises(TemplateError, match="state: redis needs a Redis"):
        render({"state": "redis"})


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
        {
            "web": {"replicas": 2},
            "externalRedis": {"existingSecret": "shared-redis", "existingSecretKey": "url"},
        }
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


@pytest.mark.parametrize("values", [{"mode": "socket"}, {"mode": "socket", **VARIANTS["replicas-3-redis"]}])
def test_socket_mode_is_one_connection_without_service_or_http_probes(values: dict[str, Any]) -> None:
    rendered = render(values)
    deployment = bot_deployment(rendered)
    container = bot_container(rendered)
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert container["args"] == ["bot", "--role", "web"]
    assert "ports" not in container
    assert "livenessProbe" not in container and "readinessProbe" not in container
    assert [s["metadata"]["name"] for s in documents_of("Service", rendered)] == (
        [redis_deployment(rendered)["metadata"]["name"]] if "redis" in values else []
    )
    assert [b["metadata"]["name"] for b in documents_of("PodDisruptionBudget", rendered)] == (
        [worker_deployment(rendered)["metadata"]["name"]] if "redis" in values else []
    )
    env = env_of(container)
    assert env["SLACK_APP_TOKEN"]["valueFrom"]["secretKeyRef"]["key"] == "SLACK_APP_TOKEN"
    assert "SLACK_SIGNING_SECRET" not in env
    assert "SLACK_APP_TOKEN" not in env_of(worker_container(rendered)), (
        "the worker talks to Slack's Web API only"
    )
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
    assert len(set(deployments)) == 3, deployments  # web, worker, redis


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
    with pytest.raises(TemplateError, match='function "lower" not defined'):
        run("{{ lower .Values.a }}")
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


def test_modelarts_region_and_endpoints_reach_both_containers_as_the_bot_reads_them() -> None:
    from diagnosis.modelarts.credentials import default_region
    from diagnosis.modelarts.settings import endpoint_for

    values = {
        "modelarts": {
            "region": "ap-southeast-1",
            "endpoints": {"cn-north-4": "https://modelarts-vpc.example.internal"},
        }
    }
    rendered = render(values)
    for container in (bot_container(rendered), worker_container(rendered)):
        env = {name: entry["value"] for name, entry in env_of(container).items() if "value" in entry}
        assert default_region(env=env, home=Path("/nonexistent")) == "ap-southeast-1"
        assert endpoint_for("cn-north-4", env=env, home=Path("/nonexistent")) == (
            "https://modelarts-vpc.example.internal"
        )


def test_the_ingress_buffers_and_limits_before_the_bot_and_exposes_only_slacks_endpoint() -> None:
    rendered = render(VARIANTS["ingress"])
    ingress = single("Ingress", rendered)
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-body-size"] == "256k"
    assert annotations["nginx.ingress.kubernetes.io/proxy-request-buffering"] == "on"
    from bot.ingress import MAX_BODY_BYTES

    assert MAX_BODY_BYTES == 256 * 1024, "the edge refuses what the bot would refuse"
    (rule,) = ingress["spec"]["rules"]
    assert rule["host"] == "diagnose.example.com"
    assert [path["path"] for path in rule["http"]["paths"]] == ["/slack/events"]
    assert ingress["spec"]["tls"] == [{"hosts": ["diagnose.example.com"], "secretName": "diagnose-tls"}]
    assert documents_of("Ingress", render()) == []
    with pytest.raises(TemplateError, match=r"ingress\.host is required"):
        render({"ingress": {"enabled": True}})
