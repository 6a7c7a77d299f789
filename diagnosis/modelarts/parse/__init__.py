"""Lenient views of ModelArts answers. Every field may be absent, null or of an unexpected type.

Answers recorded by older clients and the runbook's examples name several fields differently from
the official SDK's models (huaweicloudsdkmodelarts); both vocabularies are read and each view
remembers which field it read so that evidence cites the one that was present:

| runbook                                  | wire (SDK)                                        |
| `task_statuses[].task_id`                | `task_statuses[].task`                            |
| events `{level, type, info, occur_time}` | `{time, level, message, source}`                  |
| stages `{stage_name, status, duration}`  | `running_records[].stages[]{name, start_time, …}` |
| preview `{log, next_marker}`             | `{content, current_size, full_size}` (`context`)  |

- `job`: a training job (details answer or search item) and a page of the job search;
- `events`: the job's event page;
- `times`: timestamps written with or without an offset;
- `stages`: the stages of the job's latest run;
- `preview`: a log preview;
- `user_diagnosis`: the platform's own log-based diagnosis.
"""
