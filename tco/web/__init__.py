"""The web layer of tco: thin views, their context builders and htmx responses.

- ``overview``: the Overview page; ``pages``: scenario list, detail, import/export, clone, delete;
- ``editing`` and ``option_views``: the scenario editor's htmx endpoints; ``fields``: its input view models (option
  inputs from the engine's catalogue); ``inputs``: reading what a user typed; ``context`` and ``responses``: the
  workspace context and the edit / conflict responses; ``answers``: a done run's results panel, built once per
  process;
- ``decision_panel``: the decision panel on the scenario page (decide, brief, links, exports);
  ``decision_links``: the public ``/d/<token>`` pages; ``decision_context``: both pages' context;
  ``downloads``: CSV / Excel / JSON attachments; ``throttle``: per-client rate limits; ``access``: roles and
  ``get_scenario_for_user``.

Writes go through ``tco.services``, reads through ``tco.selectors``; ``lib.htmx.render_partial`` renders a partial
for htmx requests and the whole page otherwise.
"""
