"""The Run:ai runbook as code: steps 1-5, one module per step.

Pure: every fact comes through the source (`fetch` by op name), time comes from `now`, and the
result is a `Diagnosis` whose free text comes from the message catalogue. Each step is a function
of the evidence so far (`State`) that returns the next step or the finished diagnosis:

    start -> (resolve_by_name) -> read_status -> read_events -> apply_phase_rule
          -> read_evidence -> gather_conditional -> conclude
"""

from __future__ import annotations

from datetime import UTC, datetime

from diagnosis.models import DiagnoseRequest, Diagnosis, Target
from diagnosis.render.i18n import Translator
from diagnosis.runai.compose import format_quantity
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.paging import Fetcher
from diagnosis.runai.tier2_reasons import Tier2Unavailable
from diagnosis.runai.workflow.resolve import start
from diagnosis.runai.workflow.state import Run, State, run_steps
from diagnosis.timeutil import parse_duration

DEFAULT_LOOKBACK = "7d"


async def diagnose(
    request: DiagnoseRequest,
    source: Fetcher,
    *,
    now: datetime,
    lang: str = "en",
    tier2_available: bool = False,
    tier2_unavailable_reason: Tier2Unavailable | None = None,
) -> Diagnosis:
    """Run the runbook on one request. Never raises for bad answers: they become limitations."""
    t = Translator(CATALOGUE, lang)
    text = (request.lookback or DEFAULT_LOOKBACK).strip()
    limitations: tuple[str, ...] = ()
    try:
        lookback = parse_duration(text)
    except ValueError:
        limitations = (t("lim.bad_lookback", lookback=text, default=DEFAULT_LOOKBACK),)
        text, lookback = DEFAULT_LOOKBACK, parse_duration(DEFAULT_LOOKBACK)
    run = Run(
        request=request,
        source=source,
        now=now if now.tzinfo else now.replace(tzinfo=UTC),
        t=t,
        tier2_available=tier2_available,
        tier2_unavailable_reason=tier2_unavailable_reason,
        lookback_text=text,
        lookback=lookback,
    )
    target = Target(
        workload_id=request.workload_id,
        name=request.workload_name,
        project=request.project,
        cluster_id=request.cluster_id,
    )
    return await run_steps(start, State(run=run, target=target, limitations=limitations))


__all__ = ["diagnose", "format_quantity"]
