import pytest
def test_page(editor_client, scenario, run_jobs):
    r = editor_client.get(f"/scenarios/{scenario.pk}/")
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="range-s-discount_rate"' in html
    opts = list(scenario.options.all())
    assert f'id="range-o{opts[1].pk}-price_per_gpu_hour"' in html
    with run_jobs():
        r = editor_client.post(f"/scenarios/{scenario.pk}/ranges/", {"target": f"o{opts[1].pk}-price_per_gpu_hour", "low": "3", "likely": "3.99", "high": "6", "version": scenario.version}, HTTP_HX_REQUEST="true")
    print(r.status_code, r.content.decode()[:1500])
    with run_jobs():
        r = editor_client.post(f"/scenarios/{scenario.pk}/uncertainty/run/", {"trials": "20000", "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14"}, HTTP_HX_REQUEST="true")
    html = r.content.decode()
    print(r.status_code, html[:3000])
    r = editor_client.get(f"/scenarios/{scenario.pk}/")
    assert r.status_code == 200
    for what in ("simulation.csv", "tornado.csv", "results.xlsx"):
        r = editor_client.get(f"/scenarios/{scenario.pk}/export/{what}")
        print(what, r.status_code, r.content[:300] if what.endswith("csv") else len(r.content))
    other = __import__("tco.services", fromlist=["scenario_clone"]).scenario_clone(scenario=scenario, user=None)
    r = editor_client.get(f"/scenarios/compare/?s={scenario.pk}&s={other.pk}")
    print(r.status_code, r.content.decode()[-2500:])
