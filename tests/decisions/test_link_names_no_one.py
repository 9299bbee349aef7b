"""A decision link is public: anyone with it reads the page and its JSON. Neither names the editor who froze it
(the snapshot row keeps who did, for the app's own records)."""

from __future__ import annotations

import json

from tco.models import DecisionSnapshot


def test_the_public_page_and_json_do_not_name_who_froze_the_link(link_path, anon, editor):
    frozen = json.loads(anon.get(f"{link_path}/snapshot.json").content)
    assert "frozen_by" not in frozen
    html = anon.get(link_path).content.decode()
    assert editor.username not in html
    assert " by " not in html[html.find("Frozen") :][:120]
    assert DecisionSnapshot.objects.get().created_by == editor
