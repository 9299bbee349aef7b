"""The scenario's model as live spreadsheet formulas: named input cells, a monthly ledger per option, and the
results as formulas over them, beside the values the app computed (docs/money-math.md, "The workbook").

Sheets: **Summary** (each option's results as formulas, the app's value beside each and a cell saying whether they
agree), **Break-even** (every owned x on-demand rental pair: break-even utilization and crossover month), **Inputs**
(every input with its label, unit and a defined name: a scenario input by its document key, ``discount_rate``; an
option's as ``<key>_<option>``, ``capex_own_8x_h100``), **Forecast** (the utilization of each month, named
``utilization``) and one **Ledger n** per option (a row per month). With the finance depth (model_finance.py) the
Inputs carry the tax, financing, refresh, resale-curve, commitment and price-path inputs, a **Tax depreciation**
sheet holds the MACRS tables and each owned option's shares, an owned ledger lays out its units (hardware, loan,
lease, sales, tax depreciation, the tax on each sale, and today's row) and the results gain the after-tax figures.
Change an input and every figure follows, in Excel, LibreOffice or Google Sheets: only their common functions (MIN,
MAX, SUM, SUMPRODUCT, AVERAGE, INDEX, MATCH, PMT, IF, N, COUNT), no macros, no links. User text (names) is written as
neutralised text, never inside a formula; defined names are built from letters, digits and underscores only.

What stays fixed in the workbook: the number of months (the ledgers have one row each), each option's kind and
billing (they choose a ledger's columns), and the choices and whole-number terms that set a schedule (refresh
policy, financing, depreciation method, loan and lease terms, lease interval, timing and end, commitment term and
what follows it); change those in the app.
"""

from __future__ import annotations

import re
from typing import Any

from lib.currencies import DEFAULT_CURRENCY
from lib.kinds import API_KINDS, ON_DEMAND, OWNED_KINDS, kind_label
from lib.terms import term_label
from tco.engine import HOURS_PER_MONTH, HOURS_PER_YEAR, validate
from tco.engine.catalogue import ScenarioField, option_fields, scenario_fields, scenario_value
from tco.engine.finance_fields import uses_finance
from tco.engine.finance_results import truncated
from tco.exports import model_finance as fin
from tco.exports.model_finance_sheets import Column, FinanceSheets
from tco.exports.tables import cell
from tco.presentation.inputs import lower_first

INPUT_FILL = "FFF2CC"  # inputs: pale yellow, the finance convention for cells a reviewer may change
OPEX = ("facility_per_year", "network_per_year", "software_per_year", "support_per_year", "operations_per_year")


def scenario_inputs() -> tuple[ScenarioField, ...]:
    """The scenario's and the workload's numbers the ledger reads, each a named cell with its catalogue label and
    unit (the finance inputs are written with the finance depth's rows)."""
    numbers = (entry for entry in scenario_fields("scenario", "workload") if entry.check is not None and entry.stored)
    return tuple(entry for entry in numbers if not entry.finance)


HORIZON_FIXED = " (fixed in the workbook: one ledger row a month)"
EFFECTIVE_HORIZON = ", effective (the refresh policy truncate cuts it to the shortest owned cycle; fixed)"
AGREEMENT = 1e-9  # relative: the workbook's figure and the app's agree when this close


PRICE_FIELDS = ("price_per_gpu_hour", "price_per_million_input_tokens", "price_per_million_output_tokens")


def input_source(option: dict, field: str) -> str:
    """Where a price came from, in words: the Market row it was picked from (with its conversion), a price path
    taken from the Market's trend, or "typed in"."""
    if field in PRICE_FIELDS:
        source = option.get("price_source") or {}
        if not source.get("provider"):
            return "typed in"
        term = term_label(source["pricing_term"]).lower() if source.get("pricing_term") else ""  # "reserved 1 year"
        where = ", ".join(str(part) for part in (source.get("region"), term) if part)
        text = f"Market: {source['provider']} {source.get('offering') or ''}".rstrip()
        text += f" ({where})" if where else ""
        text += f", as of {source.get('observed_on')}"
        if source.get("snapshot_id"):
            text += f", snapshot #{source['snapshot_id']}"
        if source.get("original_currency"):
            text += (
                f"; converted from {source['original_currency']} {source.get(f'original_{field}')} at "
                f"{source.get('fx_rate')} ({source.get('fx_source')}, {source.get('fx_rate_date')})"
            )
        return text
    if field == "price_change_per_year" and option.get("price_path_source"):
        path = option["price_path_source"]
        term = term_label(str(path.get("pricing_term", ""))).lower()
        return (
            f"Market trend of {path.get('gpu_model')} {term} prices in {path.get('currency')}, {path.get('months')} "
            f"months to {path.get('last_day')}, adopted {path.get('adopted_on')}"
        )
    return ""


