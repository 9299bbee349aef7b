"""Roles are Django groups: viewers read scenarios, editors change them."""

from __future__ import annotations

from django.db import migrations

GROUPS = ["viewers", "editors"]


def create_groups(apps, schema_editor) -> None:
    Group = apps.get_model("auth", "Group")
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


def delete_groups(apps, schema_editor) -> None:
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(create_groups, delete_groups)]
