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
from dataclasses import dataclass, field

from diagnosis.knowledge.catalogue import Step, change, check
from diagnosis.models import Category

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
    meaning: dict[str, str]
    cause: dict[str, str]
    source: str = SOURCE_EXIT_STATUS


# One row per documented code. `meaning`: one short sentence per language; `cause`: the usual
# reason in a training pod (en, zh).
_TABLE: dict[int, _Row] = {
    0: _Row(
        None,
        {"en": "success", "fr": "succès", "zh": "成功退出", "ja": "正常終了"},
        {"en": "The process finished normally.", "zh": "进程正常结束。"},
    ),
    1: _Row(
        None,
        {
            "en": "generic failure raised by the program itself",
            "fr": "échec générique signalé par le programme lui-même",
            "zh": "程序自身报告的一般性失败",
            "ja": "プログラム自身が返した一般的な失敗",
        },
        {
            "en": "An uncaught Python exception (a traceback in the log), sys.exit(1), or a torchrun "
            "ChildFailedError for a rank that raised.",
            "zh": "未捕获的 Python 异常（日志中有 traceback）、sys.exit(1)，或 torchrun 因某个 rank 抛出异常而报告 ChildFailedError。",
        },
    ),
    2: _Row(
        None,
        {
            "en": "command-line usage error",
            "fr": "erreur d'utilisation de la ligne de commande",
            "zh": "命令行用法错误",
            "ja": "コマンドラインの使い方の誤り",
        },
        {
            "en": "argparse rejected the arguments (`error: unrecognized arguments`) or a shell builtin was misused.",
            "zh": "argparse 拒绝了参数（`error: unrecognized arguments`），或误用了 shell 内置命令。",
        },
    ),
    126: _Row(
        None,
        {
            "en": "command found but not executable",
            "fr": "commande trouvée mais non exécutable",
            "zh": "找到命令但无法执行",
            "ja": "コマンドは見つかったが実行できない",
        },
        {
            "en": "Missing execute permission, a binary for another CPU architecture, or a `noexec` mount.",
            "zh": "缺少执行权限、二进制文件的 CPU 架构不符，或挂载点为 `noexec`。",
        },
    ),
    127: _Row(
        None,
        {
            "en": "command not found",
            "fr": "commande introuvable",
            "zh": "找不到命令",
            "ja": "コマンドが見つからない",
        },
        {
            "en": "A typo in the command, a binary missing from the image, or a wrong PATH (when a shell runs it).",
            "zh": "命令拼写错误、镜像中缺少该程序，或 PATH 不正确（由 shell 执行时）。",
        },
    ),
    128: _Row(
        None,
        {
            "en": "the process could not be started (containerd StartError)",
            "fr": "le processus n'a pas pu démarrer (StartError de containerd)",
            "zh": "进程无法启动（containerd StartError）",
            "ja": "プロセスを起動できなかった（containerd の StartError）",
        },
        {
            "en": "A bad command or entrypoint, a missing binary without a shell, or a mount/device hook failure.",
            "zh": "命令或入口点错误、无 shell 时缺少可执行文件，或挂载/设备钩子失败。",
        },
    ),
    130: _Row(
        "SIGINT",
        {
            "en": "interrupted by SIGINT (128+2)",
            "fr": "interrompu par SIGINT (128+2)",
            "zh": "被 SIGINT 中断（128+2）",
            "ja": "SIGINT により中断（128+2）",
        },
        {"en": "Someone or something sent Ctrl-C / SIGINT.", "zh": "有人或某个程序发送了 Ctrl-C / SIGINT。"},
    ),
    134: _Row(
        "SIGABRT",
        {
            "en": "aborted by SIGABRT (128+6)",
            "fr": "interrompu par SIGABRT (128+6)",
            "zh": "被 SIGABRT 中止（128+6）",
            "ja": "SIGABRT により異常終了（128+6）",
        },
        {
            "en": "A C++ `terminate called after throwing …`, a failed assertion, or a fatal CUDA/NCCL error "
            "(`Aborted (core dumped)`).",
            "zh": "C++ 的 `terminate called after throwing …`、断言失败，或 CUDA/NCCL 致命错误（`Aborted (core dumped)`）。",
        },
    ),
    135: _Row(
        "SIGBUS",
        {
            "en": "bus error, SIGBUS (128+7)",
            "fr": "erreur de bus, SIGBUS (128+7)",
            "zh": "总线错误，SIGBUS（128+7）",
            "ja": "バスエラー、SIGBUS（128+7）",
        },
        {
            "en": "Usually exhausted shared memory (/dev/shm) used by DataLoader workers.",
            "zh": "通常是 DataLoader worker 使用的共享内存（/dev/shm）耗尽。",
        },
    ),
    137: _Row(
        "SIGKILL",
        {
            "en": "killed by SIGKILL (128+9)",
            "fr": "tué par SIGKILL (128+9)",
            "zh": "被 SIGKILL 强制终止（128+9）",
            "ja": "SIGKILL により強制終了（128+9）",
        },
        {
            "en": "With reason OOMKilled: the memory limit was reached. Otherwise something else killed it: the "
            "kubelet after the grace period (stop, preemption, eviction), a liveness probe, or the node's OOM killer.",
            "zh": "若原因为 OOMKilled：达到内存上限。否则是被其他方终止：宽限期后由 kubelet 终止（停止、抢占、驱逐）、存活探针，或节点级 OOM killer。",
        },
    ),
    139: _Row(
        "SIGSEGV",
        {
            "en": "segmentation fault, SIGSEGV (128+11)",
            "fr": "erreur de segmentation, SIGSEGV (128+11)",
            "zh": "段错误，SIGSEGV（128+11）",
            "ja": "セグメンテーション違反、SIGSEGV（128+11）",
        },
        {
            "en": "A crash in native code: a package/version conflict (e.g. an updated pip dependency), memory "
            "corruption in user code, a driver/library mismatch, or rarely a system fault.",
            "zh": "原生代码崩溃：包/版本冲突（例如 pip 依赖被升级）、用户代码内存破坏、驱动与库不匹配，少数情况为系统故障。",
        },
    ),
    143: _Row(
        "SIGTERM",
        {
            "en": "stopped by SIGTERM (128+15)",
            "fr": "arrêté par SIGTERM (128+15)",
            "zh": "被 SIGTERM 终止（128+15）",
            "ja": "SIGTERM により停止（128+15）",
        },
        {
            "en": "A graceful stop: the pod was deleted (a stop or suspend, scheduler preemption, eviction, node "
            "shutdown) and the process exited on SIGTERM.",
            "zh": "正常停止：Pod 被删除（停止或挂起、调度器抢占、驱逐、节点关机），进程收到 SIGTERM 后退出。",
        },
    ),
    247: _Row(
        None,
        {
            "en": "process killed, most often by a memory overflow (-9 seen as an unsigned byte)",
            "fr": "processus tué, le plus souvent par un dépassement de mémoire (-9 lu comme octet non signé)",
            "zh": "进程被终止，最常见原因是内存溢出（-9 按无符号字节显示）",
            "ja": "プロセスが強制終了された。多くはメモリ不足（-9 を符号なしバイトで表したもの）",
        },
        {
            "en": "ModelArts documents 137 and 247 as a killed process, most often out of memory; reduce the data "
            "or batch size.",
            "zh": "ModelArts 文档说明 137 与 247 表示进程被终止，最常见是内存溢出（OOM）；可减小数据量或 batch size。",
        },
        SOURCE_MODELARTS,
    ),
    255: _Row(
        None,
        {
            "en": "exit(-1), a launcher failure, or an unknown container status",
            "fr": "exit(-1), échec du lanceur ou état de conteneur inconnu",
            "zh": "exit(-1)、启动器失败，或容器状态未知",
            "ja": "exit(-1)、ランチャーの失敗、またはコンテナー状態が不明",
        },
        {
            "en": "The program called exit(-1), an SSH/MPI launcher (mpirun) failed, or containerd lost the "
            "container's state (`Unknown`).",
            "zh": "程序调用了 exit(-1)、SSH/MPI 启动器（mpirun）失败，或 containerd 丢失了容器状态（`Unknown`）。",
        },
    ),
}

