"""A scan, from `/diagnose scan …` (or a mention with the same words) to the summary in its thread.

`scan modelarts [region=…]` covers a region's abnormal training jobs; `scan runai cluster=<id>
[project=<p>] [lookback=7d]` a cluster's (or one project's) failed workloads. The sequence:

start (a chat task) → access check on what was given → rate limit → placeholder in the channel →
the cluster asked in the thread when missing (a pending question, like a diagnosis') → the scan as
a diagnoses-queue task, its progress on the placeholder (listing, then done / total, at most one update
per interval) → access check on the whole scope → the grouped summary replaces the placeholder;
the scan/v1 JSON and the chart go in its thread.

A scan reads everything in its scope, so it is checked as final on platform, region, cluster and
project (rulings: a denial says the same words as any other and reveals nothing): a person allowed
one project only may scan that project, not the whole cluster.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from typing import Any

from slack_sdk import WebClient

from blocks.labels import label, label_mrkdwn
from blocks.messages import denied_message, notice, scan_message
from blocks.progress import scan_progress_message
from bot import access
from bot.audit import audit
from bot.backends import ScanScope
from bot.commands import RequestDraft, ScanCommand
from bot.conversation import Conversation, engine_lang, first_answer, once, ui_lang
from bot.failures import report_failure
from bot.findable import post_findable, replace_or_post_findable
from bot.messaging import PostFailed, replace_or_post, upload
from bot.pictures import post_scan_chart, scan_file_stem, scan_place
from bot.policy import Decision, Scope
from bot.progress import ScanProgressReporter
from bot.services import Asker, BotServices
from bot.slack_client import Notifier, best_effort_client
from bot.state.models import AcceptedRequest, Place

log = logging.getLogger("diagnose.bot")


def scan_scope(draft: RequestDraft) -> ScanScope:
    if draft.platform is None:
        raise ValueError("a scan names its platform")
    return ScanScope(
        platform=draft.platform,
        region=draft.region,
        cluster_id=draft.cluster_id,
        project=draft.project,
        lookback=draft.lookback,
    )


def policy_scope(draft: RequestDraft) -> Scope:
    if draft.platform is None:
        raise ValueError("a scan names its platform")
    return Scope(
        platform=draft.platform, cluster=draft.cluster_id, project=draft.project, region=draft.region
    )


class Scans:
    def __init__(self, services: BotServices, conversation: Conversation) -> None:
        self.services = services
        self.conversation = conversation

    def start(self, client: WebClient, command: ScanCommand, asker: Asker) -> None:
        """On the chat pool: check, post the placeholder, then ask for the cluster or queue the scan."""
        services = self.services
        draft = access.with_aliases(services, command.draft())
        lang = ui_lang(services, platform=draft.platform, channel=asker.channel, explicit=asker.lang)
        notifier = Notifier(
            client, channel=asker.channel, user=asker.user, thread_ts=asker.thread_ts, respond=asker.respond
        )
        what = draft.describe_scan()
        decision = self._decide(draft, user=asker.user, channel=asker.channel)
        if not decision.allowed:
            notifier.tell(denied_message(lang=lang))
            audit(
                "scan",
                user=asker.user,
                channel=asker.channel,
                what=what,
                outcome="denied",
                reason=decision.reason,
            )
            return
        limit = services.policy.rate_limit
        if not services.store.allow(
            f"user:{asker.user}", limit=limit.per_user, window_seconds=limit.window_seconds
        ):
            notifier.tell(notice(label("rate_limited", lang), emoji=":hourglass:"))
            audit("scan", user=asker.user, channel=asker.channel, what=what, outcome="rate_limited")
            return
        # Posted by an earlier run whose worker died (remembered, or found by its key): the same one.
        try:
            status_ts = post_findable(
                client,
                services.queue,
                "placeholder",
                channel=asker.channel,
                thread_ts=asker.thread_ts,
                message=scan_progress_message(
                    what=what, user=asker.user, lang=lang, platform=draft.platform or ""
                ),
            )
        except PostFailed as exc:
            log.warning("chat.postMessage to %s failed: %s", asker.channel, exc.error)
            notifier.tell(notice(label("post_failed", lang, error="chat.postMessage"), emoji=":warning:"))
            audit("scan", user=asker.user, channel=asker.channel, what=what, outcome="post_failed")
            return
        place = Place(channel=asker.channel, thread_ts=asker.thread_ts or status_ts, status_ts=status_ts)
        self.proceed(client, draft, place=place, user=asker.user, lang=asker.lang)

    def proceed(
        self, client: WebClient, draft: RequestDraft, *, place: Place, user: str, lang: str | None
    ) -> None:
        """Ask for the missing cluster (the answer comes back here), or queue the scan."""
        services = self.services
        missing = draft.missing_for_scan()
        if missing:
            question = self.conversation.identifier_question(draft, missing[0], place=place, lang=lang)
            self.conversation.ask(client, draft, question, place=place, user=user, lang=lang, purpose="scan")
            return
        # An earlier run of this task (whose worker died) may have queued it already: the same id
        # again, which the queue runs once.
        accepted_id = services.queue.recalled("accepted")
        if accepted_id is None:
            accepted_id = uuid.uuid4().hex[:20]
            services.queue.remember("accepted", accepted_id)
        accepted = AcceptedRequest(
            id=accepted_id,
            purpose="scan",
            draft=draft,
            place=place,
            user=user,
            lang=lang,
            created_at=services.now(),
        )
        if not services.queue.accept(accepted):
            labels = ui_lang(services, platform=draft.platform, channel=place.channel, explicit=lang)
            replace_or_post(
                client,
                channel=place.channel,
                ts=place.status_ts,
                thread_ts=place.thread_ts,
                message=notice(label("busy", labels), emoji=":hourglass:"),
            )
            audit("scan", user=user, channel=place.channel, what=draft.describe_scan(), outcome="busy")

    def run(self, client: WebClient, accepted: AcceptedRequest) -> None:
        """A diagnoses-queue task: the scan, its progress on the placeholder, then the summary (run
        again by the next worker if this one dies: see Conversation.run)."""
        services = self.services
        draft, place, user, lang = accepted.draft, accepted.place, accepted.user, accepted.lang
        labels = ui_lang(services, platform=draft.platform, channel=place.channel, explicit=lang)
        what = draft.describe_scan()
        decision = access.for_scan(services, policy_scope(draft), user=user, channel=place.channel)
        if not decision.allowed:
            # Same words as a denial before the placeholder: nothing about the cluster is told.
            replace_or_post(
                client,
                channel=place.channel,
                ts=place.status_ts,
                thread_ts=place.thread_ts,
                message=denied_message(lang=labels),
            )
            audit(
                "scan", user=user, channel=place.channel, what=what, outcome="denied", reason=decision.reason
            )
            return
        reporter = ScanProgressReporter(
            client=best_effort_client(client),
            background=services.background,
            channel=place.channel,
            ts=place.status_ts or "",
            what=what,
            user=user,
            lang=labels,
            platform=draft.platform or "",
            interval=services.progress_interval,
        )
        try:
            result: dict[str, Any] = asyncio.run(
                services.backend.scan(
                    scan_scope(draft),
                    lang=engine_lang(services, channel=place.channel, explicit=lang),
                    now=services.now(),
                    progress=reporter if place.status_ts else None,
                )
            )
        except Exception as exc:
            reporter.close()
            if first_answer(services, accepted, place=place):
                report_failure(client, exc, activity="scan", what=what, place=place, user=user, lang=labels)
            return
        reporter.close()
        if first_answer(services, accepted, place=place):
            self.deliver(
                client, result, what=what, place=place, user=user, lang=labels, request_id=accepted.id
            )

    def deliver(
        self,
        client: WebClient,
        result: dict[str, Any],
        *,
        what: str,
        place: Place,
        user: str,
        lang: str,
        request_id: str | None = None,
    ) -> None:
        """The summary on the placeholder; the scan/v1 JSON and the chart in its thread."""
        services = self.services
        notes = [":test_tube: " + label_mrkdwn("demo_note", lang)] if services.backend.demo else []
        shown = replace_or_post_findable(
            client,
            services.queue,
            "report",
            channel=place.channel,
            ts=place.status_ts,
            thread_ts=place.thread_ts,
            message=scan_message(result, lang=lang, notes=notes),
        )
        if not once(services, request_id, "attachments"):
            return
        if shown is None:
            Notifier(client, channel=place.channel, user=user, thread_ts=place.thread_ts).tell(
                notice(label("post_failed", lang, error="chat.update"), emoji=":warning:")
            )
        thread_ts = place.thread_ts or shown
        upload(
            client,
            channel=place.channel,
            thread_ts=thread_ts,
            content=json.dumps(result, ensure_ascii=False, indent=2),
            filename=f"{scan_file_stem(result)}.json",
            title=f"scan/v1 {result.get('platform') or ''} {scan_place(result)}".strip(),
        )
        post_scan_chart(client, result, channel=place.channel, thread_ts=thread_ts, lang=lang)
        audit(
            "scan",
            user=user,
            channel=place.channel,
            what=what,
            outcome="error" if result.get("error") else "done",
            scanned=result.get("scanned"),
            diagnosed=len(result.get("results") or []),
            backend=services.backend.name,
        )

    def _decide(self, draft: RequestDraft, *, user: str, channel: str) -> Decision:
        """With the scope complete, the final check; with the cluster still to ask, whether this
        person may scan the platform at all (the final check runs once it is answered)."""
        if draft.missing_for_scan():
            return access.before_run(self.services, draft, user=user, channel=channel)
        return access.for_scan(self.services, policy_scope(draft), user=user, channel=channel)
