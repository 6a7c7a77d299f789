"""Rulings M1: a denied call stops the diagnosis with the documented read-only actions to grant."""

from __future__ import annotations

from diagnosis.evidence.source import Answer
from diagnosis.modelarts.ops import DETAILS, SEARCH
from diagnosis.modelarts.run import Run
from diagnosis.models import Diagnosis, Recommendation

GET_ACTION = "modelarts:trainJob:get"
LIST_ACTION = "modelarts:trainJob:list"
# Rulings M1: the documented actions, never the runbook's `trainingJobs:*`; logExport only on demand.
REQUIRED_ACTIONS = (GET_ACTION, LIST_ACTION)


def permission_denied(run: Run, answer: Answer) -> Diagnosis:
    """Rulings M1: stop, list the documented read-only actions, and a minimal policy (in the report)."""
    t = run.t
    first = answer.op in (DETAILS, SEARCH) and len(run.source.calls) <= 1
    code = answer.error_code() or str(answer.status)
    key = "root.denied_first" if first else "root.denied_later"
    root = t(key, op=answer.op, status=answer.status, code=code)
    if first:
        run.limitations.append(t("limit.denied_first", op=answer.op, status=answer.status))
    else:
        run.limitations.append(t("limit.denied_later", op=answer.op, status=answer.status))
    if answer.status == 401:
        run.next_steps.append(t("next.check_keys"))
    run.next_steps.append(t("next.rerun_after_grant"))
    return run.result(
        "permission_denied",
        confidence="LOW",
        root_cause=root,
        recommendations=[
            Recommendation(text=t("fix.grant_policy", region=run.region or "?"), changes_resources=True)
        ],
        permissions=REQUIRED_ACTIONS,
    )