class Names:
    """Defined names, unique, from letters, digits and underscores: ``capex_own_8x_h100``."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def option_slug(self, name: str) -> str:
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:40] or "option"
        if not slug[0].isalpha():
            slug = f"o_{slug}"
        unique, n = slug, 2
        while unique in self.taken:
            unique, n = f"{slug}_{n}", n + 1
        self.taken.add(unique)
        return unique


class Builder(FinanceSheets):
    def __init__(self, book: Any, doc: dict, result: dict) -> None:
        from openpyxl.styles import Font, PatternFill

        self.book, self.doc, self.result = book, doc, result
        self.horizon = int(doc["horizon_months"])
        self.currency = doc.get("currency") or DEFAULT_CURRENCY
        self.names = Names()
        self.bold = Font(bold=True)
        self.input_fill = PatternFill("solid", start_color=INPUT_FILL, end_color=INPUT_FILL)
        self.first_row, self.last_row = 2, self.horizon + 1  # ledger rows of month 1 .. horizon
        self.today_row = self.last_row + 2  # an owned option's month 0 (today), below its months
        self.finance = uses_finance(doc)
        self.schedules: dict[str, fin.OwnedSchedule] = {}
        self.capex_today: dict[str, str] = {}  # a commitment's upfront paid today, by option

    # -- cells and names ---------------------------------------------------------------------------------------
    def define(self, name: str, sheet: Any, ref: str) -> None:
        from openpyxl.workbook.defined_name import DefinedName

        self.book.defined_names[name] = DefinedName(name, attr_text=f"'{sheet.title}'!{ref}")

    def header(self, sheet: Any, labels: list[str]) -> None:
        sheet.append(labels)
        for header_cell in sheet[1]:
            header_cell.font = self.bold
        sheet.freeze_panes = "A2"

    def input_row(
        self, sheet: Any, label: str, value: Any, unit: str, name: str, *, editable: bool = True, source: str = ""
    ) -> None:
        sheet.append([cell(label), value, unit.replace("{c}", self.currency), name, cell(source) if source else None])
        row = sheet.max_row
        if editable:
            sheet.cell(row=row, column=2).fill = self.input_fill
        self.define(name, sheet, f"$B${row}")

    # -- sheets ------------------------------------------------------------------------------------------------
    def inputs(self) -> list[str]:
        sheet = self.book.create_sheet("Inputs")
        self.header(sheet, ["Input", "Value", "Unit", "Name", "Source"])
        doc = self.doc
        inputs = scenario_inputs()
        for entry in (entry for entry in inputs if entry.scope == "scenario"):
            key, label = entry.name, entry.label
            if entry.fixed:  # the horizon: one ledger row a month
                cut = doc[key] != self.result[key]
                label += EFFECTIVE_HORIZON if cut else HORIZON_FIXED
            self.input_row(sheet, label, doc.get(key), entry.unit, key, editable=not entry.fixed)
        for label, value, unit, name, editable in fin.scenario_rows(doc) if self.finance else ():
            self.input_row(sheet, label, value, unit, name, editable=editable)
        workload = doc.get("workload")
        for entry in (entry for entry in inputs if entry.scope == "workload") if workload else ():
            self.input_row(sheet, entry.label, workload[entry.name], entry.unit, entry.name)
        slugs = []
        for option in doc["options"]:
            slug = self.names.option_slug(option["name"])
            slugs.append(slug)
            sheet.append([cell(f"{option['name']} ({kind_label(option['kind'])})")])
            sheet.cell(row=sheet.max_row, column=1).font = self.bold
            for entry in option_fields(option["kind"]):
                value = option.get(entry.name)
                # The finance inputs are written by ``finance_inputs``, which knows which of them set the schedule.
                if option["kind"] not in entry.kinds or value is None or entry.value_type == "choice" or entry.finance:
                    continue
                self.input_row(
                    sheet,
                    lower_first(entry.label),
                    option[entry.name],
                    entry.unit,
                    f"{entry.name}_{slug}",
                    source=input_source(option, entry.name),
                )
            if self.finance:
                self.finance_inputs(sheet, option, slug)
        sheet.column_dimensions["A"].width = 44
        sheet.column_dimensions["E"].width = 60
        sheet.column_dimensions["C"].width = 24
        sheet.column_dimensions["D"].width = 40
        return slugs

    def forecast(self) -> None:
        from tco.engine.demand import expand_utilization

        sheet = self.book.create_sheet("Forecast")
        self.header(sheet, ["Month", "Utilization"])
        for month, value in enumerate(expand_utilization(self.doc["utilization"], self.horizon), start=1):
            sheet.append([month, value])
            sheet.cell(row=sheet.max_row, column=2).fill = self.input_fill
            sheet.cell(row=sheet.max_row, column=2).number_format = "0.0%"
        self.define("utilization", sheet, f"$B${self.first_row}:$B${self.last_row}")

    def work_factor(self, option: dict, slug: str) -> str:
        """``(θ_ref/θ_o)·(a_ref/a_o)`` over the overrides the option has; 1 without them."""
        parts = []
        if self.doc.get("workload") and "tokens_per_second_per_gpu" in option:
            parts.append(f"tokens_per_second_per_gpu/tokens_per_second_per_gpu_{slug}")
        if self.doc.get("workload") and "acceptance_rate" in option:
            parts.append(f"acceptance_rate/acceptance_rate_{slug}")
        return "*".join(f"({part})" for part in parts) or "1"

    def ledger(self, index: int, option: dict, slug: str) -> dict[str, str]:
        """One option's monthly ledger; returns the range of each keyed column (and ``today_<key>``, the cell of an
        owned option's month 0 in a finance scenario)."""
        from openpyxl.utils import get_column_letter

        sheet = self.book.create_sheet(f"Ledger {index + 1}")
        self.ledger_index = index + 1
        kind = option["kind"]
        wf = self.work_factor(option, slug)
        columns = [
            Column("Month", lambda r: r - self.first_row + 1, "int", "month"),
            Column("Utilization", lambda r: f"=INDEX(utilization,A{r})", "fraction", "u"),
            Column("Demand, reference GPU-hours", lambda r: f"=fleet_gpus*{HOURS_PER_MONTH}*B{r}", "number", "demand"),
        ]
        columns += self.kind_columns(option, slug, wf)
        letters = {column.key: get_column_letter(i) for i, column in enumerate(columns, start=1) if column.key}
        schedule = None
        if self.finance and kind in OWNED_KINDS:
            schedule = fin.OwnedSchedule(option, slug, self.horizon, scenario_value(self.doc, "refresh_policy"))
            self.schedules[slug] = schedule
            columns += self.schedule_columns(schedule, letters)
        else:
            columns += self.cash_columns(option, slug, letters)
        letters = {column.key: get_column_letter(i) for i, column in enumerate(columns, start=1) if column.key}
        cumulative, monthly = letters["cumulative"], letters["monthly"]
        self.header(sheet, [column.header for column in columns])
        for row in range(self.first_row, self.last_row + 1):
            values = []
            for column in columns:
                if column.key == "cumulative":
                    previous = f"+{cumulative}{row - 1}" if row > self.first_row else ""
                    values.append(f"={monthly}{row}{previous}")
                elif column.event and schedule is not None:
                    values.append(schedule.formula(column.key, row - self.first_row + 1, row, letters))
                else:
                    value = column.formula(row)
                    values.append(value.format(**letters) if isinstance(value, str) else value)
            sheet.append(values)
        title = sheet.title
        found = {
            key: f"'{title}'!${letter}${self.first_row}:${letter}${self.last_row}" for key, letter in letters.items()
        }
        if schedule is not None:
            found.update(self.today_row_cells(sheet, columns, schedule, letters))
        for i, column in enumerate(columns, start=1):
            sheet.column_dimensions[get_column_letter(i)].width = 16
            fmt = {"money": "#,##0.00", "fraction": "0.0%", "number": "#,##0.##", "factor": "0.000000"}.get(
                column.style
            )
            if fmt:
                for (data,) in sheet.iter_rows(min_row=self.first_row, min_col=i, max_col=i):
                    if data.value is not None:  # a blank month stays blank (no styled empty cell in the file)
                        data.number_format = fmt
        return found

    def cash_columns(self, option: dict, slug: str, letters: dict[str, str]) -> list[Column]:
        """Capex (or a commitment's upfront paid today) in month 1, the monthly and cumulative cash cost and the
        discounted usage cost."""
        usage, month = letters["usage"], letters["month"]
        capex = f"capex_{slug}" if option["kind"] in OWNED_KINDS else self.capex_today.get(slug, "0")
        return [
            Column(
                "Capex" if option["kind"] in OWNED_KINDS else "Paid today (upfront)",
                lambda r: f"=IF({month}{r}=1,{capex},0)",
                "money",
                "capex",
            ),
            Column("Monthly cash cost", lambda r: f"={usage}{r}+{{capex}}{r}", "money", "monthly"),
            Column("Cumulative cash cost", lambda r: "", "money", "cumulative"),
            Column("Discount factor", lambda r: f"=(1+discount_rate)^(-{month}{r}/12)", "factor", "discount"),
            Column("Discounted usage cost", lambda r: f"={usage}{r}*{{discount}}{r}", "money", "discounted"),
        ]

    def kind_columns(self, option: dict, slug: str, wf: str) -> list[Column]:
        kind = option["kind"]
        if kind in OWNED_KINDS:
            self.owned_names(option, slug)
            return [
                Column("Hours needed", lambda r: f"=C{r}*{wf}", "number", "hours"),
                Column("Own hours served", lambda r: f"=MIN({{hours}}{r},capacity_{slug})", "number", "served"),
                Column("Own utilization", lambda r: f"={{served}}{r}/capacity_{slug}", "fraction", "own_use"),
                Column("Overflow GPU-hours", lambda r: f"={{hours}}{r}-{{served}}{r}", "number", "overflow"),
                Column(
                    "Energy",
                    lambda r: f"=(idle_energy_{slug}+energy_slope_{slug}*{{own_use}}{r})/12",
                    "money",
                    "energy",
                ),
                Column("Fixed opex", lambda r: f"=fixed_opex_{slug}/12", "money", "opex"),
                Column("Burst", lambda r: f"={{overflow}}{r}*N(burst_price_per_gpu_hour)", "money", "burst"),
                Column("Usage cost", lambda r: f"={{energy}}{r}+{{opex}}{r}+{{burst}}{r}", "money", "usage"),
            ]
        extras = f"extras_per_year_{slug}/12"
        if kind in API_KINDS:
            per_attempt = (
                f"(input_tokens_per_response*price_per_million_input_tokens_{slug}"
                f"+output_tokens_per_response*price_per_million_output_tokens_{slug})/1000000"
            )
            return [
                Column(
                    "Attempts",
                    lambda r: f"=C{r}*tokens_per_second_per_gpu*3600/output_tokens_per_response*{wf}",
                    "number",
                    "attempts",
                ),
                Column("Usage cost", lambda r: f"={{attempts}}{r}*{per_attempt}+{extras}", "money", "usage"),
            ]
        columns = [
            Column("Hours needed", lambda r: f"=C{r}*{wf}", "number", "hours"),
            Column(
                "Price per GPU-hour",
                lambda r: f"=price_per_gpu_hour_{slug}*{fin.price_factor(option, slug, r - self.first_row + 1)}",
                "money",
                "price",
            ),
        ]
        if option.get("commitment_term_months") is not None:
            return columns + self.term_columns(option, slug)
        if option["billing"] == ON_DEMAND:
            return [*columns, Column("Usage cost", lambda r: f"={{hours}}{r}*{{price}}{r}+{extras}", "money", "usage")]
        committed = f"committed_gpus_{slug}*{HOURS_PER_MONTH}"
        return [
            *columns,
            Column("Overflow GPU-hours", lambda r: f"=MAX({{hours}}{r}-{committed},0)", "number", "overflow"),
            Column("Burst", lambda r: f"={{overflow}}{r}*N(burst_price_per_gpu_hour)", "money", "burst"),
            Column("Usage cost", lambda r: f"={committed}*{{price}}{r}+{{burst}}{r}+{extras}", "money", "usage"),
        ]

    def owned_names(self, option: dict, slug: str) -> None:
        """Derived cells of an owned option, named like inputs (capacity, fixed opex, energy terms, capital charge)."""
        sheet = self.book["Inputs"]
        per_kw_year = f"pue_{slug}*{HOURS_PER_YEAR}*electricity_per_kwh_{slug}"
        residual = f"residual_value_{slug}" if option.get("resale_curve") is None else f"residual_{slug}"
        derived = [
            ("Capacity", f"=gpu_count_{slug}*{HOURS_PER_MONTH}", "GPU-hours per month", f"capacity_{slug}"),
            ("Fixed opex", "=" + "+".join(f"{field}_{slug}" for field in OPEX), "{c} per year", f"fixed_opex_{slug}"),
            ("Idle energy E(0)", f"=idle_power_kw_{slug}*{per_kw_year}", "{c} per year", f"idle_energy_{slug}"),
            (
                "Energy slope",
                f"=(power_kw_{slug}-idle_power_kw_{slug})*{per_kw_year}",
                "{c} per year at 100 %",
                f"energy_slope_{slug}",
            ),
            (
                "Capital charge (PMT)",
                f"=IF(cost_of_capital_{slug}=0,(capex_{slug}-{residual})/useful_life_years_{slug},"
                f"PMT(cost_of_capital_{slug},useful_life_years_{slug},-capex_{slug},{residual}))",
                "{c} per year",
                f"capital_charge_{slug}",
            ),
            (
                "Resale value at the horizon",
                f"=capex_{slug}-(capex_{slug}-residual_value_{slug})*MIN(horizon_months/(12*useful_life_years_{slug}),1)",
                "{c}",
                f"resale_value_{slug}",
            ),
        ]
        if self.finance:
            derived += fin.owned_derived(option, slug, residual, self.doc)
        for label, formula, unit, name in derived:
            self.input_row(sheet, f"{label} (formula)", formula, unit, name, editable=False)

    # -- results -----------------------------------------------------------------------------------------------
    def summary(self, slugs: list[str], ranges: list[dict[str, str]]) -> None:
        sheet = self.book["Summary"]
        doc, result = self.doc, self.result
        reference = result["reference"]
        sheet.append(["Reference", "Workbook", "App", "Agree?"])
        for header_cell in sheet[sheet.max_row]:
            header_cell.font = self.bold
        busy = f"fleet_gpus*{HOURS_PER_YEAR}*AVERAGE(utilization)"
        self.result_row(
            sheet,
            "Busy reference GPU-hours per year",
            "=" + busy,
            reference["busy_gpu_hours_per_year"],
            "busy_gpu_hours_per_year",
        )
        if doc.get("workload"):
            tokens = "=busy_gpu_hours_per_year*tokens_per_second_per_gpu*3600*acceptance_rate"
            self.result_row(
                sheet,
                "Accepted output tokens per year",
                tokens,
                reference["accepted_output_tokens_per_year"],
                "accepted_output_tokens_per_year",
            )
            self.result_row(
                sheet,
                "Accepted responses per year",
                "=accepted_output_tokens_per_year/output_tokens_per_response",
                reference["accepted_responses_per_year"],
                "accepted_responses_per_year",
            )
        for option, slug, found, shown in zip(doc["options"], slugs, ranges, result["options"], strict=True):
            sheet.append([])
            sheet.append([cell(f"{option['name']} ({kind_label(option['kind'])})"), "Workbook", "App", "Agree?"])
            for header_cell in sheet[sheet.max_row]:
                header_cell.font = self.bold
            rows = self.option_results(option, slug, found)
            rows += self.finance_results(option, slug, found) if self.finance else []
            for label, formula, key, name in rows:
                self.result_row(sheet, label, formula, shown.get(key), f"{name}_{slug}")
        if self.finance:
            self.cheapest_after_tax(sheet, slugs)
        sheet.column_dimensions["A"].width = 44
        for letter in "BC":
            sheet.column_dimensions[letter].width = 20

    def option_results(self, option: dict, slug: str, found: dict[str, str]) -> list[tuple[str, str, str, str]]:
        kind = option["kind"]
        owned = kind in OWNED_KINDS
        extras = f"extras_per_year_{slug}"
        if owned:
            annual = (
                f"=capital_charge_{slug}+idle_energy_{slug}+energy_slope_{slug}*AVERAGE({found['own_use']})"
                f"+fixed_opex_{slug}+12*AVERAGE({found['burst']})"
            )
        elif kind in API_KINDS:
            per_attempt = (
                f"(input_tokens_per_response*price_per_million_input_tokens_{slug}"
                f"+output_tokens_per_response*price_per_million_output_tokens_{slug})/1000000"
            )
            annual = f"=12*AVERAGE({found['attempts']})*{per_attempt}+{extras}"
        elif option["billing"] == ON_DEMAND:
            annual = f"=12*AVERAGE({found['hours']})*price_per_gpu_hour_{slug}+{extras}"
        elif option.get("commitment_term_months") is not None:
            od = (
                f"on_demand_price_per_gpu_hour_{slug}"
                if option.get("on_demand_price_per_gpu_hour") is not None
                else "N(burst_price_per_gpu_hour)"
            )
            annual = (
                f"=committed_gpus_{slug}*{HOURS_PER_YEAR}*commitment_effective_price_per_gpu_hour_{slug}"
                f"+12*AVERAGE({found['overflow']})*{od}+{extras}"
            )
        else:
            annual = (
                f"=committed_gpus_{slug}*{HOURS_PER_YEAR}*price_per_gpu_hour_{slug}"
                f"+12*AVERAGE({found['burst']})+{extras}"
            )
        resale = f"resale_value_{slug}" if owned else "0"
        capex = f"capex_{slug}" if owned else self.capex_today.get(slug, "0")
        last = found["cumulative"].split(":")[-1]
        sheet_name = found["cumulative"].split("!")[0]
        if slug not in self.schedules:
            npv = f"={capex}+SUM({found['discounted']})-{resale}*(1+discount_rate)^(-horizon_months/12)"
        else:  # units bought, financed and sold over the horizon
            resale = f"SUM({found['proceeds']})"
            npv = (
                f"={found['today_cash']}+SUMPRODUCT({found['cash']},{found['discount']})"
                f"-SUMPRODUCT({found['proceeds']},{found['discount']})"
            )
        rows = [
            ("Annual cost", annual, "annual_cost", "annual_cost"),
            ("Present value of cost", npv, "npv", "npv"),
            ("Total cost (cash less resale)", f"={sheet_name}!{last}-{resale}", "total_cost", "total_cost"),
            (
                "Cost per busy GPU-hour",
                f'=IF(busy_gpu_hours_per_year=0,"",annual_cost_{slug}/busy_gpu_hours_per_year)',
                "cost_per_gpu_hour",
                "cost_per_gpu_hour",
            ),
        ]
        if self.doc.get("workload"):
            rows += [
                (
                    "Cost per accepted response",
                    f'=IF(accepted_responses_per_year=0,"",annual_cost_{slug}/accepted_responses_per_year)',
                    "cost_per_accepted_response",
                    "cost_per_accepted_response",
                ),
                (
                    "Cost per million accepted tokens",
                    f'=IF(accepted_output_tokens_per_year=0,"",annual_cost_{slug}/accepted_output_tokens_per_year*1000000)',
                    "cost_per_million_accepted_tokens",
                    "cost_per_million_accepted_tokens",
                ),
            ]
        if owned:
            rows += [
                (
                    "Capital charge per year",
                    f"=capital_charge_{slug}",
                    "capital_charge_per_year",
                    "capital_charge_per_year",
                ),
                ("Resale value at the horizon", f"={resale}", "resale_value", "resale_value_at_horizon"),
                (
                    "Mean own utilization",
                    f"=AVERAGE({found['own_use']})",
                    "mean_own_utilization",
                    "mean_own_utilization",
                ),
            ]
        return rows

    def result_row(self, sheet: Any, label: str, formula: str, app_value: Any, name: str) -> None:
        sheet.append([cell(label), formula, app_value])
        row = sheet.max_row
        sheet.cell(row=row, column=4).value = (
            f'=IF(AND(C{row}="",B{row}=""),"agree",IF(OR(C{row}="",B{row}=""),"differ",'
            f'IF(ABS(B{row}-C{row})<={AGREEMENT}*MAX(1,ABS(C{row})),"agree","differ")))'
        )
        for column in (2, 3):
            sheet.cell(row=row, column=column).number_format = "#,##0.00##"
        self.define(name, sheet, f"$B${row}")

    def cumulative_chart(self, ranges: list[dict[str, str]]) -> None:
        """The Summary's chart: each option's cumulative cash cost by month, read from its ledger."""
        from openpyxl.chart import LineChart, Reference
        from openpyxl.chart.series import SeriesLabel

        chart = LineChart()
        chart.title = "Cumulative cash cost (no resale)"
        chart.y_axis.title = f"{self.currency}"
        chart.x_axis.title = "Month"
        chart.height, chart.width = 9, 18
        for index, found in enumerate(ranges):
            sheet = self.book[f"Ledger {index + 1}"]
            column = _column_index(found["cumulative"])
            data = Reference(sheet, min_col=column, min_row=self.first_row, max_row=self.last_row)
            chart.add_data(data, titles_from_data=False)
            chart.series[-1].tx = SeriesLabel(v=str(cell(self.doc["options"][index]["name"])))
        chart.set_categories(Reference(self.book["Ledger 1"], min_col=1, min_row=self.first_row, max_row=self.last_row))
        self.book["Summary"].add_chart(chart, "F4")

    def break_even(self, slugs: list[str], ranges: list[dict[str, str]]) -> None:
        """Every owned x on-demand rental pair: the exact break-even of their annual-cost lines (the owned one kinks
        where its GPUs are full, at k = G / (fleet x work factor)), and the first month owning's cumulative cash
        cost is no higher than renting's."""
        sheet = self.book.create_sheet("Break-even")
        self.header(
            sheet,
            [
                "Owned",
                "Rental",
                "Break-even utilization",
                "App",
                "Agree?",
                "Crossover month",
                "App",
                "Agree?",
                "Kink k",
                "Δ at 0",
                "Δ at k",
                "Δ at 100 %",
                *(
                    ["After-tax break-even", "App", "Agree?", "After-tax Δ at 0", "Δ at k", "Δ at 100 %"]
                    if self.finance
                    else []
                ),
            ],
        )
        options = self.doc["options"]
        shown = {(pair["owned"], pair["rental"]): pair for pair in self.result["break_even"]}
        crossover = self.book.create_sheet("Crossover")
        crossover.append(["Month"] + [None] * 0)
        for month in range(1, self.horizon + 1):
            crossover.append([month])
        column = 1
        for i, owned in enumerate(options):
            if owned["kind"] not in OWNED_KINDS:
                continue
            for j, rental in enumerate(options):
                if rental["kind"] in OWNED_KINDS or rental["kind"] in API_KINDS or rental.get("billing") != ON_DEMAND:
                    continue
                o, r = slugs[i], slugs[j]
                column += 1
                self.crossover_column(crossover, column, ranges[i]["cumulative"], ranges[j]["cumulative"])
                pair = shown.get((owned["name"], rental["name"]), {})
                self.pair_row(sheet, owned, rental, o, r, pair, crossover, column)
        sheet.column_dimensions["A"].width = 28
        sheet.column_dimensions["B"].width = 28

    def crossover_column(self, sheet: Any, column: int, owned_range: str, rental_range: str) -> None:
        """A flag column: the month where owning's cumulative cash cost is no higher than renting's, else blank."""
        from openpyxl.utils import get_column_letter

        sheet.cell(row=1, column=column).value = f"Pair {column - 1}"
        owned_sheet, owned_cells = owned_range.split("!")
        rental_sheet, rental_cells = rental_range.split("!")
        owned_letter = owned_cells.split("$")[1]
        rental_letter = rental_cells.split("$")[1]
        for row in range(self.first_row, self.last_row + 1):
            sheet.cell(
                row=row, column=column
            ).value = f'=IF({owned_sheet}!{owned_letter}{row}<={rental_sheet}!{rental_letter}{row},A{row},"")'
        letter = get_column_letter(column)
        sheet.cell(row=self.last_row + 2, column=column).value = (
            f'=IF(COUNT({letter}{self.first_row}:{letter}{self.last_row})=0,"",'
            f"MIN({letter}{self.first_row}:{letter}{self.last_row}))"
        )

    def pair_row(self, sheet: Any, owned: dict, rental: dict, o: str, r: str, pair: dict, crossover: Any, column: int):
        from openpyxl.utils import get_column_letter

        row = sheet.max_row + 1
        wo = self.work_factor(owned, o)
        wr = self.work_factor(rental, r)

        def delta(u: str, after_tax: bool = False) -> str:
            """Owned minus rental annual cost at flat reference utilization ``u`` (a cell); after tax, the owned cost
            is ``A_AT + (1 - T)·(cost - A)`` and the rental's ``(1 - T)·cost``."""
            load = f"{u}*fleet_gpus*{wo}"
            overflow = f"MAX({load}-gpu_count_{o},0)"
            owned_cost = (
                f"IF(AND(ISBLANK(burst_price_per_gpu_hour),{load}>gpu_count_{o}*(1+1E-12)),1E+300,"
                f"capital_charge_{o}+idle_energy_{o}+fixed_opex_{o}+energy_slope_{o}*MIN({load}/gpu_count_{o},1)"
                f"+{HOURS_PER_YEAR}*{overflow}*N(burst_price_per_gpu_hour))"
            )
            rental_cost = f"fleet_gpus*{HOURS_PER_YEAR}*{u}*{wr}*price_per_gpu_hour_{r}+extras_per_year_{r}"
            if after_tax:
                return (
                    f"=capital_charge_after_tax_{o}+(1-tax_rate)*({owned_cost}-capital_charge_{o})"
                    f"-(1-tax_rate)*({rental_cost})"
                )
            return f"={owned_cost}-({rental_cost})"

        def root(k: str, d0: str, dk: str, d1: str) -> str:
            return (
                f'=IF({d1}>0,"",IF({k}>=1,IF({d0}<=0,0,{d0}/({d0}-{d1})),'
                f"IF({dk}>0,{k}+(1-{k})*{dk}/({dk}-{d1}),IF({d0}<=0,0,{k}*{d0}/({d0}-{dk})))))"
            )

        k, d0, dk, d1 = (f"{letter}{row}" for letter in "IJKL")
        sheet.cell(row=row, column=1).value = cell(owned["name"])
        sheet.cell(row=row, column=2).value = cell(rental["name"])
        sheet.cell(row=row, column=9).value = f"=gpu_count_{o}/(fleet_gpus*{wo})"
        sheet.cell(row=row, column=10).value = delta("0")
        sheet.cell(row=row, column=11).value = delta(f"MIN({k},1)")
        sheet.cell(row=row, column=12).value = delta("1")
        sheet.cell(row=row, column=3).value = root(k, d0, dk, d1)
        checks = [(3, 4, 5), (6, 7, 8)]
        if self.finance:
            for at, u in ((16, "0"), (17, f"MIN({k},1)"), (18, "1")):
                sheet.cell(row=row, column=at).value = delta(u, after_tax=True)
            sheet.cell(row=row, column=13).value = root(k, *(f"{letter}{row}" for letter in "PQR"))
            sheet.cell(row=row, column=14).value = pair.get("utilization_after_tax")
            checks.append((13, 14, 15))
            for at in (13, 14):
                sheet.cell(row=row, column=at).number_format = "0.0%"
            self.define(f"break_even_after_tax_{o}_{r}", sheet, f"$M${row}")
        sheet.cell(row=row, column=4).value = pair.get("utilization")
        crossover_cell = f"'{crossover.title}'!{get_column_letter(column)}{self.last_row + 2}"
        sheet.cell(row=row, column=6).value = f"={crossover_cell}"
        sheet.cell(row=row, column=7).value = pair.get("crossover_month")
        for workbook_column, app_column, agree_column in checks:
            b, c = get_column_letter(workbook_column) + str(row), get_column_letter(app_column) + str(row)
            sheet.cell(row=row, column=agree_column).value = (
                f'=IF(AND({c}="",{b}=""),"agree",IF(OR({c}="",{b}=""),"differ",'
                f'IF(ABS({b}-{c})<={AGREEMENT}*MAX(1,ABS({c})),"agree","differ")))'
            )
        sheet.cell(row=row, column=3).number_format = "0.0%"
        sheet.cell(row=row, column=4).number_format = "0.0%"
        self.define(f"break_even_{o}_{r}", sheet, f"$C${row}")
        self.define(f"crossover_month_{o}_{r}", sheet, f"$F${row}")


