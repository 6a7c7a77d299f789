"""Answers to the bot's questions and buttons: a choice or a typed value resumes the stored request
(a diagnosis, or a scan that asked for its cluster); Cancel drops it; Retry (after a permission
denial) and Re-run run it again, access checked anew."""

from __future__ import annotations

from slack_sdk import WebClient

from blocks.kit import SlackMessage
from blocks.labels import Mention, label, label_mrkdwn
from blocks.messages import denied_message, notice, notice_mrkdwn
from blocks.progress import progress_message, scan_progress_message
from blocks.prompts import answered_message, cancelled_message
from bot import access
from bot.audit import audit
from bot.conversation import Conversation, channel_lang, ui_lang
from bot.messaging import try_post, update
from bot.scans import Scans
from bot.services import BotServices
from bot.slack_client import Notifier
from bot.state.models import PendingRequest


def refused_answer(refusal: access.AnswerRefusal, *, lang: str) -> SlackMessage:
    """The one sentence a refused answer gets (only its sender sees it)."""
    return notice(label(refusal, lang), emoji=":no_entry:")


class Answers:
    def __init__(self, services: BotServices, conversation: Conversation, scans: Scans) -> None:
        self.services = services
        self.conversation = conversation
        self.scans = scans

    def answer(
        self,
        client: WebClient,
        pending_id: str,
        value: str,
        *,
        user: str,
        channel: str | None,
        prompt_ts: str | None = None,
    ) -> None:
        """A choice clicked or a value typed: resume the stored request with the answer.
        `prompt_ts`: the clicked message (the question), for a click that beat the stored ts."""
        services = self.services
        waiting = services.store.get_pending(pending_id)
        # Checked before the question is taken: a refused click must not use it up.
        if (
            waiting is not None
            and waiting.kind == "question"
            and self.refused(client, waiting, user=user, channel=channel)
        ):
            return
        pending = services.store.take_pending(pending_id)
        if pending is None or pending.kind != "question" or pending.question is None:
            if channel:
                Notifier(client, channel=channel, user=user).tell(
                    notice(label("already_answered", channel_lang(services, channel)))
                )
            return
        place = pending.place
        labels = ui_lang(
            services, platform=pending.draft.platform, channel=place.channel, explicit=pending.lang
        )
        question = pending.question
        draft = access.with_aliases(services, pending.draft.with_answer(question.key, value))
        decision = access.before_run(services, draft, user=user, channel=place.channel)
        if not decision.allowed:
            services.store.put_pending(pending)
            Notifier(client, channel=place.channel, user=user, thread_ts=place.thread_ts).tell(
                denied_message(lang=labels)
            )
            audit(
                "answer",
                user=user,
                channel=place.channel,
                what=draft.describe(),
                outcome="denied",
                reason=decision.reason,
            )
            return
        shown = next((choice.label for choice in question.choices or [] if choice.value == value), value)
        asked_in = pending.prompt_ts or prompt_ts
        if asked_in:
            update(
                client,
                channel=place.channel,
                ts=asked_in,
                message=answered_message(question.prompt, answer=shown, user=user, lang=labels),
            )
        audit(
            "answer",
            user=user,
            channel=place.channel,
            what=draft.describe(),
            outcome="answered",
            key=question.key,
        )
        scan = pending.purpose == "scan"
        placeholder = (
            scan_progress_message(
                what=draft.describe_scan(), user=pending.user, lang=labels, platform=draft.platform or ""
            )
            if scan
            else progress_message(what=draft.describe(), user=pending.user, lang=labels)
        )
        status_ts = place.status_ts
        if status_ts is None:
            status_ts = try_post(
                client, channel=place.channel, thread_ts=place.thread_ts, message=placeholder
            )
        else:
            update(client, channel=place.channel, ts=status_ts, message=placeholder)
        resumed = place.model_copy(update={"status_ts": status_ts})
        if scan:
            self.scans.proceed(client, draft, place=resumed, user=pending.user, lang=pending.lang)
            return
        self.conversation.proceed(client, draft, place=resumed, user=pending.user, lang=pending.lang)

    def cancel(
        self,
        client: WebClient,
        pending_id: str,
        *,
        user: str,
        channel: str | None,
        prompt_ts: str | None = None,
    ) -> None:
        waiting = self.services.store.get_pending(pending_id)
        if (
            waiting is not None
            and waiting.kind == "question"
            and self.refused(client, waiting, user=user, channel=channel)
        ):
            return
        pending = self.services.store.take_pending(pending_id)
        if pending is None or pending.question is None:
            return
        place = pending.place
        labels = ui_lang(
            self.services, platform=pending.draft.platform, channel=place.channel, explicit=pending.lang
        )
        asked_in = pending.prompt_ts or prompt_ts
        if asked_in:
            update(
                client,
                channel=place.channel,
                ts=asked_in,
                message=cancelled_message(pending.question.prompt, user=user, lang=labels),
            )
        if place.status_ts:
            update(
                client,
                channel=place.channel,
                ts=place.status_ts,
                message=notice_mrkdwn(
                    label_mrkdwn("cancelled", labels, user=Mention(user)),
                    fallback=label("cancelled", labels, user=user),
                    emoji=":no_entry_sign:",
                ),
            )
        audit("answer", user=user, channel=place.channel, what=pending.draft.describe(), outcome="cancelled")

    def refused(self, client: WebClient, pending: PendingRequest, *, user: str, channel: str | None) -> bool:
        """True (and the clicker told why, only they see it) when `user` in `channel` may not answer
        the question: see `access.answer_refusal`."""
        refusal = access.answer_refusal(pending, user=user, channel=channel)
        if refusal is None:
            return False
        audit(
            "answer",
            user=user,
            channel=channel or "",
            what=pending.draft.describe(),
            outcome="refused",
            reason=refusal,
        )
        if channel:
            Notifier(client, channel=channel, user=user).tell(
                refused_answer(refusal, lang=channel_lang(self.services, channel))
            )
        return True

    def retry(self, client: WebClient, pending_id: str, *, user: str, channel: str) -> None:
        """Retry after permissions were granted: same request, same thread, access checked again."""
        services = self.services
        # Checked before the request is taken: a copied button clicked in another channel must not
        # use up the Retry of the channel it was posted in.
        waiting = services.store.get_pending(pending_id)
        usable = waiting is not None and waiting.kind == "retry" and waiting.place.channel == channel
        pending = services.store.take_pending(pending_id) if usable else None
        if pending is None:
            Notifier(client, channel=channel, user=user).tell(
                notice(label("already_answered", channel_lang(services, channel)))
            )
            return
        place = pending.place
        labels = ui_lang(
            services, platform=pending.draft.platform, channel=place.channel, explicit=pending.lang
        )
        decision = access.before_run(services, pending.draft, user=user, channel=channel)
        if not decision.allowed:
            services.store.put_pending(pending)
            Notifier(client, channel=channel, user=user, thread_ts=place.thread_ts).tell(
                denied_message(lang=labels)
            )
            audit(
                "retry",
                user=user,
                channel=channel,
                what=pending.draft.describe(),
                outcome="denied",
                reason=decision.reason,
            )
            return
        if place.status_ts:
            update(
                client,
                channel=channel,
                ts=place.status_ts,
                message=progress_message(what=pending.draft.describe(), user=user, lang=labels),
            )
        audit("retry", user=user, channel=channel, what=pending.draft.describe(), outcome="started")
        self.conversation.proceed(client, pending.draft, place=place, user=user, lang=pending.lang)
