"""What a training process's exit code means: the one catalogue of exit codes.

`diagnose explain`, both platforms' workflows and the reports read it: the signal a code stands
for, its meaning in each language, its usual cause in a training pod, and what a job's exit code
says when nothing else names a cause (`EXIT_READINGS`).

Convention: a process killed by signal N exits with 128+N (the shell and containerd report it so,
https://www.gnu.org/software/bash/manual/html_node/Exit-Status.html); Python's subprocess and
torchrun report a killed child as a negative code (`exitcode: -9`,
https://docs.python.org/3/library/subprocess.html#subprocess.Popen.returncode). Codes with no
documented meaning say so instead of guessing.
"""

from __future__ import annotations

import signal as _signal
from collections.abc import Mapping
from dataclasses import dataclass, field

from diagnosis.knowledge.catalogue import Message, Step, change, check, t
from diagnosis.models import Category
from diagnosis.render.i18n import check_language

LANGUAGES = ("en", "fr", "zh", "ja")

# 128+N for a process killed by signal N (shells, container runtimes), 126/127 for a command
# that cannot run or is not found; Linux signal numbers.
SOURCE_EXIT_STATUS = (
    "Bash manual, exit status: https://www.gnu.org/software/bash/manual/html_node/Exit-Status.html; "
    "Linux signal numbers, signal(7): https://man7.org/linux/man-pages/man7/signal.7.html"
)
SOURCE_MODELARTS = (
    "ModelArts troubleshooting, training job process exits unexpectedly: "
    "https://support.huaweicloud.com/intl/en-us/trouble-modelarts/modelarts_13_0074.html"
)


@dataclass(frozen=True)
class ExitCodeInfo:
    code: int
    signal: str | None
    meaning_en: str
    typical_cause_en: str
    documented: bool = True
    source: str | None = None
    meanings: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    typical_causes: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def meaning(self, lang: str = "en") -> str:
        return self.meanings.get(lang) or self.meaning_en

    def typical_cause(self, lang: str = "en") -> str:
        return self.typical_causes.get(lang) or self.typical_cause_en


@dataclass(frozen=True)
class _Row:
    signal: str | None
    meaning: Message
    cause: Message
    source: str = SOURCE_EXIT_STATUS


# One row per documented code. `meaning`: one short phrase (`exit.<code>.meaning`); `cause`: the
# usual reason in a training pod (`exit.<code>.cause`); both in the `explain` message catalogue.
_TABLE: dict[int, _Row] = {
    0: _Row(
        None,
        t("exit.0.meaning"),
        t("exit.0.cause"),
    ),
    1: _Row(
        None,
        t("exit.1.meaning"),
        t("exit.1.cause"),
    ),
    2: _Row(
        None,
        t("exit.2.meaning"),
        t("exit.2.cause"),
    ),
    126: _Row(
        None,
        t("exit.126.meaning"),
        t("exit.126.cause"),
    ),
    127: _Row(
        None,
        t("exit.127.meaning"),
        t("exit.127.cause"),
    ),
    128: _Row(
        None,
        t("exit.128.meaning"),
        t("exit.128.cause"),
    ),
    130: _Row(
        "SIGINT",
        t("exit.130.meaning"),
        t("exit.130.cause"),
    ),
    134: _Row(
        "SIGABRT",
        t("exit.134.meaning"),
        t("exit.134.cause"),
    ),
    135: _Row(
        "SIGBUS",
        t("exit.135.meaning"),
        t("exit.135.cause"),
    ),
    137: _Row(
        "SIGKILL",
        t("exit.137.meaning"),
        t("exit.137.cause"),
    ),
    139: _Row(
        "SIGSEGV",
        t("exit.139.meaning"),
        t("exit.139.cause"),
    ),
    143: _Row(
        "SIGTERM",
        t("exit.143.meaning"),
        t("exit.143.cause"),
    ),
    247: _Row(
        None,
        t("exit.247.meaning"),
        t("exit.247.cause"),
        SOURCE_MODELARTS,
    ),
    255: _Row(
        None,
        t("exit.255.meaning"),
        t("exit.255.cause"),
    ),
}

_SIGNAL_MEANING = t("exit.signal.meaning")
_SIGNAL_CAUSE = t("exit.signal.cause")
_CHILD_MEANING = t("exit.child.meaning")
_CHILD_CAUSE = t("exit.child.cause")
_UNKNOWN_MEANING = t("exit.unknown.meaning")
_UNKNOWN_CAUSE = t("exit.unknown.cause")
_PREFIX = t("exit.prefix")
_SEPARATOR = t("exit.separator")
_SENTENCE_END = t("exit.sentence_end")


def _signal_name(number: int) -> str | None:
    """The signal's name (Linux numbering, as in the training containers), or None."""
    try:
        return _signal.Signals(number).name
    except ValueError:
        return None


def _format_all(templates: Mapping[str, str], **values: object) -> dict[str, str]:
    return {lang: template.format(**values) for lang, template in templates.items()}


