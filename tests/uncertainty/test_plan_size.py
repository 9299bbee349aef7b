"""A load with a peak of a million GPUs keeps the fleet plan, the page and the decision link small.

The reported file: 24 rows of ``gpus_busy`` 999999.5 stored a 1,000,001-point plan (a 21 MB page, a 77 MB
snapshot.json). Each size is compared with the same scenario's size for a 24-GPU peak, measured in the same test.
"""

from __future__ import annotations

import json

from django.core.files.uploadedfile import SimpleUploadedFile

from tco.charts import snapshot as snapshot_output
from tco.models import UncertaintyRun
from tco.services.decisions import link_create
from tests.uncertainty.test_views import run_simulation


def _sizes(editor_client, client, scenario, editor, run_jobs, busy: float) -> dict[str, int]:
    rows = "hour,gpus_busy\n" + "".join(f"{h},{busy}\n" for h in range(24))
    upload = SimpleUploadedFile("load.csv", rows.encode(), content_type="text/csv")
    run_simulation(editor_client, scenario, run_jobs, profile="csv", profile_file=upload)
    run = UncertaintyRun.objects.filter(scenario=scenario).latest("id")
    assert run.result["fleet_plan"]["costs"][-1]["owned_gpus"] == round(busy + 0.5)  # the curve ends at the peak
    _link, token = link_create(scenario=scenario, user=editor, output=snapshot_output)
    return {
        "stored plan": len(json.dumps(run.result["fleet_plan"])),
        "scenario page": len(editor_client.get(f"/scenarios/{scenario.pk}/").content),
        "uncertainty panel": len(editor_client.get(f"/scenarios/{scenario.pk}/uncertainty/").content),
        "decision page": len(client.get(f"/d/{token}").content),
        "snapshot.json": len(client.get(f"/d/{token}/snapshot.json").content),
    }


def test_a_million_gpu_peak_stores_and_shows_a_bounded_plan(editor_client, client, scenario, editor, run_jobs):
    small = _sizes(editor_client, client, scenario, editor, run_jobs, 23.5)
    huge = _sizes(editor_client, client, scenario, editor, run_jobs, 999_999.5)
    assert huge["stored plan"] < 120_000
    for what, size in huge.items():
        assert size < small[what] + 250_000, (what, size, small[what])
