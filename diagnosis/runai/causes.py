"""How a Run:ai verdict is worded: the root-cause sentence and the recommendations, one entry per
category in two registries (a category's wording is found by lookup, never by an if/elif ladder).

A row's sub-case (which registry error, which policy, which kind of volume) picks the message ids
inside its category's entry: `why.pull.<subcase>`, `rec.pull.<subcase>`, `rc.policy.<subcase>`,
`rec.mount.fix.<subcase>`. A recommendation that changes a job, its configuration or a resource is
flagged `changes_resources`: a person runs it after confirming, the product never does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diagnosis.knowledge.exitcodes import exit_code_info
from diagnosis.models import Category, Recommendation
from diagnosis.runai.facts import Context, batch_setting, container_name, exit_code, image, node, subcase
from diagnosis.runai.memory import MemoryReading, format_quantity
from diagnosis.runai.signals import quote

RootCause = Callable[[Context, MemoryReading], str]
Recommend = Callable[[Context, MemoryReading], list[Recommendation]]

# Image-pull sub-cases whose fix is outside the workload (the registry's or the node's network):
# waiting or asking an administrator changes nothing of the job.
PULL_FIXES_OUTSIDE_THE_JOB = frozenset({"dns", "network", "unspecified"})


def _recurring_suffix(context: Context) -> str:
    recurrence = context.recurrence
    if recurrence is None or not recurrence.recurring:
        return ""
    return context.t("rc.recurring_suffix", count=recurrence.count, window=recurrence.window)


def _signature(context: Context) -> str:
    return context.verdict.signature or ""


def _container(context: Context) -> str:
    return container_name(context) or context.t("word.the_container")


def _oom_root(context: Context, reading: MemoryReading) -> str:
    t, container = context.t, _container(context)
    if reading.limit is not None and reading.peak is not None:
        percent = 100.0 * reading.peak / reading.limit.bytes if reading.limit.bytes else 0.0
        return t(
            "rc.oom_peak",
            container=container,
            limit=format_quantity(reading.limit.bytes),
            peak=format_quantity(reading.peak),
            percent=f"{percent:.1f}",
        )
    if reading.limit is not None:
        return t("rc.oom_no_peak", container=container, limit=format_quantity(reading.limit.bytes))
    return t("rc.oom_no_limit", container=container)


def _pull_root(context: Context, _reading: MemoryReading) -> str:
    t = context.t
    why = t(f"why.pull.{subcase(context, 'unspecified')}")
    return t("rc.image_pull", image=image(context) or t("word.the_image"), why=why)


def _node_root(context: Context, _reading: MemoryReading) -> str:
    return context.t(
        "rc.node", node=node(context) or context.t("word.the_node"), signature=_signature(context)
    )


def _policy_root(context: Context, _reading: MemoryReading) -> str:
    return context.t(f"rc.policy.{subcase(context, 'policy')}", signature=_signature(context))


def exit_meaning(code: int, lang: str) -> str:
    """The catalogue's meaning of an exit code (`segmentation fault, SIGSEGV (128+11)`)."""
    return exit_code_info(code).meaning(lang)


def _key_log_line(context: Context, container: str | None) -> str | None:
    """The line of a container's own log that names its failure (the log table's best finding)."""
    for signal in context.signals:
        observation = signal.observation
        if observation.kind == "log" and observation.container == container and signal.rule.role == "cause":
            return quote(observation.message, limit=300)
    return None


def _last_log_line(context: Context, container: str) -> str | None:
    """The line a container's log ended with, when the log table names none of its lines."""
    for fact in context.tier2.main_containers:
        if fact.container == container and fact.last_log_line:
            return quote(fact.last_log_line, limit=300)
    return None


def _init_root(context: Context, _reading: MemoryReading) -> str:
    """Which init container failed, its exit code and the line of its log that says why, when the
    pod was read; else what Tier 1 said."""
    t, winner = context.t, context.verdict.winner
    failed = winner.observation if winner is not None else None
    if failed is None or failed.kind != "container" or not failed.container or failed.exit_code is None:
        return t("rc.init", signature=_signature(context))
    line = _key_log_line(context, failed.container) or _last_log_line(context, failed.container)
    if line is None:
        return t("rc.init_exit", container=failed.container, code=failed.exit_code)
    return t("rc.init_exit_log", container=failed.container, code=failed.exit_code, line=line)


def _crash_root(context: Context, _reading: MemoryReading) -> str:
    t, verdict = context.t, context.verdict
    if verdict.has_log_line:
        code = exit_code(context)
        if code is not None:
            return t(
                "rc.crash_log_exit", container=_container(context), code=code, signature=_signature(context)
            )
        return t("rc.crash_log", container=_container(context), signature=_signature(context))
    winner = verdict.winner.observation if verdict.winner is not None else None
    if winner is not None and winner.kind == "container" and winner.exit_code is None and winner.container:
        # The container never ran: its waiting state says why it could not start.
        return t("rc.crash_start", container=winner.container, signature=_signature(context))
    code = exit_code(context)
    if code is None and verdict.winner is not None:
        code = verdict.winner.observation.exit_code
    if code is None:
        return t("rc.crash_indirect", signature=_signature(context))
    meaning = exit_meaning(code, t.lang)
    return t(
        "rc.crash_exit",
        container=_container(context),
        code=code,
        meaning=t("word.exit_meaning", meaning=meaning) if meaning else "",
    )


