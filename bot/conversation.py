"""A diagnosis conversation, from the request to the report in its thread.

start → access check → rate limit → placeholder in the channel → missing identifiers asked in the
thread (pending, survives restarts) → diagnosis on the bot's pool with progress on the placeholder
→ access check on the target → the report replaces the placeholder, the full report is attached in
the thread, and the thread remembers the diagnosis for follow-ups.
Workflows decide, renderers format: this module only sequences Slack calls around them.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any, Literal

from slack_sdk import WebClient

from blocks.escape import escape_mrkdwn
from blocks.kit import SlackMessage
from blocks.labels import label, label_mrkdwn
from blocks.messages import denied_message, notice, notice_mrkdwn
from blocks.progress import progress_message
from blocks.prompts import (
    log_link_button,
    question_message,
    rerun_button,
    retry_button,
)
from blocks.report import report_message
from bot import access
from bot.audit import audit
from bot.backends import DiagnosisRun, NoMatchingBundle
from bot.commands import RequestDraft
from bot.failures import report_failure
from bot.findable import post_findable, replace_or_post_findable
from bot.messaging import PostFailed, replace_or_post, try_post, update, upload
from bot.pictures import post_memory_chart
from bot.progress import ProgressReporter
from bot.services import Asker, BotServices
from bot.slack_client import Notifier, best_effort_client
from bot.state.models import AcceptedRequest, PendingRequest, Place, ThreadRecord
from diagnosis.engine import DEFAULT_LANG
from diagnosis.masking import mask
from diagnosis.models import Choice, Diagnosis, Exchange, Question

log = logging.getLogger("diagnose.bot")

# An accepted request is answered within a day, or not at all: its "answered" claims last as long.
ANSWERED_TTL_SECONDS = 86400

# Questions whose answer a person may type (others are a fixed choice).
FREE_TEXT_KEYS = frozenset(
    {
        "cluster_id",
        "workload",
        "workload_name",
        "workload_id",
        "past_run",
        "project",
        "job",
        "job_id",
        "job_name",
        "region",
    }
)


def ui_lang(services: BotServices, *, platform: str | None, channel: str, explicit: str | None) -> str:
    """Labels follow the explicit `lang=`, then the channel's setting, then the platform default."""
    chosen = explicit or services.policy.lang_for(channel)
    if chosen:
        return chosen
    return DEFAULT_LANG.get(platform or "", "en")


def channel_lang(services: BotServices, channel: str | None) -> str:
    """Labels for a message about no request in particular: the channel's language, else English."""
    return (services.policy.lang_for(channel) if channel else None) or "en"


def engine_lang(services: BotServices, *, channel: str, explicit: str | None) -> str | None:
    return explicit or services.policy.lang_for(channel)