_SIGNAL_MEANING = {
    "en": "killed by signal {name} (128+{number})",
    "fr": "tué par le signal {name} (128+{number})",
    "zh": "被信号 {name} 终止（128+{number}）",
    "ja": "シグナル {name} により終了（128+{number}）",
}
_SIGNAL_CAUSE = {
    "en": "The process received signal {name} and did not handle it.",
    "zh": "进程收到信号 {name} 且未处理。",
}
_CHILD_MEANING = {
    "en": "child process killed by signal {name} ({number}), as reported by Python/torchrun",
    "fr": "processus enfant tué par le signal {name} ({number}), selon Python/torchrun",
    "zh": "子进程被信号 {name}（{number}）终止（Python/torchrun 的负数退出码）",
    "ja": "子プロセスがシグナル {name}（{number}）で終了（Python/torchrun の負の終了コード）",
}
_CHILD_CAUSE = {
    "en": "The launcher reports a child killed by a signal as a negative code; -9 (SIGKILL) is most often the "
    "out-of-memory killer, -15 (SIGTERM) a stop, -6 (SIGABRT) an abort, -11 (SIGSEGV) a segfault.",
    "zh": "启动器以负数报告被信号终止的子进程；-9（SIGKILL）多为内存不足被 OOM killer 终止，-15（SIGTERM）为停止，-6（SIGABRT）为中止，-11（SIGSEGV）为段错误。",
}
_UNKNOWN_MEANING = {
    "en": "no documented meaning for exit code {code}",
    "fr": "aucune signification documentée pour le code de sortie {code}",
    "zh": "退出码 {code} 没有已记录的含义",
    "ja": "終了コード {code} に文書化された意味はありません",
}
_UNKNOWN_CAUSE = {
    "en": "Not guessed: read the program's own log around its exit.",
    "zh": "不做猜测：请查看程序退出前后的日志。",
}
_PREFIX = {"en": "Exit code", "fr": "Code de sortie", "zh": "退出码", "ja": "終了コード"}
_SEPARATOR = {"en": ": ", "fr": " : ", "zh": "：", "ja": "："}


