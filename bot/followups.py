"""Answers from a stored diagnosis (thread follow-ups), explanations and the log link."""

from __future__ import annotations

import asyncio
import json
import logging

from slack_sdk import WebClient

from blocks.labels import label
from blocks.messages import (
    denied_message,
    evidence_message,
    history_message,
    logs_message,
    markdown_message,
    notice,
    why_message,
)
from blocks.prompts import log_link_button, log_link_message
from bot import access
from bot.audit import audit
from bot.backends import BackendUnavailable
from bot.conversation import Conversation, engine_lang, ui_lang
from bot.explain import explain_markdown
from bot.mentions import FollowUp
from bot.messaging import try_post, upload
from bot.services import Asker, BotServices
from bot.slack_client import Notifier, quiet_client
from bot.state.models import ThreadRecord
from diagnosis.masking import mask
from diagnosis.models import Diagnosis

log = logging.getLogger("diagnose.bot")


class FollowUps:
    def __init__(self, services: BotServices, conversation: Conversation) -> None:
        self.services = services
        self.conversation = conversation

    def answer(self, client: WebClient, follow: FollowUp, record: ThreadRecord, asker: Asker) -> None:
        """`evidence`, `history`, `logs`, `json`, `why`, `rerun`, `explain N` in a report's thread."""
        services = self.services
        diagnosis = Diagnosis.model_validate(record.diagnosis)
        lang = ui_lang(
            services, platform=diagnosis.platform, channel=asker.channel, explicit=asker.lang or record.lang
        )
        thread_ts = record.place.thread_ts
        # The thread may be in another channel's scope than the policy allows now: check again.
        decision = access.on_target(services, diagnosis, record.draft, user=asker.user, channel=asker.channel)
        if not decision.allowed:
            Notifier(client, channel=asker.channel, user=asker.user, thread_ts=thread_ts).tell(
                denied_message(lang=lang)
            )
            audit(
                "follow_up",
                user=asker.user,
                channel=asker.channel,
                what=follow.kind,
                outcome="denied",
                reason=decision.reason,
            )
            return
        audit("follow_up", user=asker.user, channel=asker.channel, what=follow.kind, outcome="answered")
        if follow.kind == "rerun":
            self.conversation.rerun(client, record, asker)
            return
        if follow.kind == "explain" and follow.code is not None:
            self.explain(
                client,
                follow.code,
                Asker(
                    user=asker.user,
                    channel=asker.channel,
                    thread_ts=thread_ts,
                    lang=follow.lang or asker.lang or record.lang,
                ),
            )
            return
        if follow.kind == "json":
            ok = upload(
                client,
                channel=asker.channel,
                thread_ts=thread_ts,
                content=json.dumps(diagnosis.to_json_dict(), ensure_ascii=False, indent=2),
                filename="diagnosis.json",
                title=label("json_comment", lang),
            )
            if not ok:
                Notifier(client, channel=asker.channel, user=asker.user, thread_ts=thread_ts).tell(
                    notice(label("post_failed", lang, error="files.upload"), emoji=":warning:")
                )
            return
        if follow.kind == "evidence":
            message = evidence_message(diagnosis, lang=lang)
        elif follow.kind == "history":
            message = history_message(diagnosis, lang=lang)
        elif follow.kind == "logs":
            buttons = []
            if diagnosis.platform == "modelarts" and diagnosis.target.job_id and not services.backend.demo:
                buttons.append(log_link_button(thread_ts or "", lang=lang))
            message = logs_message(diagnosis, lang=lang, buttons=buttons)
        else:
            message = why_message(diagnosis, lang=lang)
        if try_post(client, channel=asker.channel, thread_ts=thread_ts, message=message) is None:
            Notifier(client, channel=asker.channel, user=asker.user, thread_ts=thread_ts).tell(message)

    def explain(self, client: WebClient, code: str, asker: Asker) -> None:
        lang = ui_lang(self.services, platform=None, channel=asker.channel, explicit=asker.lang)
        try:
            markdown, _known = explain_markdown(
                code, lang=engine_lang(self.services, channel=asker.channel, explicit=asker.lang) or "en"
            )
        except Exception as exc:
            log.warning("explain failed: %s", type(exc).__name__)
            markdown = None
        if markdown is None:
            message = notice(label("explain_none", lang, code=mask(code)))
        else:
            message = markdown_message(markdown, fallback=f"explain {mask(code)}", lang=lang)
        notifier = Notifier(
            client, channel=asker.channel, user=asker.user, thread_ts=asker.thread_ts, respond=asker.respond
        )
        if asker.thread_ts and asker.respond is None:
            if try_post(client, channel=asker.channel, thread_ts=asker.thread_ts, message=message) is None:
                notifier.tell(message)
            return
        notifier.tell(message)

    def log_link(
        self, client: WebClient, record: ThreadRecord, task: str, *, user: str, channel: str
    ) -> None:
        """The short-lived full-log link, to the asker only (ephemeral), never logged or stored."""
        services = self.services
        diagnosis = Diagnosis.model_validate(record.diagnosis)
        lang = ui_lang(services, platform=diagnosis.platform, channel=channel, explicit=record.lang)
        notifier = Notifier(client, channel=channel, user=user, thread_ts=record.place.thread_ts)
        decision = access.on_target(services, diagnosis, record.draft, user=user, channel=channel)
        if not decision.allowed:
            notifier.tell(denied_message(lang=lang))
            audit(
                "log_link",
                user=user,
                channel=channel,
                what=record.draft.describe(),
                outcome="denied",
                reason=decision.reason,
            )
            return
        job_id = diagnosis.target.job_id
        if diagnosis.platform != "modelarts" or not job_id:
            notifier.tell(notice(label("log_link_unavailable", lang)))
            return
        try:
            url = asyncio.run(
                services.backend.log_url(job_id=job_id, task_id=task, region=diagnosis.target.region)
            )
        except Exception as exc:
            reason = (
                label(exc.key, lang, **exc.values)
                if isinstance(exc, BackendUnavailable)
                else type(exc).__name__
            )
            notifier.tell(notice(mask(label("log_link_failed", lang, reason=reason)), emoji=":warning:"))
            audit("log_link", user=user, channel=channel, what=record.draft.describe(), outcome="error")
            return
        # The link is a credential: sent through a client that never logs request bodies.
        private = Notifier(quiet_client(client), channel=channel, user=user, thread_ts=record.place.thread_ts)
        private.tell(log_link_message(url, job=diagnosis.target.name or job_id, task=task, lang=lang))
        audit("log_link", user=user, channel=channel, what=record.draft.describe(), outcome="sent", task=task)