def _signature_root(key: str) -> RootCause:
    return lambda context, _reading: context.t(key, signature=_signature(context))


ROOT_CAUSES: dict[Category, RootCause] = {
    "OOM_KILLED": _oom_root,
    "IMAGE_PULL_FAILED": _pull_root,
    "INIT_FAILED": _init_root,
    "DATASOURCE_MOUNT_FAILED": _signature_root("rc.mount"),
    "NODE_FAILURE": _node_root,
    "SCHEDULING_POLICY_TERMINATED": _policy_root,
    "CRASH_APP_ERROR": _crash_root,
}


def root_cause(context: Context, reading: MemoryReading) -> str:
    verdict = context.verdict
    if verdict.stopped_default:
        return context.t("rc.policy_stopped_default")
    wording = ROOT_CAUSES.get(verdict.category)
    if wording is not None:
        return wording(context, reading) + _recurring_suffix(context)
    if verdict.unexplained_kill is not None:
        code = verdict.unexplained_kill.observation.exit_code
        return context.t("rc.unknown_kill", code=code if code is not None else 137)
    return context.t("rc.unknown")


# --- recommendations -------------------------------------------------------------------------------


def _rec(context: Context, key: str, changes: bool, **values: Any) -> Recommendation:
    return Recommendation(text=context.t(key, **values), changes_resources=changes)


def _oom_recs(context: Context, reading: MemoryReading) -> list[Recommendation]:
    t = context.t
    if reading.peak is not None:
        basis = t("word.peak_basis", peak=format_quantity(reading.peak))
    elif reading.limit is not None:
        basis = t("word.limit_basis", limit=format_quantity(reading.limit.bytes))
    else:
        basis = t("word.usage_basis")
    batch = batch_setting(context)
    return [
        _rec(context, "rec.oom.raise_limit", True, basis=basis),
        _rec(
            context,
            "rec.oom.reduce_memory",
            True,
            batch=t("word.batch_in_spec", setting=batch) if batch else "",
        ),
        _rec(context, "rec.oom.check_env", False),
    ]


def _pull_recs(context: Context, _reading: MemoryReading) -> list[Recommendation]:
    case = subcase(context, "unspecified")
    target = image(context) or context.t("word.the_image")
    return [_rec(context, f"rec.pull.{case}", case not in PULL_FIXES_OUTSIDE_THE_JOB, image=target)]


def _mount_recs(context: Context, _reading: MemoryReading) -> list[Recommendation]:
    namespace = context.namespace or "?"
    return [
        _rec(context, "rec.mount.check", False, namespace=namespace),
        _rec(context, f"rec.mount.fix.{subcase(context, 'volume')}", True, namespace=namespace),
    ]


def _crash_recs(context: Context, _reading: MemoryReading) -> list[Recommendation]:
    verdict = context.verdict
    if verdict.has_log_line or verdict.direct:
        return [_rec(context, "rec.crash.fix", True, signature=_signature(context))]
    return [_rec(context, "rec.crash.read_log", False, namespace=context.namespace or "<namespace>")]


def _node_recs(context: Context, _reading: MemoryReading) -> list[Recommendation]:
    spec = context.submitted
    # With restartPolicy OnFailure the workload retries by itself; else a person resubmits it.
    retries = ((spec.restartPolicy if spec else None) or "").lower() == "onfailure"
    return [
        _rec(context, "rec.node.retry_on_failure" if retries else "rec.node.resubmit", True),
        _rec(context, "rec.node.report", False, node=node(context) or context.t("word.the_node")),
    ]


def _policy_recs(context: Context, _reading: MemoryReading) -> list[Recommendation]:
    if context.verdict.stopped_default:
        return [_rec(context, "rec.policy.confirm_who", False)]
    case = subcase(context, "policy")
    if case == "manual_stop":
        return [_rec(context, "rec.policy.voluntary", True)]
    if case == "requested_stop":
        # The spec shows the request, not who made it: a person, or a policy acting for one.
        return [_rec(context, "rec.policy.confirm_who", False), _rec(context, "rec.policy.voluntary", True)]
    # Involuntary: an administrator reviews the policy that stopped it.
    return [
        _rec(context, "rec.policy.admin_review", True, policy=context.t(f"word.policy.{case}")),
        _rec(context, "rec.policy.checkpoint", True),
    ]


RECOMMENDATIONS: dict[Category, Recommend] = {
    "OOM_KILLED": _oom_recs,
    "IMAGE_PULL_FAILED": _pull_recs,
    "INIT_FAILED": lambda context, _reading: [_rec(context, "rec.init", True)],
    "DATASOURCE_MOUNT_FAILED": _mount_recs,
    "CRASH_APP_ERROR": _crash_recs,
    "NODE_FAILURE": _node_recs,
    "SCHEDULING_POLICY_TERMINATED": _policy_recs,
}


def recommendations(context: Context, reading: MemoryReading) -> list[Recommendation]:
    found = RECOMMENDATIONS.get(context.verdict.category, lambda _context, _reading: [])(context, reading)
    recurrence = context.recurrence
    if recurrence is not None and recurrence.recurring:
        found.append(
            _rec(
                context,
                "rec.recurring",
                False,
                count=recurrence.count,
                window=recurrence.window,
                category=context.verdict.category,
            )
        )
    return found