def _signal_name(number: int) -> str | None:
    """The signal's name (Linux numbering, as in the training containers), or None."""
    try:
        return _signal.Signals(number).name
    except ValueError:
        return None


def _format_all(templates: dict[str, str], **values: object) -> dict[str, str]:
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
    language = lang if lang in LANGUAGES else "en"
    info = exit_code_info(code)
    label = f"{_PREFIX[language]} {code}"
    if info.signal and info.signal not in info.meaning(language):
        label += f" ({info.signal})"
    end = "。" if language in ("zh", "ja") else "."
    return f"{label}{_SEPARATOR[language]}{info.meaning(language)}{end}"


def killing_signal(code: int) -> str | None:
    """The signal an exit code stands for (`SIGKILL` for 137 and for -9), or None."""
    return exit_code_info(code).signal


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

_EXPLAIN_LOG = check(
    "Read the last lines of the log before the exit (a traceback or error line names the cause).",
    "查看退出前的最后几行日志（traceback 或错误行会指出原因）。",
)
_FIX_AND_RESUBMIT = change(
    "After confirming the cause, a person fixes the code or configuration and resubmits.",
    "确认原因后，由用户修复代码或配置并重新提交。",
)
_KILL_CHECKS = check(
    "Check who killed it: the container's termination reason (OOMKilled or Error), the pod's events "
    "(eviction, preemption, probe), the node's events (SystemOOM) and the memory metrics against the limit.",
    "确认是谁终止了进程：容器终止原因（OOMKilled 或 Error）、Pod 事件（驱逐、抢占、探针）、节点事件（SystemOOM），以及内存指标与上限的对比。",
)
_MEMORY_CHANGE = change(
    "If memory is confirmed, a person raises the memory limit with headroom or reduces the batch size or "
    "DataLoader workers, then resubmits.",
    "若确认是内存问题，由用户提高内存上限并留出余量，或减小 batch size、DataLoader worker 数量，再重新提交。",
)

