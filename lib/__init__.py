"""The neutral library both apps use (healthchecks keeps such code in ``hc/lib``).

- ``lib.formatting``: one rounding rule, one money and one percent format for every number a person reads;
- ``lib.kinds``: option and provider kinds and billings, defined once (the engine reads them too), in words
  (labels, legend words, verbs), ``is_owned``, ``is_on_demand_rental``;
- ``lib.chart_style``: the one look of every plotly chart (option colours, kind dashes and patterns, template,
  hover formats);
- ``lib.templatetags.money``: the template filters (``{% load money %}``) built on ``lib.formatting``: templates
  format numbers with them, Python (charts, exports, sentences) calls the same functions;
- ``lib.htmx.render_partial``: a template's partial for htmx requests, the whole page otherwise;
- ``lib.users.signed_in_user``: the signed-in user a write is attributed to, or None;
- ``lib.jobs``: the one job model (``Job``) of evaluation runs, simulations and price imports: claim, send, sweep,
  time limits, and ``run_claimed``, the body of every job's task;
- ``lib.errors.AppError``: the one family of errors a user can cause (``messages``, ``message``, ``field``).

Nothing here imports ``pricing`` or ``tco``: ``lib`` is the ground floor every layer may stand on.
"""
