"""The Slack organisation of the person behind a request, and the middleware that refuses people of
organisations the access policy does not admit, at every entry point, before any listener runs.

In a Slack Connect channel people of other organisations see the bot's messages and can mention it,
reply in its threads and click its buttons (https://docs.slack.dev/apis/slack-connect). Slack names
the person's workspace (`T…`) or Enterprise Grid org (`E…`) in a different place per payload:

- slash command: `team_id` and `enterprise_id`;
- Events API: `event.user_team`, `event.source_team`, `event.team` (`user_team` can be an org id);
  the envelope's `team_id` is the workspace the event is delivered to, not the person's;
- clicks and modal submissions: `user.team_id`; the payload's `team` and `enterprise` are the app's
  own workspace and org (https://github.com/slackapi/java-slack-sdk/issues/1041), so they count
  only for a person of that same workspace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from slack_bolt import BoltContext, BoltResponse
from slack_sdk import WebClient

from blocks.labels import label
from blocks.messages import notice
from blocks.prompts import ANSWER_INPUT_BLOCK
from bot.audit import audit
from bot.conversation import channel_lang
from bot.mentions import mentions_user
from bot.policy import Organisation
from bot.runtime import Runtime, runtime_of
from bot.slack_client import Notifier

__all__ = ["Organisation", "installed_team", "organisation_of", "refuse_other_organisations"]

# Message subtypes that are people writing (as the thread-reply listener takes them).
HUMAN_SUBTYPES = (None, "thread_broadcast", "file_share")


def organisation_of(body: Mapping[str, Any]) -> Organisation | None:
    """The person's organisation as the payload names it; None when no person acts (an event such
    as `channel_shared`, or a bot's message: nothing to refuse)."""
    if "command" in body:
        return _named(
            body.get("user_id"), body.get("channel_id"), [body.get("team_id"), body.get("enterprise_id")]
        )
    if body.get("type") == "event_callback":
        event = _mapping(body.get("event"))
        user = event.get("user")
        if not isinstance(user, str) or not user:
            return None
        ids = [event.get(key) for key in ("user_team", "source_team", "team")]
        ids.append(_mapping(event.get("user_profile")).get("team"))
        if not any(ids) and body.get("is_ext_shared_channel") is not True:
            # A channel of the app's own workspace: the person is of the workspace it is delivered to.
            ids = [body.get("team_id"), body.get("enterprise_id")]
        return _named(user, event.get("channel"), ids)
    person = body.get("user")
    if isinstance(person, Mapping):
        own_team = _mapping(body.get("team"))
        team = person.get("team_id")
        ids = [team or own_team.get("id")]
        if not team or team == own_team.get("id"):
            ids += [_mapping(body.get("enterprise")).get("id"), own_team.get("enterprise_id")]
        channel = _mapping(body.get("channel")).get("id") or _mapping(body.get("container")).get("channel_id")
        return _named(person.get("id"), channel, ids)
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _named(user: Any, channel: Any, ids: Iterable[Any]) -> Organisation:
    named = {value for value in ids if isinstance(value, str) and value}
    return Organisation(
        user=str(user or ""),
        channel=str(channel or ""),
        teams=frozenset(value for value in named if not value.startswith("E")),
        enterprises=frozenset(value for value in named if value.startswith("E")),
    )


def installed_team(context: BoltContext) -> str | None:
    """The workspace the bot's token belongs to (Bolt's `auth.test` answer, asked once)."""
    result = context.authorize_result
    return str(result.team_id) if result is not None and result.team_id else None


def refuse_other_organisations(
    context: BoltContext, body: dict[str, Any], client: WebClient, next: Callable[[], None]
) -> BoltResponse | None:
    """Bolt middleware: a person the policy's `teams` / `enterprises` do not admit gets one clear
    sentence only they see (in the command's ack, the modal, or an ephemeral) and nothing else."""
    found = organisation_of(body)
    runtime = runtime_of(context)
    if found is None:
        next()
        return None
    decision = runtime.services.policy.admits_organisation(found, installed_team=installed_team(context))
    if decision.allowed:
        next()
        return None
    entry = _entry(body)
    audit(
        "refused",
        user=found.user,
        channel=found.channel,
        what=entry,
        outcome="other_organisation",
        reason=decision.reason,
    )
    text = label("other_organisation", channel_lang(runtime.services, found.channel))
    message = notice(text, emoji=":no_entry:")
    if entry == "command":
        return BoltResponse(
            status=200, body={"response_type": "ephemeral", "text": message.text, "blocks": message.blocks}
        )
    if entry == "view_submission":
        return BoltResponse(
            status=200, body={"response_action": "errors", "errors": {_input_block(body): text}}
        )
    thread_ts = _told_in_thread(runtime, body, context.bot_user_id) if entry == "event" else None
    if (entry == "block_actions" and found.channel) or thread_ts:
        tell = Notifier(client, channel=found.channel, user=found.user, thread_ts=thread_ts).tell
        runtime.services.background.run(tell, message)
    return BoltResponse(status=200, body="")


def _entry(body: Mapping[str, Any]) -> str:
    if "command" in body:
        return "command"
    kind = str(body.get("type") or "")
    return "event" if kind == "event_callback" else kind


def _input_block(body: Mapping[str, Any]) -> str:
    """The submitted view's first input block (where the refusal is shown), else the answer's."""
    values = _mapping(_mapping(_mapping(body.get("view")).get("state")).get("values"))
    return next(iter(values), ANSWER_INPUT_BLOCK)


def _told_in_thread(runtime: Runtime, body: Mapping[str, Any], bot_user_id: str | None) -> str | None:
    """The thread to answer a refused event in: a mention's, or a human reply's in a thread the bot
    answers (a report's). Anything else the bot would have ignored is ignored quietly."""
    event = _mapping(body.get("event"))
    if event.get("bot_id") or event.get("subtype") not in HUMAN_SUBTYPES:
        return None
    ts = str(event.get("ts") or "")
    thread_ts = str(event.get("thread_ts") or "")
    if event.get("type") == "app_mention":
        return thread_ts or ts or None
    channel = str(event.get("channel") or "")
    text = str(event.get("text") or "")
    if event.get("type") != "message" or not thread_ts or thread_ts == ts:
        return None
    if bot_user_id and mentions_user(text, bot_user_id):
        return None  # the same message arrives as app_mention, answered there
    return thread_ts if runtime.services.store.get_thread(channel, thread_ts) is not None else None