EXIT_CODE_STEPS: dict[int, tuple[Step, ...]] = {
    0: (check("Nothing to fix: the process succeeded.", "无需修复：进程已成功结束。"),),
    1: (_EXPLAIN_LOG, _FIX_AND_RESUBMIT),
    2: (
        check(
            "Read the usage error in the log and compare the command line with the script's arguments.",
            "查看日志中的用法错误，并将命令行与脚本参数进行比对。",
        ),
        change("After confirming, a person corrects the command line.", "确认后，由用户修正命令行。"),
    ),
    126: (
        check(
            "Check the file's execute permission and architecture in the image, and the mount options.",
            "检查镜像中该文件的执行权限与架构，以及挂载选项。",
        ),
        _FIX_AND_RESUBMIT,
    ),
    127: (
        check(
            "Check that the command exists in the image and is on the PATH (spelling included).",
            "确认命令存在于镜像中且位于 PATH 内（包括拼写）。",
        ),
        _FIX_AND_RESUBMIT,
    ),
    128: (
        check(
            "Read the pod's events for the start error (`executable file not found`, mount or device hook).",
            "查看 Pod 事件中的启动错误（`executable file not found`、挂载或设备钩子）。",
        ),
        _FIX_AND_RESUBMIT,
    ),
    130: (
        check(
            "Check who sent the interrupt (a person, a script, a timeout wrapper).",
            "确认是谁发送了中断（用户、脚本、超时包装器）。",
        ),
    ),
    134: (
        _EXPLAIN_LOG,
        check(
            "If an NCCL watchdog timeout came just before the abort, look for the earliest failure on the other "
            "workers: the abort is a consequence.",
            "如果中止前刚出现 NCCL watchdog 超时，请在其他 worker 中查找最早的失败：此次中止只是后果。",
        ),
        _FIX_AND_RESUBMIT,
    ),
    135: (
        check(
            "Look for `Bus error` / `out of shared memory` in the log and check the size of /dev/shm.",
            "在日志中查找 `Bus error` / `out of shared memory`，并检查 /dev/shm 的大小。",
        ),
        change(
            "After confirming, a person enlarges /dev/shm (a memory-backed emptyDir) or lowers the DataLoader "
            "workers, then resubmits.",
            "确认后，由用户增大 /dev/shm（基于内存的 emptyDir）或减少 DataLoader worker，再重新提交。",
        ),
    ),
    137: (_KILL_CHECKS, _MEMORY_CHANGE),
    139: (
        _EXPLAIN_LOG,
        check(
            "Compare the image's package versions (CUDA, driver, PyTorch, native extensions) with a working run.",
            "将镜像中的包版本（CUDA、驱动、PyTorch、原生扩展）与可正常运行的版本进行比较。",
        ),
        change(
            "After confirming, a person pins compatible package versions and resubmits.",
            "确认后，由用户固定兼容的包版本并重新提交。",
        ),
    ),
    143: (
        check(
            "Check the pod's and workload's events for a stop, preemption, eviction or node shutdown.",
            "在 Pod 与作业事件中查找停止、抢占、驱逐或节点关机。",
        ),
    ),
    247: (_KILL_CHECKS, _MEMORY_CHANGE),
    255: (
        _EXPLAIN_LOG,
        check(
            "If the container status is Unknown, check the node's events (runtime restart).",
            "如果容器状态为 Unknown，请查看节点事件（运行时重启）。",
        ),
    ),
}
SIGNAL_EXIT_STEPS: tuple[Step, ...] = (
    check(
        "Check the pod's and node's events for who sent the signal, and the log's last lines.",
        "在 Pod 与节点事件中确认是谁发送了该信号，并查看日志的最后几行。",
    ),
)
CHILD_EXIT_STEPS: tuple[Step, ...] = (
    check(
        "Find the failing rank in the launcher's summary (`Root Cause (first observed failure)`) and read that "
        "rank's log; for -9 check memory against the limit.",
        "在启动器汇总（`Root Cause (first observed failure)`）中找到失败的 rank 并查看其日志；若为 -9，请对比内存与上限。",
    ),
    _MEMORY_CHANGE,
)
