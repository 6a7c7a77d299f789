"""Which kubeconfig context serves a Run:ai cluster: Tier 2 for several clusters.

`RUNAI_KUBE_CONTEXTS` (or the file `RUNAI_KUBE_CONTEXTS_FILE`, YAML or JSON; the variable wins
for a cluster both name) maps Run:ai cluster ids to kubeconfig context names, as a JSON object or
`<cluster id>=<context>,…`. The context `in-cluster` is the pod's own service account; the key `*`
serves every cluster the mapping does not name.

A cluster the mapping does not name gets no Tier 2 (and says so), never another cluster's pods.
Without a mapping, the kubeconfig's current context (or the in-cluster account) serves only when
the kubeconfig reaches exactly one cluster: with several, which one is the Run:ai cluster is not
guessed.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from diagnosis.runai.k8s import KubeContexts, list_contexts
from diagnosis.runai.settings import ConfigError, RunaiSettings
from diagnosis.runai.tier2_reasons import Tier2Unavailable, Unmapped

__all__ = [
    "ANY_CLUSTER",
    "Tier2Unavailable",
    "Unmapped",
    "context_for",
    "load_mapping",
    "parse_mapping",
    "tier2_context",
]

ANY_CLUSTER = "*"


def parse_mapping(text: str, *, origin: str) -> dict[str, str]:
    """A JSON/YAML object or `id=context,…` text as {cluster id (lower case): context}."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{") or "\n" in text or ":" in text.split("=", 1)[0]:
        try:
            loaded = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigError(f"{origin} is neither JSON nor YAML ({exc})") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{origin} must map Run:ai cluster ids to kubeconfig contexts")
        pairs = [(str(key), value) for key, value in loaded.items()]
    else:
        pairs = []
        for item in filter(None, (part.strip() for part in text.split(","))):
            cluster, equals, context = item.partition("=")
            if not equals:
                raise ConfigError(f"{origin}: {item!r} is not <cluster id>=<context>")
            pairs.append((cluster, context))
    mapping: dict[str, str] = {}
    for cluster, context in pairs:
        if not isinstance(context, str) or not cluster.strip() or not context.strip():
            raise ConfigError(f"{origin}: cluster {cluster!r} must name a kubeconfig context")
        mapping[cluster.strip().lower()] = context.strip()
    return mapping


def load_mapping(settings: RunaiSettings) -> dict[str, str]:
    mapping: dict[str, str] = {}
    if settings.runai_kube_contexts_file:
        path = Path(settings.runai_kube_contexts_file).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"RUNAI_KUBE_CONTEXTS_FILE {path}: {exc.strerror or exc}") from None
        mapping.update(parse_mapping(text, origin=f"RUNAI_KUBE_CONTEXTS_FILE {path}"))
    if settings.runai_kube_contexts:
        mapping.update(parse_mapping(settings.runai_kube_contexts, origin="RUNAI_KUBE_CONTEXTS"))
    return mapping


def context_for(
    cluster_id: str | None, mapping: dict[str, str], contexts: KubeContexts | None
) -> str | Unmapped | None:
    """The context to use (None: the kubeconfig's current context or the in-cluster account)."""
    asked = (cluster_id or "").strip().lower()
    if mapping:
        if asked and asked in mapping:
            return mapping[asked]
        if ANY_CLUSTER in mapping:
            return mapping[ANY_CLUSTER]
        return Unmapped(cluster_id or "?")
    if contexts is not None and contexts.clusters > 1:
        return Unmapped(cluster_id or "?", kube_clusters=contexts.clusters)
    return None


def tier2_context(settings: RunaiSettings, cluster_id: str | None) -> str | Unmapped | None:
    """`context_for` with the configured mapping and the kubeconfig's contexts."""
    mapping = load_mapping(settings)
    contexts = None if mapping else list_contexts(settings.kubeconfig)
    return context_for(cluster_id, mapping, contexts)
