"""The web layer of tco: views, the view models they show, and the request and response helpers both use.

- ``views/``: the functions URLs name, thin (read, call a service, answer), one module per part of the pages;
- ``viewmodels/``: what the templates show, built from reads: the workspace context, the editor's inputs
  (``fields``), the "±" ranges, a done run's answer panel (``answers``), the decision and uncertainty panels;
- the request and response helpers both use: ``access`` (roles and ``get_scenario_for_user``), ``forms`` and
  ``inputs`` (reading what a user typed), ``responses`` (the edit / conflict answers), ``page_cache``, ``downloads``
  (CSV / Excel / JSON attachments), ``throttle`` (per-client rate limits).

Writes go through ``tco.services``, reads through ``tco.selectors``; ``lib.htmx.render_partial`` renders a partial
for htmx requests and the whole page otherwise.
"""
