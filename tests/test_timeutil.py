"""Log times written without an offset, read as instants (diagnosis.timeutil.naive_log_instant)."""

from __future__ import annotations

from datetime import UTC, datetime

from diagnosis.timeutil import naive_log_instant


def test_a_time_without_an_offset_reads_as_utc_when_that_is_possible() -> None:
    written = datetime(2026, 6, 10, 1, 21, 13)
    captured = datetime(2026, 6, 10, 2, 0, tzinfo=UTC)
    assert naive_log_instant(written, not_after=captured) == datetime(2026, 6, 10, 1, 21, 13, tzinfo=UTC)
    assert naive_log_instant(written, not_after=None) == datetime(2026, 6, 10, 1, 21, 13, tzinfo=UTC)


def test_a_time_that_would_come_after_the_capture_as_utc_is_china_time() -> None:
    # A container on China time wrote 09:21 at 01:21Z; the log was read at 02:00Z.
    written = datetime(2026, 6, 10, 9, 21, 13)
    captured = datetime(2026, 6, 10, 2, 0, tzinfo=UTC)
    assert naive_log_instant(written, not_after=captured) == datetime(2026, 6, 10, 1, 21, 13, tzinfo=UTC)


def test_a_few_minutes_of_clock_skew_keep_the_utc_reading() -> None:
    written = datetime(2026, 6, 10, 2, 4, 0)
    captured = datetime(2026, 6, 10, 2, 0, tzinfo=UTC)
    assert naive_log_instant(written, not_after=captured) == datetime(2026, 6, 10, 2, 4, tzinfo=UTC)


def test_a_time_impossible_in_both_zones_stays_utc() -> None:
    written = datetime(2026, 6, 11, 12, 0, 0)
    captured = datetime(2026, 6, 10, 2, 0, tzinfo=UTC)
    assert naive_log_instant(written, not_after=captured) == datetime(2026, 6, 11, 12, 0, tzinfo=UTC)