def exit_code_info(code: int) -> ExitCodeInfo:
    """The documented meaning of an exit code; `documented=False` when there is none."""
    row = _TABLE.get(code)
    if row is not None:
        return ExitCodeInfo(
            code=code,
            signal=row.signal,
            meaning_en=row.meaning["en"],
            typical_cause_en=row.cause["en"],
            source=row.source,
            meanings=dict(row.meaning),
            typical_causes=dict(row.cause),
        )
    if 128 < code < 256:
        name = _signal_name(code - 128)
        if name is not None:
            meanings = _format_all(_SIGNAL_MEANING, name=name, number=code - 128)
            causes = _format_all(_SIGNAL_CAUSE, name=name)
            return ExitCodeInfo(
                code, name, meanings["en"], causes["en"], True, SOURCE_EXIT_STATUS, meanings, causes
            )
    if code < 0:
        name = _signal_name(-code)
        if name is not None:
            meanings = _format_all(_CHILD_MEANING, name=name, number=-code)
            causes = dict(_CHILD_CAUSE)
            return ExitCodeInfo(
                code, name, meanings["en"], causes["en"], True, SOURCE_EXIT_STATUS, meanings, causes
            )
    meanings = _format_all(_UNKNOWN_MEANING, code=code)
    return ExitCodeInfo(
        code=code,
        signal=None,
        meaning_en=meanings["en"],
        typical_cause_en=_UNKNOWN_CAUSE["en"],
        documented=False,
        meanings=meanings,
        typical_causes=dict(_UNKNOWN_CAUSE),
    )


def describe_exit_code(code: int, lang: str = "en") -> str:
    """One short sentence, e.g. `Exit code 137 (SIGKILL): killed by SIGKILL (128+9).`"""
    language = check_language(lang, LANGUAGES)
    info = exit_code_info(code)
    label = f"{_PREFIX[language]} {code}"
    if info.signal and info.signal not in info.meaning(language):
        label += f" ({info.signal})"
    end = _SENTENCE_END[language]
    return f"{label}{_SEPARATOR[language]}{info.meaning(language)}{end}"


def killing_signal(code: int) -> str | None:
    """The signal an exit code stands for (`SIGKILL` for 137 and for -9), or None: the signal of
    `exit_code_info(code)`, without reading its texts in every language."""
    row = _TABLE.get(code)
    if row is not None:
        return row.signal
    if 128 < code < 256:
        return _signal_name(code - 128)
    if code < 0:
        return _signal_name(-code)
    return None


# A process killed from outside: SIGKILL or SIGTERM, as the shell or containerd reports it (137,
# 143) and as torchrun reports a killed child (-9, -15). Without OOMKilled or another explanation
# such an exit names no cause: something else (the kubelet, a stop, a probe) killed it.
KILLED_FROM_OUTSIDE = frozenset({137, 143, -9, -15})
# ModelArts documents 137 and 247 (-9 read as an unsigned byte) as a killed process, most often
# out of memory: with a memory hint at the end of the log (`Killed`) they read as a memory kill.
MEMORY_KILL_CODES = frozenset({137, 247})


@dataclass(frozen=True)
class ExitReading:
    """What a job's non-zero exit code says when no message, event or log line names a cause: a
    category (MEDIUM at best), the id of the sentence that words it, the ids of the fixes offered."""

    category: Category
    meaning_id: str
    fix_ids: tuple[str, ...] = ()


_USER_ERROR = ExitReading("CRASH_APP_ERROR", "exit.user_error", ("fix_code",))
_KILLED = ExitReading("UNKNOWN", "exit.137")
EXIT_READINGS: dict[int, ExitReading] = {
    1: _USER_ERROR,
    2: _USER_ERROR,
    134: ExitReading("CRASH_APP_ERROR", "exit.134", ("fix_code",)),
    137: _KILLED,
    139: ExitReading("CRASH_APP_ERROR", "exit.139", ("pin_dependencies",)),
    247: _KILLED,
}
# Any other non-zero code: no known specific meaning (its signal named when it has one).
OTHER_EXIT = ExitReading("UNKNOWN", "exit.other")
MEMORY_KILL = ExitReading("OOM_KILLED", "exit.137_oom")


def exit_reading(code: int) -> ExitReading:
    return EXIT_READINGS.get(code, OTHER_EXIT)


# ----------------------------------------------------------------------------------------------
# What to do about each exit code (`diagnose explain <code>`)
# ----------------------------------------------------------------------------------------------

_EXPLAIN_LOG = check("step.explain_log")
_FIX_AND_RESUBMIT = change("step.fix_and_resubmit")
_KILL_CHECKS = check("step.kill_checks")
_MEMORY_CHANGE = change("step.memory_change")

EXIT_CODE_STEPS: dict[int, tuple[Step, ...]] = {
    0: (check("exit.0.step.1"),),
    1: (_EXPLAIN_LOG, _FIX_AND_RESUBMIT),
    2: (
        check("exit.2.step.1"),
        change("exit.2.step.2"),
    ),
    126: (
        check("exit.126.step.1"),
        _FIX_AND_RESUBMIT,
    ),
    127: (
        check("exit.127.step.1"),
        _FIX_AND_RESUBMIT,
    ),
    128: (
        check("exit.128.step.1"),
        _FIX_AND_RESUBMIT,
    ),
    130: (check("exit.130.step.1"),),
    134: (
        _EXPLAIN_LOG,
        check("exit.134.step.2"),
        _FIX_AND_RESUBMIT,
    ),
    135: (
        check("exit.135.step.1"),
        change("exit.135.step.2"),
    ),
    137: (_KILL_CHECKS, _MEMORY_CHANGE),
    139: (
        _EXPLAIN_LOG,
        check("exit.139.step.2"),
        change("exit.139.step.3"),
    ),
    143: (check("exit.143.step.1"),),
    247: (_KILL_CHECKS, _MEMORY_CHANGE),
    255: (
        _EXPLAIN_LOG,
        check("exit.255.step.2"),
    ),
}
SIGNAL_EXIT_STEPS: tuple[Step, ...] = (check("step.signal_exit.1"),)
CHILD_EXIT_STEPS: tuple[Step, ...] = (
    check("step.child_exit.1"),
    _MEMORY_CHANGE,
)