class Conversation:
    def __init__(self, services: BotServices) -> None:
        self.services = services

    # ---- entry ---------------------------------------------------------------------------------

    def start(self, client: WebClient, draft: RequestDraft, asker: Asker) -> None:
        """A new request (slash command, mention, thread question or re-run)."""
        services = self.services
        draft = access.with_aliases(services, draft)
        lang = ui_lang(services, platform=draft.platform, channel=asker.channel, explicit=asker.lang)
        notifier = Notifier(
            client, channel=asker.channel, user=asker.user, thread_ts=asker.thread_ts, respond=asker.respond
        )

        def refuse(message: SlackMessage, outcome: str, **details: Any) -> None:
            notifier.tell(message)
            what = draft.describe()
            audit("diagnose", user=asker.user, channel=asker.channel, what=what, outcome=outcome, **details)

        decision = access.before_run(services, draft, user=asker.user, channel=asker.channel)
        if not decision.allowed:
            refuse(denied_message(lang=lang), "denied", reason=decision.reason)
            return
        limit = services.policy.rate_limit
        if not services.store.allow(
            f"user:{asker.user}", limit=limit.per_user, window_seconds=limit.window_seconds
        ):
            refuse(notice(label("rate_limited", lang), emoji=":hourglass:"), "rate_limited")
            return
        placeholder = progress_message(what=draft.describe(), user=asker.user, lang=lang)
        # Posted by an earlier run of this request whose worker died (remembered, or found in the
        # channel by its key): the same placeholder again.
        try:
            status_ts = post_findable(
                client,
                services.queue,
                "placeholder",
                channel=asker.channel,
                thread_ts=asker.thread_ts,
                message=placeholder,
            )
        except PostFailed as exc:
            post_failed = notice(label("post_failed", lang, error=exc.error), emoji=":warning:")
            refuse(post_failed, "post_failed", error=exc.error)
            return
        place = Place(channel=asker.channel, thread_ts=asker.thread_ts or status_ts, status_ts=status_ts)
        self.proceed(client, draft, place=place, user=asker.user, lang=asker.lang)

    def proceed(
        self, client: WebClient, draft: RequestDraft, *, place: Place, user: str, lang: str | None
    ) -> None:
        """Ask for the next missing identifier, or queue the diagnosis."""
        missing = draft.missing()
        if missing:
            self.ask(
                client,
                draft,
                self.identifier_question(draft, missing[0], place=place, lang=lang),
                place=place,
                user=user,
                lang=lang,
            )
            return
        services = self.services
        # An earlier run of this task (whose worker died) may have queued it already: the same id
        # again, which the queue runs once.
        accepted_id = services.queue.recalled("accepted")
        if accepted_id is None:
            accepted_id = uuid.uuid4().hex[:20]
            services.queue.remember("accepted", accepted_id)
        labels = ui_lang(services, platform=draft.platform, channel=place.channel, explicit=lang)
        waiting = services.queue.waiting()
        if waiting and place.status_ts:
            # Said before queueing, so that it can never land after the report.
            update(
                client,
                channel=place.channel,
                ts=place.status_ts,
                message=progress_message(what=draft.describe(), user=user, lang=labels, queued=True),
            )
        accepted = AcceptedRequest(
            id=accepted_id,
            draft=draft,
            place=place,
            user=user,
            lang=lang,
            created_at=services.now(),
        )
        if not services.queue.accept(accepted):
            replace_or_post(
                client,
                channel=place.channel,
                ts=place.status_ts,
                thread_ts=place.thread_ts,
                message=notice(label("busy", labels), emoji=":hourglass:"),
            )
            audit("diagnose", user=user, channel=place.channel, what=draft.describe(), outcome="busy")

    def identifier_question(
        self, draft: RequestDraft, key: str, *, place: Place, lang: str | None
    ) -> Question:
        labels = ui_lang(self.services, platform=draft.platform, channel=place.channel, explicit=lang)
        choices = self.services.backend.suggestions(draft, key)
        if key == "platform":
            choices = [Choice(value="runai", label="Run:ai"), Choice(value="modelarts", label="ModelArts")]
        return Question(key=key, prompt=label(f"ask.{key}", labels), choices=choices or None)

    def ask(
        self,
        client: WebClient,
        draft: RequestDraft,
        question: Question,
        *,
        place: Place,
        user: str,
        lang: str | None,
        purpose: Literal["diagnose", "scan"] = "diagnose",
    ) -> None:
        """Post the question in the thread; the pending request is stored first (survives restarts).
        `purpose` says what the answer resumes: this diagnosis, or a scan (bot/scans.py)."""
        services = self.services
        labels = ui_lang(services, platform=draft.platform, channel=place.channel, explicit=lang)
        pending = PendingRequest(
            id=uuid.uuid4().hex[:20],
            kind="question",
            draft=draft,
            question=question,
            place=place,
            user=user,
            lang=lang,
            created_at=services.now(),
            purpose=purpose,
        )
        services.store.put_pending(pending)
        message = question_message(
            question, pending_id=pending.id, lang=labels, free_text=question.key in FREE_TEXT_KEYS, asker=user
        )
        prompt_ts = try_post(client, channel=place.channel, thread_ts=place.thread_ts, message=message)
        if prompt_ts is None:
            Notifier(client, channel=place.channel, user=user, thread_ts=place.thread_ts).tell(
                notice(label("post_failed", labels, error="chat.postMessage"), emoji=":warning:")
            )
            return
        # Answered already (a click can beat this line): the answer has resumed the request and
        # owns the placeholder from here; the prompt's ts comes with the click.
        if not services.store.replace_pending(pending.model_copy(update={"prompt_ts": prompt_ts})):
            return
        if place.status_ts:
            waiting = label_mrkdwn("waiting_input", labels, prompt=question.prompt)
            update(
                client,
                channel=place.channel,
                ts=place.status_ts,
                message=notice_mrkdwn(
                    waiting,
                    fallback=label("waiting_input", labels, prompt=question.prompt),
                    emoji=":question:",
                ),
            )
        audit(
            "question",
            user=user,
            channel=place.channel,
            what=draft.describe_scan() if purpose == "scan" else draft.describe(),
            outcome="asked",
            key=question.key,
        )

    # ---- the diagnosis -------------------------------------------------------------------------

    def run(self, client: WebClient, accepted: AcceptedRequest) -> None:
        """A diagnoses-queue task: the workflow, with progress on the placeholder, then the answer.

        A worker that dies meanwhile leaves the task to the next one, so this may run twice for one
        request: the answer replaces the placeholder (the same message either way) and what is
        posted anew (a message with no placeholder, the attachments, a question) is claimed once."""
        services = self.services
        draft, place, user, lang = accepted.draft, accepted.place, accepted.user, accepted.lang
        labels = ui_lang(services, platform=draft.platform, channel=place.channel, explicit=lang)
        reporter = ProgressReporter(
            client=best_effort_client(client),
            background=services.background,
            channel=place.channel,
            ts=place.status_ts or "",
            what=draft.describe(),
            user=user,
            lang=labels,
            interval=services.progress_interval,
        )
        observer = reporter if place.status_ts else None
        try:
            request = draft.to_request()
            result: DiagnosisRun = asyncio.run(
                services.backend.diagnose(
                    request,
                    lang=engine_lang(services, channel=place.channel, explicit=lang),
                    observer=observer,
                    now=services.now(),
                )
            )
        except NoMatchingBundle as exc:
            reporter.close()
            if first_answer(services, accepted, place=place):
                self._no_bundle(client, draft, exc, place=place, user=user, lang=labels)
            return
        except Exception as exc:
            reporter.close()
            if first_answer(services, accepted, place=place):
                report_failure(
                    client,
                    exc,
                    activity="diagnose",
                    what=draft.describe(),
                    place=place,
                    user=user,
                    lang=labels,
                )
            return
        reporter.close()
        if not first_answer(services, accepted, place=place):
            return
        self.deliver(
            client,
            result.diagnosis,
            draft,
            place=place,
            user=user,
            lang=lang,
            exchanges=result.exchanges,
            request_id=accepted.id,
        )

    def deliver(
        self,
        client: WebClient,
        diagnosis: Diagnosis,
        draft: RequestDraft,
        *,
        place: Place,
        user: str,
        lang: str | None,
        exchanges: list[Exchange] | None = None,
        request_id: str | None = None,
    ) -> None:
        """The report on the placeholder, the full report and the pictures in the thread.
        `request_id`: the accepted request answered (what is posted anew is posted once for it)."""
        services = self.services
        labels = ui_lang(services, platform=diagnosis.platform, channel=place.channel, explicit=lang)
        what = draft.describe()
        decision = access.on_target(services, diagnosis, draft, user=user, channel=place.channel)
        if not decision.allowed:
            # Same words as a denial before the run: nothing tells whether the job exists.
            replace_or_post(
                client,
                channel=place.channel,
                ts=place.status_ts,
                thread_ts=place.thread_ts,
                message=denied_message(lang=labels),
            )
            audit(
                "diagnose",
                user=user,
                channel=place.channel,
                what=what,
                outcome="denied",
                reason=decision.reason,
            )
            return
        notes = [":test_tube: " + label_mrkdwn("demo_note", labels)] if services.backend.demo else []
        if diagnosis.outcome == "needs_input" and diagnosis.questions:
            message = report_message(diagnosis, lang=labels, requested_by=user, notes=notes)
            replace_or_post(
                client, channel=place.channel, ts=place.status_ts, thread_ts=place.thread_ts, message=message
            )
            if not once(services, request_id, "question"):
                return
            self.ask(
                client,
                draft,
                diagnosis.questions[0],
                place=place.model_copy(update={"status_ts": None}),
                user=user,
                lang=lang,
            )
            audit("diagnose", user=user, channel=place.channel, what=what, outcome=diagnosis.outcome)
            return
        buttons: list[dict[str, Any]] = []
        thread_ts = place.thread_ts or place.status_ts or ""
        if diagnosis.outcome == "permission_denied":
            retry = PendingRequest(
                id=uuid.uuid4().hex[:20],
                kind="retry",
                draft=draft,
                place=place,
                user=user,
                lang=lang,
                created_at=services.now(),
            )
            services.store.put_pending(retry)
            buttons.append(retry_button(retry.id, lang=labels))
        else:
            buttons.append(rerun_button(thread_ts, lang=labels))
        if diagnosis.platform == "modelarts" and diagnosis.target.job_id and not services.backend.demo:
            buttons.append(log_link_button(thread_ts, lang=labels))
        message = report_message(diagnosis, lang=labels, requested_by=user, buttons=buttons, notes=notes)
        # Remembered before it is shown: a reply typed the moment the report appears finds it.
        record = ThreadRecord(
            place=place,
            draft=draft,
            diagnosis=diagnosis.to_json_dict(),
            lang=lang,
            user=user,
            created_at=services.now(),
        )
        services.store.put_thread(record)
        # Shown by an earlier run whose worker died before finishing: not shown again.
        shown = replace_or_post_findable(
            client,
            services.queue,
            "report",
            channel=place.channel,
            ts=place.status_ts,
            thread_ts=place.thread_ts,
            message=message,
        )
        if not once(services, request_id, "attachments"):
            return
        if shown is None:
            Notifier(client, channel=place.channel, user=user, thread_ts=place.thread_ts).tell(
                notice(label("post_failed", labels, error="chat.update"), emoji=":warning:")
            )
        if shown != place.status_ts:  # posted as a new message, or not at all
            services.store.put_thread(
                record.model_copy(update={"place": place.model_copy(update={"status_ts": shown})})
            )
        self.attach_report(
            client,
            diagnosis,
            place=place,
            lang=labels,
            engine_language=engine_lang(services, channel=place.channel, explicit=lang),
        )
        if exchanges:
            post_memory_chart(
                client,
                diagnosis,
                exchanges,
                channel=place.channel,
                thread_ts=place.thread_ts,
                lang=labels,
            )
        audit(
            "diagnose",
            user=user,
            channel=place.channel,
            what=what,
            outcome=diagnosis.outcome,
            category=diagnosis.category,
            confidence=diagnosis.confidence,
            backend=services.backend.name,
        )

    def attach_report(
        self, client: WebClient, diagnosis: Diagnosis, *, place: Place, lang: str, engine_language: str | None
    ) -> None:
        """The full Markdown report as a file in the thread (the message may have been cut)."""
        content, extension = full_report(diagnosis, lang=engine_language or lang)
        name = diagnosis.target.name or diagnosis.target.workload_id or diagnosis.target.job_id or "diagnosis"
        upload(
            client,
            channel=place.channel,
            thread_ts=place.thread_ts,
            content=content,
            filename=f"diagnosis-{_file_safe(name)}.{extension}",
            title=f"{label('report_comment', lang)}: {name}",
            comment=label("followups_hint", lang),
        )

    def _no_bundle(
        self,
        client: WebClient,
        draft: RequestDraft,
        exc: NoMatchingBundle,
        *,
        place: Place,
        user: str,
        lang: str,
    ) -> None:
        commands = [candidate.as_command() for candidate in exc.available]
        lines = "\n".join(f"• `/diagnose {escape_mrkdwn(mask(command))}`" for command in commands[:20])
        text = label_mrkdwn("no_bundle", lang, what=draft.describe()) + "\n" + lines
        message = notice_mrkdwn(
            text, fallback=label("no_bundle", lang, what=draft.describe()), emoji=":test_tube:"
        )
        replace_or_post(
            client, channel=place.channel, ts=place.status_ts, thread_ts=place.thread_ts, message=message
        )
        audit("diagnose", user=user, channel=place.channel, what=draft.describe(), outcome="no_bundle")

    def rerun(self, client: WebClient, record: ThreadRecord, asker: Asker) -> None:
        """The thread's request again, as a new report in the same thread."""
        self.start(
            client,
            record.draft,
            Asker(
                user=asker.user,
                channel=asker.channel,
                thread_ts=record.place.thread_ts,
                lang=asker.lang or record.lang,
            ),
        )


