# ImportSource.format takes its choices from the format registry when asked: a new format needs no migration.

import pricing.importers.registry
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0010_snapshot_job_model"),
    ]

    operations = [
        migrations.AlterField(
            model_name="importsource",
            name="format",
            field=models.CharField(choices=pricing.importers.registry.format_choices, default="auto", max_length=20),
        ),
    ]
