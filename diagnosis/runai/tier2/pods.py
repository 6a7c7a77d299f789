"""Every failing pod's object, failing container's log and events, requested together; then the
log the pod object asks for (another failing container's, or the current one when there is no
previous instance)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from diagnosis.evidence.answer import Answer
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.signals import (
    Observation,
    collectives_after_a_peer,
    from_k8s_events,
    from_k8s_pod,
    from_log_findings,
)
from diagnosis.runai.tier2.containers import facts_of, finished_at, main_container
from diagnosis.runai.tier2.evidence import MAX_PODS, Fetcher, PodTarget, Tier2Evidence, note_failure

if TYPE_CHECKING:
    from diagnosis.runai import k8s_views  # the Kubernetes views: read only with Tier-2 answers

LOG_TAIL_LINES = 200
LOG_LIMIT_BYTES = 1_048_576
MAX_FINDINGS_PER_LOG = 3

# Called with what the pod objects show, once they answered and while the logs they name are read:
# evidence that waits only for the pod objects (the metrics of an OOM kill only they show) goes then.
PodObjectsHook = Callable[[list[Observation]], Awaitable[None]]


def _scan_log(text: str) -> list[Any]:
    from diagnosis.logs.scan import scan_text

    return list(scan_text(text).findings)


async def read_pods(
    source: Fetcher,
    *,
    namespace: str,
    pods: Sequence[PodTarget],
    t: Translator,
    with_pod_objects: PodObjectsHook | None = None,
) -> Tier2Evidence:
    """Every pod's object, previous log and events, requested together (one round); `calls` lists
    the pod objects first, then each pod's log and events. A log the pod object asks for follows,
    together with `with_pod_objects`."""
    chosen = list(pods[:MAX_PODS])
    pod_calls = [source.fetch("k8s.read_pod", namespace=namespace, name=target.name) for target in chosen]
    other_calls = []
    for target in chosen:
        other_calls.append(_read_previous_log(source, namespace, target.name, _expected_container(target)))
        other_calls.append(
            source.fetch("k8s.list_events", namespace=namespace, fieldSelector=_selector(target, namespace))
        )
    answers = await asyncio.gather(*pod_calls, *other_calls)
    objects = [
        _read_pod_object(target, t, answer)
        for target, answer in zip(chosen, answers[: len(chosen)], strict=True)
    ]
    results, _ = await asyncio.gather(
        asyncio.gather(
            *(
                _read_pod(
                    source,
                    namespace,
                    target,
                    t,
                    objects[index],
                    answers[len(chosen) + 2 * index],
                    answers[len(chosen) + 2 * index + 1],
                )
                for index, target in enumerate(chosen)
            )
        ),
        with_pod_objects([o for found, _pod in objects for o in found.observations])
        if with_pod_objects is not None
        else _nothing(),
    )
    total = Tier2Evidence()
    for result in results:
        total.merge(result)
    # Read together, the pods' logs say which worker failed first.
    total.observations = collectives_after_a_peer(total.observations)
    return total


async def _nothing() -> None:
    return None


def _selector(target: PodTarget, namespace: str) -> str:
    # kubectl describe's own selector; comma is AND. A recorded selector naming only the pod still
    # matches on replay (a recorded set contained in the called one).
    return f"involvedObject.name={target.name},involvedObject.namespace={namespace},involvedObject.kind=Pod"


def _expected_container(target: PodTarget) -> str | None:
    """The container whose log is asked for before the pod object has answered: the one Tier 1
    names as failing, else the first one Run:ai lists."""
    if target.failing_container:
        return target.failing_container
    return target.containers[0] if target.containers else None


def _read_pod_object(
    target: PodTarget, t: Translator, pod_answer: Answer
) -> tuple[Tier2Evidence, k8s_views.K8sPod | None]:
    """What the pod object shows (`kubectl describe pod`), and the object."""
    found = Tier2Evidence()
    pod: k8s_views.K8sPod | None = None
    if pod_answer.ok:
        from diagnosis.runai import k8s_views

        pod, problem = parse.view(k8s_views.K8sPod, pod_answer.body)
        if pod is None:
            found.limitations.append(
                t("lim.k8s_shape", call="k8s.read_pod", pod=target.name, problem=problem)
            )
        else:
            found.answered += 1
            found.observations.extend(from_k8s_pod(pod, pod_name=target.name))
            found.nodes[target.name] = (pod.spec.nodeName if pod.spec else None) or target.node
    else:
        note_failure(found, pod_answer, target.name, t)
    return found, pod


async def _read_pod(
    source: Fetcher,
    namespace: str,
    target: PodTarget,
    t: Translator,
    pod_object: tuple[Tier2Evidence, k8s_views.K8sPod | None],
    log_answer: Answer,
    events_answer: Answer,
) -> Tier2Evidence:
    """What the pod object, its log and its events show (`kubectl describe pod`, `kubectl logs
    --previous` and the pod's events)."""
    found, pod = pod_object
    # A pod that is gone has no log any more; its events may outlive it (for a while).
    container, _is_init = main_container(pod, target)
    pod_gone = target.name in found.missing_pods
    if not pod_gone and container is not None and container != _expected_container(target):
        # The pod object names another failing container (an init container, say): its log.
        log_answer = await _read_log(source, namespace, target.name, container)
    elif not pod_gone and log_answer.status == 400:
        log_answer = await _read_current_log(source, namespace, target.name, container)
    _absorb_events(found, events_answer, target, t, pod_gone=pod_gone)
    if pod_gone:
        return found
    _absorb_log(found, log_answer, pod, target, container, t)
    return found


def _absorb_events(
    found: Tier2Evidence, events_answer: Answer, target: PodTarget, t: Translator, *, pod_gone: bool
) -> None:
    if events_answer.ok:
        from diagnosis.runai import k8s_views

        events, problem = parse.view(k8s_views.K8sEventList, events_answer.body)
        if events is None:
            found.limitations.append(
                t("lim.k8s_shape", call="k8s.list_events", pod=target.name, problem=problem)
            )
        else:
            found.answered += 1
            found.observations.extend(
                from_k8s_events(
                    ((f"items[{index}]", event) for index, event in enumerate(events.items)),
                    pod_name=target.name,
                )
            )
    elif not pod_gone:
        note_failure(found, events_answer, target.name, t)
    elif events_answer.denied:
        found.denied_calls.append(events_answer.op)


def _absorb_log(
    found: Tier2Evidence,
    log_answer: Answer,
    pod: k8s_views.K8sPod | None,
    target: PodTarget,
    container: str | None,
    t: Translator,
) -> None:
    ended = None
    facts = None
    if pod is not None:
        facts = facts_of(pod, target.name, container)
        if facts is not None:
            found.main_containers.append(facts)
        ended = finished_at(pod, container)
    if log_answer.ok and log_answer.text is not None and log_answer.text.strip():
        found.answered += 1
        if facts is not None:
            facts.last_log_line = log_answer.text.rstrip().rsplit("\n", 1)[-1].strip()
        findings = _scan_log(log_answer.text)
        if findings:
            found.observations.extend(
                from_log_findings(
                    findings,
                    limit=MAX_FINDINGS_PER_LOG,
                    pod_name=target.name,
                    container=container,
                    finished_at=ended,
                )
            )
    elif log_answer.ok:
        found.limitations.append(t("lim.log_empty", pod=target.name))
    else:
        note_failure(found, log_answer, target.name, t)


def _log_args(namespace: str, pod_name: str, container: str | None) -> dict[str, Any]:
    args: dict[str, Any] = {"namespace": namespace, "name": pod_name}
    if container:
        args["container"] = container
    return args


async def _read_previous_log(source: Fetcher, namespace: str, pod_name: str, container: str | None) -> Answer:
    """A container's previous log (last 200 lines, 1 MB)."""
    return await source.fetch(
        "k8s.read_pod_log",
        **_log_args(namespace, pod_name, container),
        previous=True,
        tailLines=LOG_TAIL_LINES,
        limitBytes=LOG_LIMIT_BYTES,
    )


async def _read_current_log(source: Fetcher, namespace: str, pod_name: str, container: str | None) -> Answer:
    """A container's current log: what is read when there is no previous instance (a 400)."""
    return await source.fetch(
        "k8s.read_pod_log",
        **_log_args(namespace, pod_name, container),
        tailLines=LOG_TAIL_LINES,
        limitBytes=LOG_LIMIT_BYTES,
    )


async def _read_log(source: Fetcher, namespace: str, pod_name: str, container: str | None) -> Answer:
    """The main container's previous log (last 200 lines, 1 MB); on a 400 (no previous instance,
    or the container waits to start), the current log."""
    answer = await _read_previous_log(source, namespace, pod_name, container)
    if answer.status == 400:
        answer = await _read_current_log(source, namespace, pod_name, container)
    return answer