def once(services: BotServices, request_id: str | None, what: str) -> bool:
    """True for the first run of an accepted request to get here (all replicas)."""
    if request_id is None:
        return True
    return services.store.claim(f"answered:{request_id}:{what}", ttl_seconds=ANSWERED_TTL_SECONDS)


def first_answer(services: BotServices, accepted: AcceptedRequest, *, place: Place) -> bool:
    """Whether this run may answer: into its placeholder, unless another worker took the request
    over meanwhile (replacing the placeholder is the same message however often it is done);
    without a placeholder, only the first run, since its answer is a new message."""
    if not services.queue.still_current():
        return False
    return place.status_ts is not None or once(services, accepted.id, "answer")


def full_report(diagnosis: Diagnosis, *, lang: str) -> tuple[str, str]:
    """(content, extension): the engine's Markdown report, or the JSON when no renderer answers."""
    from diagnosis.render import render_json, render_markdown

    try:
        return render_markdown(diagnosis, lang=lang), "md"
    except Exception as exc:  # a renderer bug must not lose the report: attach the JSON instead
        log.warning("markdown report unavailable (%s); attaching JSON", type(exc).__name__)
        return render_json(diagnosis), "json"


def _file_safe(name: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name)
    return safe[:80] or "diagnosis"


__all__ = ["Conversation", "SlackMessage", "full_report", "ui_lang"]
