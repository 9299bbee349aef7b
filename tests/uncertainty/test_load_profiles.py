"""Load profiles for the fleet plan: the hour,gpus_busy CSV (every bad line named) and the forecast's daily peak."""

from __future__ import annotations

import math

import pytest

from tco.load_profiles import LoadProfileError, from_forecast, parse_load_csv


def csv_of(rows: list[tuple[object, object]]) -> str:
    return "hour,gpus_busy\n" + "".join(f"{h},{b}\n" for h, b in rows)


def test_a_csv_is_read_in_hour_order():
    rows = [(h, h % 5) for h in range(24)]
    rows.reverse()
    assert parse_load_csv(csv_of(rows)) == [float(h % 5) for h in range(24)]


def test_a_byte_order_mark_and_header_case_are_accepted():
    assert len(parse_load_csv("\ufeffHour,GPUs_busy\n" + csv_of([(h, 1) for h in range(24)]).split("\n", 1)[1])) == 24


def test_every_bad_line_is_named_with_its_column_and_value():
    rows = [(h, 2) for h in range(30)]
    rows[3] = (3, "lots")
    rows[5] = ("five", 1)
    rows[7] = (6, 1)  # hour 6 twice
    rows[9] = (9, -2)
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(csv_of(rows))
    problems = caught.value.problems
    assert "Line 5, gpus_busy: 'lots' is not a number" in problems
    assert "Line 7, hour: 'five' is not a whole number of 0 or more" in problems
    assert "Line 9, hour: hour 6 is already on line 8" in problems
    assert "Line 11, gpus_busy: -2 is negative; GPUs busy is 0 or more" in problems
    assert len(problems) == 4


def test_a_wrong_header_or_too_few_hours_is_refused():
    with pytest.raises(LoadProfileError, match="the header must be hour,gpus_busy"):
        parse_load_csv("time,load\n1,2\n")
    with pytest.raises(LoadProfileError, match="needs 24 to 100,000 hours; the file has 23"):
        parse_load_csv(csv_of([(h, 1) for h in range(23)]))


def test_the_forecast_profile_keeps_each_months_busy_gpu_hours_and_peaks_at_the_hour():
    profile = from_forecast([0.5, 0.25], horizon_months=2, fleet_gpus=8, peak_ratio=1.5, peak_hour=14)
    assert len(profile) == 48
    first, second = profile[:24], profile[24:]
    assert math.isclose(sum(first) / 24, 8 * 0.5) and math.isclose(sum(second) / 24, 8 * 0.25)
    assert first.index(max(first)) == 14 and math.isclose(max(first), 8 * 0.5 * 1.5)
    assert math.isclose(min(first), 8 * 0.5 * 0.5)  # opposite the peak: 2 - ratio times the mean


def test_a_flat_forecast_repeats_for_every_month_and_a_bad_peak_is_refused():
    assert len(from_forecast([0.6], horizon_months=36, fleet_gpus=8, peak_ratio=1.0, peak_hour=0)) == 36 * 24
    with pytest.raises(LoadProfileError, match="1 to 2 times the daily mean"):
        from_forecast([0.6], horizon_months=3, fleet_gpus=8, peak_ratio=2.5, peak_hour=0)
    with pytest.raises(LoadProfileError, match="0 to 23"):
        from_forecast([0.6], horizon_months=3, fleet_gpus=8, peak_ratio=1.5, peak_hour=24)


# --- hostile files: bounded work and a message, never a 500

LONG = 200_000  # past the csv module's own 131,072-character field limit


@pytest.mark.parametrize("cell", ["1" + "0" * LONG, '"' + "x" * LONG + '"', "x" * LONG])
def test_a_cell_too_long_is_refused_naming_its_line(cell):
    rows = [(h, 2) for h in range(30)]
    rows[4] = (4, cell)
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(csv_of(rows))
    message = str(caught.value)
    assert message.startswith("Line 6")
    assert "characters" in message
    assert len(message) < 300  # the value is not echoed whole


@pytest.mark.parametrize("hour", ["0" * 5000 + "2", "1" * 900])
def test_a_cell_long_but_within_the_csv_limit_is_refused_too(hour):
    rows = [(h, 2) for h in range(30)]
    rows[2] = (hour, 1)
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(csv_of(rows))
    assert str(caught.value).startswith("Line 4")
    assert len(str(caught.value)) < 300


def test_a_quoted_cell_over_many_lines_is_refused_naming_where_it_is():
    text = csv_of([(h, 2) for h in range(30)]) + '31,"' + "1\n" * 70_000 + '"\n'
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(text)
    assert str(caught.value).startswith("Line ")


ARABIC_INDIC = "\u0661\u0662"  # 12 in Arabic-Indic digits
PERSIAN = "\u06f3"  # 3 in Extended Arabic-Indic digits


@pytest.mark.parametrize(("hour", "busy"), [(ARABIC_INDIC, 2), (7, ARABIC_INDIC), (7, PERSIAN), ("\u00b2", 1)])
def test_only_the_digits_0_to_9_are_numbers(hour, busy):
    rows = [(h, 2) for h in range(30)]
    rows[7] = (hour, busy)
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(csv_of(rows))
    [problem] = caught.value.problems
    assert problem.startswith("Line 9, ")


def test_the_line_numbers_count_blank_lines_as_the_file_does():
    lines = [f"{h},{'x' if h == 3 else 2}" for h in range(30)]
    text = "\n".join(["hour,gpus_busy", *lines[:3], "", "", *lines[3:]])
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(text)
    assert caught.value.problems == ("Line 7, gpus_busy: 'x' is not a number",)


def test_a_file_past_the_hour_cap_is_refused_at_the_cap_without_reading_the_rest():
    # 100,001 good hours, then 300,000 rows that would each be a problem if they were read
    text = csv_of([(h, 1) for h in range(100_001)]) + "x,y\n" * 300_000
    with pytest.raises(LoadProfileError) as caught:
        parse_load_csv(text)
    assert caught.value.problems == (
        "A load profile is at most 100,000 hours; the file has more (line 100,002 is hour 100,001)",
    )


def test_a_file_of_exactly_the_cap_is_read():
    assert len(parse_load_csv(csv_of([(h, 1) for h in range(100_000)]))) == 100_000