def add_model_sheets(book: Any, document: dict, result: dict) -> None:
    """Append the live model to ``book``: Summary, Inputs, Forecast, a ledger per option, Break-even, Crossover; every
    result a formula over named inputs, beside ``result``'s value (the app's)."""
    doc = truncated(validate(document))  # the refresh policy truncate: every ledger over the effective horizon
    builder = Builder(book, doc, result)
    summary = book.create_sheet("Summary")
    summary.append([cell(f"{doc['name']}: every figure below is a formula over the Inputs and Forecast sheets")])
    summary.cell(row=1, column=1).font = builder.bold
    summary.append(["Inputs are the yellow cells; the app's value is beside each figure, and whether they agree."])
    summary.append(
        [
            '=IF(COUNTIF(D:D,"differ")+COUNTIF(\'Break-even\'!E:E,"differ")+COUNTIF(\'Break-even\'!H:H,"differ")'
            "+COUNTIF('Break-even'!O:O,\"differ\")=0,"
            '"Every figure agrees with the app\'s (at the inputs as exported).",'
            '"Some figures differ from the app\'s: the inputs were changed here, or see the Agree? column.")'
        ]
    )
    slugs = builder.inputs()
    builder.forecast()
    ranges = [
        builder.ledger(i, option, slug) for i, (option, slug) in enumerate(zip(doc["options"], slugs, strict=True))
    ]
    if builder.finance:
        builder.tax_tables(slugs, ranges)
    builder.summary(slugs, ranges)
    builder.break_even(slugs, ranges)
    builder.cumulative_chart(ranges)


def _column_index(reference: str) -> int:
    """The column number of a range reference such as ``'Ledger 1'!$N$2:$N$37``."""
    from openpyxl.utils import column_index_from_string

    return column_index_from_string(reference.split("!")[1].split("$")[1])
