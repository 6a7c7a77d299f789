"""Why a Run:ai workload gets no Tier 2, said in the report's language (`words(t)`).

In a module of its own: the workflow reads these on every diagnosis, the Kubernetes client and
the kubeconfig's contexts only a live one needs (diagnosis.runai.k8s, diagnosis.runai.contexts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from diagnosis.render.i18n import BASE_LANGUAGE, Translator
from diagnosis.runai.messages import CATALOGUE


@dataclass(frozen=True)
class Tier2Reason:
    """Why Tier 2 is not used: a message id of the `runai` catalogue and its values (a value may be
    a reason of its own, such as where the configuration came from), said in the report's language."""

    msgid: str
    values: Mapping[str, str | Tier2Reason] = field(default_factory=dict)

    def words(self, t: Translator) -> str:
        return t(
            self.msgid,
            **{
                key: value.words(t) if isinstance(value, Tier2Reason) else value
                for key, value in self.values.items()
            },
        )

    def __str__(self) -> str:
        return self.words(Translator(CATALOGUE, BASE_LANGUAGE))


@dataclass(frozen=True)
class Unmapped:
    """Tier 2 is not used for `cluster_id`: no context is mapped to it (`kube_clusters` = 0), or
    the kubeconfig reaches several clusters (`kube_clusters` of them) and no mapping says which."""

    cluster_id: str
    kube_clusters: int = 0

    def words(self, t: Translator) -> str:
        if self.kube_clusters:
            return t("word.tier2_ambiguous", cluster=self.cluster_id, count=self.kube_clusters)
        return t("word.tier2_unmapped", cluster=self.cluster_id)

    def __str__(self) -> str:
        return self.words(Translator(CATALOGUE, BASE_LANGUAGE))


# Why Tier 2 is not used for a workload, said in the report's language (`words(t)`).
Tier2Unavailable = Tier2Reason | Unmapped
