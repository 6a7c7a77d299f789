"""`--capture FILE`: the bundle of a live diagnosis, masked before it touches the disk."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from diagnosis.bundle import Bundle
from diagnosis.evidence.source import Recorder
from diagnosis.masking import mask_obj
from diagnosis.models import DiagnoseRequest


def build_bundle(request: DiagnoseRequest, recorder: Recorder, *, captured_at: datetime) -> Bundle:
    return Bundle(
        platform=request.platform,
        captured_at=captured_at,
        request=request.identifiers(),
        exchanges=recorder.exchanges,
    )


def write_bundle(path: str | Path, bundle: Bundle) -> None:
    data = mask_obj(bundle.to_json_dict())
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)
