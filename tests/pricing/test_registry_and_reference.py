"""One registry of import formats; reference data for a bare deployment; provider names and aliases."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from pricing.importers import registry
from pricing.importers.base import Catalog, ProviderRef
from pricing.management.commands.import_prices import Command as ImportPrices
from pricing.models import GpuAlias, GpuModel, ImportSource, PriceObservation, PriceSnapshot, Provider, SnapshotStatus
from pricing.selectors import import_catalog
from tests.pricing.conftest import OBSERVED, SAMPLES, canonical, run_import

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-11-01,"


# The registry


def test_the_registry_drives_the_model_choices_and_the_command_options():
    assert ImportSource._meta.get_field("format").choices == registry.format_choices()
    parser = ImportPrices().create_parser("manage.py", "import_prices")
    (format_action,) = [a for a in parser._actions if a.dest == "format"]
    assert list(format_action.choices) == ["auto", *(f.name for f in registry.FORMATS)]


def test_detection_tries_each_format_and_falls_back_to_the_last():
    assert registry.detect("InstanceType,AcceleratorName,Price\n")[0].name == "skypilot"
    assert registry.detect("provider,gpu_model\n") == (registry.BY_NAME["canonical"], "canonical-csv")
    assert registry.detect('[{"provider": "x"}]') == (registry.BY_NAME["canonical"], "canonical-json")


@pytest.mark.django_db
def test_a_format_is_one_registry_entry(monkeypatch):
    from pricing.importers.base import ParseResult
    from pricing.importers.dispatch import parse_prices

    seen = {}

    def parse(text, context):
        seen["provider"] = context.provider
        return ParseResult(format="toy")

    toy = registry.ImportFormat("toy", "Toy file", lambda t: "toy" if t.startswith("TOY") else None, parse)
    monkeypatch.setattr(registry, "FORMATS", (toy, *registry.FORMATS))
    monkeypatch.setattr(registry, "BY_NAME", {"toy": toy, **registry.BY_NAME})
    catalog = Catalog(gpu_names={}, providers=[])
    result = parse_prices(b"TOY 1\n", catalog=catalog, today=OBSERVED, max_rows=10)
    assert (result.format, seen) == ("toy", {"provider": None})
    assert "toy" in registry.format_names()


# Reference data on a bare deployment


@pytest.mark.django_db
def test_a_bare_deployment_names_the_missing_step_then_imports_after_load_reference():
    path = str(SAMPLES / "lambda/vms.csv")
    with pytest.raises(CommandError):
        call_command("import_prices", path, "--provider", "lambda", stdout=io.StringIO(), stderr=io.StringIO())
    reason = PriceSnapshot.objects.get().errors[0]["reason"]
    assert "unknown provider 'lambda'" in reason and "load_reference" in reason
    out = io.StringIO()
    call_command("load_reference", stdout=out)
    assert "new providers" in out.getvalue()
    call_command("import_prices", path, "--provider", "LAMBDA", "--observed-on", "2026-11-01", stdout=io.StringIO())
    assert PriceObservation.objects.filter(provider__name="Lambda").count() == 340


@pytest.mark.django_db
def test_load_reference_twice_adds_nothing():
    call_command("load_reference", stdout=io.StringIO())
    counts = (Provider.objects.count(), GpuModel.objects.count(), GpuAlias.objects.count())
    out = io.StringIO()
    call_command("load_reference", stdout=out)
    assert "0 new providers" in out.getvalue()
    assert (Provider.objects.count(), GpuModel.objects.count(), GpuAlias.objects.count()) == counts


SKYPILOT_CLOUDS = {
    "aws": ("AWS", "hyperscaler"),
    "gcp": ("Google Cloud", "hyperscaler"),
    "azure": ("Azure", "hyperscaler"),
    "oci": ("Oracle", "hyperscaler"),
    "ibm": ("IBM Cloud", "hyperscaler"),
    "scp": ("Samsung Cloud Platform", "hyperscaler"),
    "lambda": ("Lambda", "neocloud"),
    "cudo": ("Cudo Compute", "neocloud"),
    "fluidstack": ("Fluidstack", "neocloud"),
    "nebius": ("Nebius", "neocloud"),
    "paperspace": ("Paperspace", "neocloud"),
    "do": ("DigitalOcean", "neocloud"),
    "seeweb": ("Seeweb", "neocloud"),
    "verda": ("Verda", "neocloud"),
    "jarvislabs": ("JarvisLabs", "neocloud"),
    "mithril": ("Mithril", "neocloud"),
    "yotta": ("Yotta", "neocloud"),
    "daytona": ("Daytona", "neocloud"),
    "hyperstack": ("Hyperstack", "neocloud"),
    "runpod": ("RunPod", "marketplace"),
    "vast": ("Vast.ai", "marketplace"),
    "primeintellect": ("Prime Intellect", "marketplace"),
    "shadeform": ("Shadeform", "marketplace"),
    "hyperbolic": ("Hyperbolic", "marketplace"),
    "lium": ("Lium", "marketplace"),
    "spheron": ("Spheron", "marketplace"),
}


@pytest.mark.usefixtures("reference")
def test_skypilot_cloud_names_are_provider_aliases_in_any_case():
    catalog = import_catalog()
    found = {cloud: catalog.provider(cloud.upper()) for cloud in SKYPILOT_CLOUDS}
    assert {cloud: (p.name, p.kind) if p else None for cloud, p in found.items()} == SKYPILOT_CLOUDS


def test_the_closest_known_hint_suggests_only_near_names():
    catalog = Catalog(
        gpu_names={}, providers=[ProviderRef(1, "Crusoe", "neocloud"), ProviderRef(2, "Lambda", "neocloud")]
    )
    assert "closest known" not in catalog.provider_error("cudo")
    assert "closest known: Lambda" in catalog.provider_error("Lamda")
    assert "admin" in catalog.provider_error("cudo") and "load_reference" in catalog.provider_error("cudo")


# A canonical file may introduce providers


@pytest.mark.usefixtures("reference")
def test_a_canonical_file_introduces_a_provider_of_the_kind_it_gives():
    snapshot = run_import(canonical(ROW.replace("Lambda,neocloud", "Nscale,neocloud")))
    assert snapshot.status == SnapshotStatus.IMPORTED
    assert Provider.objects.get(name="Nscale").kind == "neocloud"
    assert snapshot.providers_created == ["Nscale"]
    assert "providers added: Nscale" in snapshot.summary
    assert PriceObservation.objects.get().provider.name == "Nscale"


@pytest.mark.usefixtures("reference", "no_observations")
def test_a_new_provider_close_to_a_known_one_is_a_typo_error_naming_it():
    snapshot = run_import(canonical(ROW.replace("Lambda,neocloud", "Lamda,neocloud")))
    assert snapshot.status == SnapshotStatus.REJECTED
    (error,) = snapshot.errors
    assert (error["column"], error["value"]) == ("provider", "Lamda")
    assert "closest known: Lambda" in error["reason"] and "--new-provider" in error["reason"]
    assert not Provider.objects.filter(name="Lamda").exists()


@pytest.mark.usefixtures("reference")
def test_the_command_confirms_a_new_provider_that_looks_like_a_known_one(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(canonical(ROW.replace("Lambda,neocloud", "Lamda,neocloud")), encoding="utf-8")
    out = io.StringIO()
    call_command("import_prices", str(path), "--new-provider", "Lamda", stdout=out)
    assert "providers added: Lamda" in out.getvalue()
    assert Provider.objects.get(name="Lamda").kind == "neocloud"


@pytest.mark.usefixtures("reference", "no_observations")
def test_an_unknown_provider_without_a_kind_is_an_error_and_a_rejected_file_adds_no_provider():
    bad_row = ROW.replace("Lambda,neocloud", "Nscale,neocloud").replace("23.92", "-1")
    snapshot = run_import(canonical(ROW.replace("Lambda,neocloud", "Acme,"), bad_row))
    assert snapshot.status == SnapshotStatus.REJECTED
    reasons = {(e["line"], e["column"]): e["reason"] for e in snapshot.errors}
    assert "give its provider_kind" in reasons[(2, "provider")]
    assert not Provider.objects.filter(name__in=["Acme", "Nscale"]).exists()
