"""The stand-in's conversations.history and conversations.replies, read with slack_sdk's own client
as the bot reads Slack's (https://docs.slack.dev/reference/methods/conversations.history,
https://docs.slack.dev/reference/methods/conversations.replies): message metadata only when asked
for, the `oldest` window, pages joined by `response_metadata.next_cursor`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from playground.slack_api import SlackApiStandIn, running_slack_api

CHANNEL = "C0HISTORY1"
METADATA = {"event_type": "diagnose_message_posted", "event_payload": {"key": "k1"}}


@pytest.fixture
def api() -> Iterator[SlackApiStandIn]:
    with running_slack_api() as running:
        yield running


@pytest.fixture
def client(api: SlackApiStandIn) -> WebClient:
    return WebClient(token="xoxb-test-token", base_url=api.url)


def test_metadata_posted_with_a_message_comes_back_only_with_include_all_metadata(
    api: SlackApiStandIn, client: WebClient
) -> None:
    posted = client.chat_postMessage(channel=CHANNEL, text="working", metadata=METADATA)
    plain = client.conversations_history(channel=CHANNEL)
    [message] = plain["messages"]
    assert message["ts"] == posted["ts"] and "metadata" not in message and message["bot_id"]
    [message] = client.conversations_history(channel=CHANNEL, include_all_metadata=True)["messages"]
    assert message["metadata"] == METADATA


def test_history_is_top_level_newest_first_within_oldest(api: SlackApiStandIn, client: WebClient) -> None:
    first = api.workspace.post(channel=CHANNEL, user="U0A", text="first")
    second = api.workspace.post(channel=CHANNEL, user="U0A", text="second")
    api.workspace.post(channel=CHANNEL, user="U0B", text="a reply", thread_ts=first.ts)
    api.workspace.post(channel=CHANNEL, user="U0B", text="only for A", ephemeral_to="U0A")
    api.workspace.post(channel="C0ELSEWHER", user="U0A", text="elsewhere")
    answer = client.conversations_history(channel=CHANNEL)
    assert [m["text"] for m in answer["messages"]] == ["second", "first"] and answer["has_more"] is False
    later = client.conversations_history(channel=CHANNEL, oldest=first.ts)
    assert [m["ts"] for m in later["messages"]] == [second.ts], "oldest is exclusive"
    both = client.conversations_history(channel=CHANNEL, oldest=first.ts, inclusive=True)
    assert len(both["messages"]) == 2


def test_pages_follow_the_cursor_until_has_more_is_false(api: SlackApiStandIn, client: WebClient) -> None:
    posted = [api.workspace.post(channel=CHANNEL, user="U0A", text=str(n)).ts for n in range(7)]
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = client.conversations_history(channel=CHANNEL, limit=3, cursor=cursor)
        seen += [m["ts"] for m in page["messages"]]
        cursor = page["response_metadata"]["next_cursor"]
        if not page["has_more"]:
            assert cursor == ""
            break
    assert seen == list(reversed(posted))
    with pytest.raises(SlackApiError) as failed:
        client.conversations_history(channel=CHANNEL, cursor="not-a-cursor")
    assert failed.value.response["error"] == "invalid_cursor"


def test_replies_start_with_the_parent_then_the_replies_oldest_first(
    api: SlackApiStandIn, client: WebClient
) -> None:
    parent = api.workspace.post(channel=CHANNEL, user="U0A", text="the job failed")
    early = api.workspace.post(channel=CHANNEL, user="U0B", text="early", thread_ts=parent.ts)
    client.chat_postMessage(channel=CHANNEL, thread_ts=parent.ts, text="placeholder", metadata=METADATA)
    answer = client.conversations_replies(channel=CHANNEL, ts=parent.ts, include_all_metadata=True)
    assert [m["text"] for m in answer["messages"]] == ["the job failed", "early", "placeholder"]
    assert answer["messages"][2]["metadata"] == METADATA
    windowed = client.conversations_replies(channel=CHANNEL, ts=parent.ts, oldest=early.ts)
    assert [m["text"] for m in windowed["messages"]] == ["the job failed", "placeholder"]


def test_a_strict_workspace_answers_an_unknown_thread_as_slack_does() -> None:
    with running_slack_api(strict=True) as api:
        client = WebClient(token="xoxb-test-token", base_url=api.url)
        with pytest.raises(SlackApiError) as failed:
            client.conversations_replies(channel=CHANNEL, ts="1700000000.000001")
    assert failed.value.response["error"] == "thread_not_found"
