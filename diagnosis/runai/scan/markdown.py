"""The scan report in Markdown: one table per category (most frequent first), then the causes that
recur, then the limitations."""

from __future__ import annotations

from collections.abc import Sequence

from diagnosis.masking import mask
from diagnosis.render.i18n import Translator
from diagnosis.runai.messages import CATALOGUE
from diagnosis.runai.scan.result import ScanResult
from diagnosis.scan.recurring import cell

MAX_NAMES_IN_CELL = 8


# --- Markdown ---------------------------------------------------------------------------------------


def render_scan_markdown(result: ScanResult, *, lang: str) -> str:
    """One table per category (most frequent first), then the causes that recur, then limitations."""
    t = Translator(CATALOGUE, lang)
    project = t("scan.title_project", project=result.project) if result.project else ""
    lines = [t("scan.title", cluster=result.cluster_id, project=project, lookback=result.lookback), ""]
    if result.failure is not None:
        from diagnosis.runai.report import render_markdown

        lines += [t("scan.failed"), "", render_markdown(result.failure, lang=lang)]
        lines += _limitations(result, t)
        return mask("\n".join(lines))
    lines.append(
        t("scan.summary", listed=result.scanned, failed=len(result.results), lookback=result.lookback)
    )
    if not result.results:
        lines += ["", t("scan.none", lookback=result.lookback)]
    for group, items in result.groups():
        lines += ["", f"### {group} ({len(items)})", "", t("scan.table_head")]
        for item in items:
            target = item.target
            name = f"`{cell(target.name, 80)}`" if target.name else "?"
            summary = item.signature or item.root_cause
            lines.append(
                f"| {name} (`{target.workload_id or '?'}`) | `{target.phase or '?'}` "
                f"| {item.confidence or '-'} | {cell(summary)} |"
            )
    causes = result.recurring_causes()
    if result.results:
        lines += ["", t("scan.recurring"), ""]
        if not causes:
            lines.append(t("scan.recurring_none"))
        else:
            lines.append(t("scan.recurring_head"))
            for cause in causes:
                lines.append(
                    f"| {t('scan.kind.' + cause.kind)} | `{cell(cause.value, 120)}` | {cause.count} "
                    f"| {_names(cause.workloads, t)} |"
                )
    lines += _limitations(result, t)
    return mask("\n".join(lines))


def _names(names: Sequence[str], t: Translator) -> str:
    shown = ", ".join(cell(name, 60) for name in names[:MAX_NAMES_IN_CELL])
    hidden = len(names) - MAX_NAMES_IN_CELL
    return f"{shown}, {t('scan.more', count=hidden)}" if hidden > 0 else shown


def _limitations(result: ScanResult, t: Translator) -> list[str]:
    if not result.limitations:
        return []
    return ["", t("scan.limitations"), "", *(f"- {text}" for text in result.limitations)]
