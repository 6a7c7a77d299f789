"""The nodes named by a node-failure signal: their conditions, taints and schedulability."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.signals import from_node
from diagnosis.runai.tier2.evidence import MAX_PODS, Fetcher, Tier2Evidence

if TYPE_CHECKING:
    pass  # the Kubernetes views: read only with Tier-2 answers


async def read_nodes(source: Fetcher, *, nodes: Sequence[str], t: Translator) -> Tier2Evidence:
    from diagnosis.runai import k8s_views

    found = Tier2Evidence()
    answers = await asyncio.gather(*(source.fetch("k8s.read_node", name=name) for name in nodes[:MAX_PODS]))
    for name, answer in zip(nodes, answers, strict=False):
        if not answer.ok:
            if answer.denied:
                found.denied_calls.append(answer.op)
            else:
                found.limitations.append(
                    t("lim.node_failed", node=name, failure=answer.describe_failure(lang=t.lang))
                )
            continue
        node, problem = parse.view(k8s_views.Node, answer.body)
        if node is None:
            found.limitations.append(t("lim.k8s_shape", call="k8s.read_node", pod=name, problem=problem))
            continue
        found.answered += 1
        found.observations.extend(from_node(node, node_name=name))
    return found
