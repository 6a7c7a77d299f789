"""A message posted by a run whose worker died before it could remember it is found again by the
next run, through the Web API stand-in on a real socket and slack_sdk's own client: found, it is
used; not found, or the lookup failed, the message is posted (never lost)."""

from __future__ import annotations

import logging

import pytest
from slack_sdk import WebClient

from blocks.messages import notice
from bot.findable import EVENT_TYPE, PAGE_SIZE, find_posted, post_findable, replace_or_post_findable
from playground.slack_api import SlackApiStandIn
from playground.workspace import BOT_USER_ID

CHANNEL = "C0FINDABLE"
MESSAGE = notice("Working on it", emoji=":hourglass_flowing_sand:")


class Checkpoints:
    """What a task keeps across its runs (in the bot: bot.queue.redelivery's checkpoint)."""

    def __init__(self) -> None:
        self.saved: dict[str, str] = {}

    def recalled(self, name: str) -> str | None:
        return self.saved.get(name)

    def remember(self, name: str, value: str) -> None:
        self.saved[name] = value


@pytest.fixture
def client(slack_api: SlackApiStandIn) -> WebClient:
    return WebClient(token="xoxb-test-token", base_url=slack_api.url)


def killed_after_posting(
    slack_api: SlackApiStandIn, client: WebClient, *, thread_ts: str | None = None
) -> Checkpoints:
    """A first run that posted its message and died before it could remember the ts: only the
    intent is left, and Slack has the message."""
    first = Checkpoints()
    post_findable(client, first, "placeholder", channel=CHANNEL, thread_ts=thread_ts, message=MESSAGE)
    left = Checkpoints()
    left.saved = {"placeholder.intent": first.saved["placeholder.intent"]}
    return left


def placeholders(slack_api: SlackApiStandIn) -> list[str]:
    return [call.response["ts"] for call in slack_api.calls_to("chat.postMessage")]


def test_the_first_run_remembers_an_intent_then_posts_with_its_key_in_the_metadata(
    slack_api: SlackApiStandIn, client: WebClient
) -> None:
    checkpoints = Checkpoints()
    ts = post_findable(client, checkpoints, "placeholder", channel=CHANNEL, message=MESSAGE)
    [call] = slack_api.calls_to("chat.postMessage")
    key = checkpoints.saved["placeholder.intent"].split("@")[0]
    assert call.json_arg("metadata") == {"event_type": EVENT_TYPE, "event_payload": {"key": key}}
    assert checkpoints.saved["placeholder"] == ts == call.response["ts"]
    assert slack_api.calls_to("conversations.history") == [], "nothing to look for on a first run"


def test_a_run_after_a_death_in_flight_finds_the_message_and_posts_nothing(
    slack_api: SlackApiStandIn, client: WebClient
) -> None:
    checkpoints = killed_after_posting(slack_api, client)
    # Others wrote in the channel meanwhile, the bot too (another request's placeholder).
    slack_api.workspace.post(channel=CHANNEL, user="U0SOMEONE", text="any news?")
    post_findable(client, Checkpoints(), "placeholder", channel=CHANNEL, message=MESSAGE)
    [original, other] = placeholders(slack_api)
    ts = post_findable(client, checkpoints, "placeholder", channel=CHANNEL, message=MESSAGE)
    assert ts == original and checkpoints.saved["placeholder"] == original
    assert placeholders(slack_api) == [original, other], "no second placeholder"
    [lookup] = slack_api.calls_to("conversations.history")
    assert lookup.body["channel"] == CHANNEL and lookup.body["include_all_metadata"] in ("1", "true")
    since = float(checkpoints.saved["placeholder.intent"].split("@")[1])
    assert since - 120 < float(lookup.body["oldest"]) < since, "from a little before the intent"


def test_in_a_thread_the_replies_are_searched(slack_api: SlackApiStandIn, client: WebClient) -> None:
    parent = slack_api.workspace.post(channel=CHANNEL, user="U0ASKER", text="the job failed again")
    checkpoints = killed_after_posting(slack_api, client, thread_ts=parent.ts)
    [original] = placeholders(slack_api)
    ts = post_findable(
        client, checkpoints, "placeholder", channel=CHANNEL, thread_ts=parent.ts, message=MESSAGE
    )
    assert ts == original and placeholders(slack_api) == [original]
    [lookup] = slack_api.calls_to("conversations.replies")
    assert lookup.body["ts"] == parent.ts


