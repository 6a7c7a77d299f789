"""Pictures built from what the engine recorded: memory use against the limit, and a scan summary.

Every plotted number comes from a recorded exchange, as the platform reads it (the memory series
and kill times its backend gives, diagnosis.evidence.series), from the diagnosis' own measurements
(limit, request) or from scan/v1; nothing is estimated or filled in. When there is nothing to
plot, the result carries no PNG and a one-line reason instead.

matplotlib is an optional extra (`pip install diagnose-bot[charts]`): it is imported only when a
chart is drawn, with the Agg backend and without pyplot (no global figure state, safe in threads).

- `figure`: the chart result, the values read back from a figure, and matplotlib's setup;
- `memory`: memory use against the limit; `scan`: a scan's categories and recurring causes.
"""
