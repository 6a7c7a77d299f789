"""A signal names the cause. HIGH when a direct line does (a traceback, an explicit Error event,
the platform's analysis); "most likely", MEDIUM, when only a consequence or an indirect line
names the category (rulings M5). Fault level by M7."""

from __future__ import annotations

from diagnosis.modelarts.causes import measurements, recommendations, root_for
from diagnosis.modelarts.citations import cite_signal, cite_winner
from diagnosis.modelarts.fault_level import fault_level
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.run import Run
from diagnosis.modelarts.signals import Signal, shorten
from diagnosis.modelarts.wording import inline
from diagnosis.models import Diagnosis, Recommendation


def diagnosed_direct(run: Run, job: Job, winner: Signal, signals: list[Signal]) -> Diagnosis:
    t = run.t
    cite_winner(run, winner)
    for other in signals:
        if (
            other is not winner
            and other.category == winner.category
            and not other.consequence
            and other.kind != winner.kind
        ):
            cite_signal(run, other)
    root = root_for(run, winner, job)
    if run.consequences:
        tasks = sorted({s.task for s in run.consequences if s.task}) or ["?"]
        root += t(
            "root.consequence_suffix",
            tasks=t("label.list_sep").join(f"`{task}`" for task in tasks),
            line=inline(shorten(run.consequences[0].line, 120)),
        )
        for consequence in run.consequences:
            cite_signal(run, consequence)
    found = recommendations(run, winner.rule.fixes, winner.values, medium=False)
    if winner.kind == "analysis" and winner.values.get("solution"):
        # The platform's own solution first; the rule's plans after it.
        platform_fix = Recommendation(text=winner.values["solution"].strip(), changes_resources=True)
        found = [platform_fix, *found]
    return run.result(
        "diagnosed",
        category=winner.category,
        confidence="HIGH",
        fault_level=fault_level(job, winner.category, "HIGH"),
        signature=winner.line,
        root_cause=root,
        recommendations=found,
        measurements=measurements(job, winner.task),
    )


def diagnosed_indirect(run: Run, job: Job, winner: Signal) -> Diagnosis:
    cite_winner(run, winner)
    root = run.t("root.most_likely", cause=root_for(run, winner, job))
    if winner.consequence:
        root += run.t("root.consequence_only")
        run.next_steps.append(run.t("next.find_first_failure"))
    return run.result(
        "diagnosed",
        category=winner.category,
        confidence="MEDIUM",
        fault_level=fault_level(job, winner.category, "MEDIUM"),
        signature=winner.line,
        root_cause=root,
        recommendations=recommendations(run, winner.rule.fixes, winner.values, medium=True),
        measurements=measurements(job, winner.task),
    )
