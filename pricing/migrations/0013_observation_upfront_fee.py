# A reservation keeps the upfront fee its effective hourly price includes.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0012_import_source_format_choices_from_registry"),
    ]

    operations = [
        migrations.AddField(
            model_name="priceobservation",
            name="upfront_fee",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="A reservation's one-off fee for the whole instance, already spread over the term's hours in the prices above (AWS's Partial and All Upfront terms); blank when there is none.",
                max_digits=14,
                null=True,
            ),
        ),
    ]