def test_not_found_it_is_posted_with_the_same_key(slack_api: SlackApiStandIn, client: WebClient) -> None:
    # The first run died before Slack created anything: only the intent.
    checkpoints = Checkpoints()
    checkpoints.remember("placeholder.intent", "0123456789abcdef@1700000000.000000")
    ts = post_findable(client, checkpoints, "placeholder", channel=CHANNEL, message=MESSAGE)
    [call] = slack_api.calls_to("chat.postMessage")
    assert ts == call.response["ts"] == checkpoints.saved["placeholder"]
    assert call.json_arg("metadata")["event_payload"] == {"key": "0123456789abcdef"}
    assert len(slack_api.calls_to("conversations.history")) == 1


def test_a_message_of_another_key_or_person_is_not_taken_for_it(
    slack_api: SlackApiStandIn, client: WebClient
) -> None:
    checkpoints = Checkpoints()
    checkpoints.remember("placeholder.intent", "ours@1700000000.000000")
    # A person's message cannot carry app metadata; another request's placeholder has its own key.
    slack_api.workspace.post(
        channel=CHANNEL,
        user="U0SOMEONE",
        metadata={"event_type": EVENT_TYPE, "event_payload": {"key": "ours"}},
    )
    post_findable(client, Checkpoints(), "placeholder", channel=CHANNEL, message=MESSAGE)
    post_findable(client, checkpoints, "placeholder", channel=CHANNEL, message=MESSAGE)
    assert len(placeholders(slack_api)) == 2


def test_a_lookup_that_fails_posts_with_a_log_line(
    slack_api: SlackApiStandIn, client: WebClient, caplog: pytest.LogCaptureFixture
) -> None:
    checkpoints = killed_after_posting(slack_api, client)
    slack_api.fail("conversations.history", "missing_scope")
    with caplog.at_level(logging.WARNING, logger="diagnose.bot"):
        ts = post_findable(client, checkpoints, "placeholder", channel=CHANNEL, message=MESSAGE)
    first, second = placeholders(slack_api)
    assert ts == second != first, "the request is answered, in a second placeholder"
    assert any("conversations.history" in r.message and "missing_scope" in r.message for r in caplog.records)


def test_the_lookup_follows_the_cursor_to_a_second_page_and_no_further(
    slack_api: SlackApiStandIn, client: WebClient
) -> None:
    checkpoints = killed_after_posting(slack_api, client)
    [original] = placeholders(slack_api)
    for number in range(PAGE_SIZE + 20):  # a busy channel: the placeholder is on the second page
        slack_api.workspace.post(channel=CHANNEL, user="U0SOMEONE", text=f"message {number}")
    key, since = checkpoints.saved["placeholder.intent"].split("@")
    assert find_posted(client, channel=CHANNEL, thread_ts=None, key=key, since=float(since)) == original
    first_page, second_page = slack_api.calls_to("conversations.history")
    assert "cursor" not in first_page.body and first_page.response["has_more"] is True
    assert second_page.body["cursor"] == first_page.response["response_metadata"]["next_cursor"]
    for number in range(2 * PAGE_SIZE):
        slack_api.workspace.post(channel=CHANNEL, user="U0SOMEONE", text=f"later {number}")
    assert find_posted(client, channel=CHANNEL, thread_ts=None, key=key, since=float(since)) is None
    assert len(slack_api.calls_to("conversations.history")) == 4, "two pages at most"


def test_a_report_posted_anew_after_a_failed_update_is_found_not_posted_twice(
    slack_api: SlackApiStandIn, client: WebClient
) -> None:
    placeholder = slack_api.workspace.post(channel=CHANNEL, user=BOT_USER_ID, bot=True, text="working")
    slack_api.fail("chat.update", "message_not_found", times=2)  # the placeholder was deleted
    first = Checkpoints()
    posted = replace_or_post_findable(
        client, first, "report", channel=CHANNEL, ts=placeholder.ts, thread_ts=placeholder.ts, message=MESSAGE
    )
    again = Checkpoints()
    again.saved = {"report.intent": first.saved["report.intent"]}  # died before remembering the ts
    found = replace_or_post_findable(
        client, again, "report", channel=CHANNEL, ts=placeholder.ts, thread_ts=placeholder.ts, message=MESSAGE
    )
    assert found == posted and placeholders(slack_api) == [posted]
    # Shown by the update: a run that remembered it does not show it again.
    shown = Checkpoints()
    assert (
        replace_or_post_findable(
            client, shown, "report", channel=CHANNEL, ts=placeholder.ts, thread_ts=None, message=MESSAGE
        )
        == placeholder.ts
    )
    updates = len(slack_api.calls_to("chat.update"))
    replace_or_post_findable(
        client, shown, "report", channel=CHANNEL, ts=placeholder.ts, thread_ts=None, message=MESSAGE
    )
    assert len(slack_api.calls_to("chat.update")) == updates
