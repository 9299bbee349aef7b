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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.kinds import API_KINDS, OWNED_KINDS, kind_label
from tco.engine import HOURS_PER_MONTH, HOURS_PER_YEAR, validate
from tco.engine.catalogue import OPTION_FIELDS
from tco.engine.finance_fields import uses_finance
from tco.engine.finance_results import truncated
from tco.exports import model_finance as fin
from tco.exports.tables import cell

INPUT_FILL = "FFF2CC"  # inputs: pale yellow, the finance convention for cells a reviewer may change
OPEX = ("facility_per_year", "network_per_year", "software_per_year", "support_per_year", "operations_per_year")
WORKLOAD_INPUTS = (
    ("tokens_per_second_per_gpu", "Reference throughput", "tokens per second per GPU"),
    ("output_tokens_per_response", "Output tokens per response", "tokens"),
    ("input_tokens_per_response", "Input tokens per response", "tokens"),
    ("acceptance_rate", "Reference acceptance rate", "share"),
)
SCENARIO_INPUTS = (
    ("horizon_months", "Horizon (fixed in the workbook: one ledger row a month)", "months"),
    ("discount_rate", "Discount rate", "per year"),
    ("fleet_gpus", "Fleet size", "GPUs"),
    ("burst_price_per_gpu_hour", "Burst price", "{c} per GPU-hour"),
)
AGREEMENT = 1e-9  # relative: the workbook's figure and the app's agree when this close


PRICE_FIELDS = ("price_per_gpu_hour", "price_per_million_input_tokens", "price_per_million_output_tokens")


def input_source(option: dict, field: str) -> str:
    """Where a price came from, in words: the Market row it was picked from (with its conversion), a price path
    taken from the Market's trend, or "typed in"."""
    if field in PRICE_FIELDS:
        source = option.get("price_source") or {}
        if not source.get("provider"):
            return "typed in"
        where = ", ".join(
            str(part).replace("_", " ") for part in (source.get("region"), source.get("pricing_term")) if part
        )
        text = f"Market: {source['provider']} {source.get('offering') or ''}".rstrip()
        text += f" ({where})" if where else ""
        text += f", as of {source.get('observed_on')}"
        if source.get("snapshot_id"):
            text += f", snapshot #{source['snapshot_id']}"
        if source.get("original_currency"):
            text += (
                f"; converted from {source['original_currency']} {source.get('original_price_per_gpu_hour')} at "
                f"{source.get('fx_rate')} ({source.get('fx_source')}, {source.get('fx_rate_date')})"
            )
        return text
    if field == "price_change_per_year" and option.get("price_path_source"):
        path = option["price_path_source"]
        return (
            f"Market trend of {path.get('gpu_model')} {str(path.get('pricing_term', '')).replace('_', ' ')} prices in "
            f"{path.get('currency')}, {path.get('months')} months to {path.get('last_day')}, adopted "
            f"{path.get('adopted_on')}"
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


@dataclass
class Column:
    header: str
    formula: Callable[[int], str]  # row number -> formula text
    style: str = "money"
    key: str = ""  # how other formulas find this column
    event: bool = False  # amounts by the option's schedule (model_finance.OwnedSchedule), month 0 included


class Builder:
    def __init__(self, book: Any, doc: dict, result: dict) -> None:
        from openpyxl.styles import Font, PatternFill

        self.book, self.doc, self.result = book, doc, result
        self.horizon = int(doc["horizon_months"])
        self.currency = doc.get("currency", "USD")
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
        for key, label, unit in SCENARIO_INPUTS:
            if key == "horizon_months" and doc["horizon_months"] != self.result["horizon_months"]:
                label = "Effective horizon (the refresh policy truncate cuts it to the shortest owned cycle; fixed)"
            self.input_row(sheet, label, doc.get(key), unit, key, editable=key != "horizon_months")
        for label, value, unit, name, editable in fin.scenario_rows(doc) if self.finance else ():
            self.input_row(sheet, label, value, unit, name, editable=editable)
        workload = doc.get("workload")
        for key, label, unit in WORKLOAD_INPUTS if workload else ():
            self.input_row(sheet, label, workload[key], unit, key)
        slugs = []
        for option in doc["options"]:
            slug = self.names.option_slug(option["name"])
            slugs.append(slug)
            sheet.append([cell(f"{option['name']} ({kind_label(option['kind'])})")])
            sheet.cell(row=sheet.max_row, column=1).font = self.bold
            for entry in OPTION_FIELDS:
                value = option.get(entry.name)
                if option["kind"] not in entry.kinds or value is None or entry.value_type == "choice":
                    continue
                if isinstance(value, list | dict):  # a list-valued input has rows of its own (finance_inputs)
                    continue
                self.input_row(
                    sheet,
                    entry.export_label,
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

    def finance_inputs(self, sheet: Any, option: dict, slug: str) -> None:
        """The option's finance inputs, then its resale curve's points and its yearly price changes, one row each."""
        for label, value, unit, name, editable in fin.option_rows(option, slug):
            if name not in self.book.defined_names:  # not already written from the option catalogue
                self.input_row(sheet, label, value, unit, name, editable=editable)
        points = option.get("resale_curve")
        if points is not None:
            first = sheet.max_row + 1
            last = first + len(points) - 1
            for k, (age, share) in enumerate(points, start=1):
                row = sheet.max_row + 1
                slope = f"=(C{row + 1}-C{row})/(B{row + 1}-B{row})" if k < len(points) else 0
                sheet.append(
                    [f"Resale curve point {k}: age (months), share of the price, slope to the next", age, share]
                )
                sheet.cell(row=row, column=4).value = slope
                for column in (2, 3):
                    sheet.cell(row=row, column=column).fill = self.input_fill
            for name, letter in (("age", "B"), ("share", "C"), ("slope", "D")):
                self.define(f"resale_curve_{name}_{slug}", sheet, f"${letter}${first}:${letter}${last}")
        changes = option.get("price_change_by_year")
        if changes is not None:
            first = sheet.max_row + 1
            for year, change in enumerate(changes, start=1):
                last_note = " (and every later year)" if year == len(changes) else ""
                sheet.append([f"Price change in year {year}{last_note}", change, "per year"])
                sheet.cell(row=sheet.max_row, column=2).fill = self.input_fill
            self.define(f"price_change_by_year_{slug}", sheet, f"$B${first}:$B${sheet.max_row}")

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
            schedule = fin.OwnedSchedule(option, slug, self.horizon, self.doc.get("refresh_policy", "none"))
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

    def schedule_columns(self, schedule: fin.OwnedSchedule, letters: dict[str, str]) -> list[Column]:
        """An owned option's units month by month (finance scenarios): what is paid for hardware, loans and leases,
        the cash cost, the sales, the tax depreciation landing and the tax on each sale."""
        month = letters["month"]
        events = [Column("Hardware paid (purchase, down payment, buyout)", str, "money", "hardware", event=True)]
        if schedule.financing == "loan":
            events += [
                Column("Loan payment", str, "money", "loan_payment", event=True),
                Column("of which interest (deductible)", str, "money", "interest", event=True),
                Column("Loan balance repaid at a sale", str, "money", "repaid", event=True),
            ]
        if schedule.leased:
            events.append(Column("Lease payment (deductible)", str, "money", "lease", event=True))
        paid = [column.key for column in events if column.key != "interest"]
        today = self.today_row
        return [
            *events,
            Column("Cash cost", lambda r: "=" + "+".join(f"{{{key}}}{r}" for key in ["usage", *paid]), "money", "cash"),
            Column(
                "Monthly cash cost (month 1 with today's)",
                lambda r: f"={{cash}}{r}" + (f"+{{cash}}{today}" if r == self.first_row else ""),
                "money",
                "monthly",
            ),
            Column("Cumulative cash cost", lambda r: "", "money", "cumulative"),
            Column("Sale proceeds", str, "money", "proceeds", event=True),
            Column("Tax depreciation", str, "money", "depreciation", event=True),
            Column("Tax on a sale T·(V - R)", str, "money", "disposal", event=True),
            Column("Discount factor", lambda r: f"=(1+discount_rate)^(-{month}{r}/12)", "factor", "discount"),
        ]

    def today_row_cells(
        self, sheet: Any, columns: list[Column], schedule: fin.OwnedSchedule, letters: dict[str, str]
    ) -> dict[str, str]:
        """Month 0 (today, undiscounted) below the months: what is paid today, and its cash cost."""
        row = self.today_row
        sheet.cell(row=row, column=1).value = 0
        sheet.cell(row=row, column=2).value = "Today (month 0)"
        paid = []
        for i, column in enumerate(columns, start=1):
            if column.event:
                sheet.cell(row=row, column=i).value = schedule.formula(column.key, 0, row, letters)
                if column.key != "interest":
                    paid.append(f"{letters[column.key]}{row}")
            elif column.key == "cash":
                sheet.cell(row=row, column=i).value = "=" + "+".join(paid)
        return {f"today_{key}": f"'{sheet.title}'!${letter}${row}" for key, letter in letters.items()}

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
        if option["billing"] == "on_demand":
            return [*columns, Column("Usage cost", lambda r: f"={{hours}}{r}*{{price}}{r}+{extras}", "money", "usage")]
        committed = f"committed_gpus_{slug}*{HOURS_PER_MONTH}"
        return [
            *columns,
            Column("Overflow GPU-hours", lambda r: f"=MAX({{hours}}{r}-{committed},0)", "number", "overflow"),
            Column("Burst", lambda r: f"={{overflow}}{r}*N(burst_price_per_gpu_hour)", "money", "burst"),
            Column("Usage cost", lambda r: f"={committed}*{{price}}{r}+{{burst}}{r}+{extras}", "money", "usage"),
        ]

    def term_columns(self, option: dict, slug: str) -> list[Column]:
        """A commitment with a term: each term month at the price locked when its term started, less the upfront
        share (paid the month before the term starts, deducted evenly over it); hours above the committed ones, and
        every hour outside a term, at the on-demand price."""
        starts, first = fin.term_layout(option, self.horizon)
        term = int(option["commitment_term_months"])
        committed = f"committed_gpus_{slug}*{HOURS_PER_MONTH}"
        share = f"upfront_share_{slug}"
        price_column = "E"  # Month, Utilization, Demand, Hours needed, Price

        def month(r: int) -> int:
            return r - self.first_row + 1

        def upfront(start: int, sheet: str = "") -> str:
            return f"{share}*{committed}*{sheet}{price_column}{self.first_row + start - 1}*{term}"

        if 1 in starts:  # the first term's upfront is paid today
            self.capex_today[slug] = upfront(1, f"'Ledger {self.ledger_index}'!")
        od = (
            f"on_demand_price_per_gpu_hour_{slug}*{{factor}}"
            if option.get("on_demand_price_per_gpu_hour") is not None
            else "N(burst_price_per_gpu_hour)"
        )
        later = {start - 1: upfront(start) for start in starts if start > 1}
        running = (
            f"(1-{share})*{committed}*{{locked}}{{r}}+{{outside}}{{r}}*{{od_price}}{{r}}+extras_per_year_{slug}/12"
        )
        return [
            Column("Overflow GPU-hours", lambda r: f"=MAX({{hours}}{r}-{committed},0)", "number", "overflow"),
            Column(
                "Locked term price",
                lambda r: f"={price_column}{self.first_row + first[month(r)] - 1}" if first[month(r)] else 0,
                "money",
                "locked",
            ),
            Column(
                "Committed hours served",
                lambda r: f"=MIN({{hours}}{r},{committed})" if first[month(r)] else 0,
                "number",
                "served",
            ),
            Column("Hours bought on demand", lambda r: f"={{hours}}{r}-{{served}}{r}", "number", "outside"),
            Column(
                "On-demand price",
                lambda r: "=" + od.replace("{factor}", fin.price_factor(option, slug, month(r))),
                "money",
                "od_price",
            ),
            Column(
                "Upfront paid for the next term",
                lambda r: f"={later[month(r)]}" if month(r) in later else 0,
                "money",
                "upfront",
            ),
            Column("Usage cost", lambda r: "=" + running.replace("{r}", str(r)) + f"+{{upfront}}{r}", "money", "usage"),
            Column(
                "Deductible cost",
                lambda r: "=" + running.replace("{r}", str(r)) + f"+{share}*{committed}*{{locked}}{r}",
                "money",
                "deductible",
            ),
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
        elif option["billing"] == "on_demand":
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

    def cheapest_after_tax(self, sheet: Any, slugs: list[str]) -> None:
        """The effective horizon, and the option with the lowest present value of cost after tax: a small table of
        each option's name (text) and after-tax NPV, read with INDEX and MATCH."""
        sheet.append([])
        self.result_row(
            sheet,
            "Effective horizon (months)",
            "=horizon_months",
            self.result.get("effective_horizon_months"),
            "effective_horizon_months",
        )
        first = sheet.max_row + 1
        for option, slug in zip(self.doc["options"], slugs, strict=True):
            sheet.append([cell(option["name"]), f"=npv_after_tax_{slug}"])
        last = sheet.max_row
        names, values = f"$A${first}:$A${last}", f"$B${first}:$B${last}"
        sheet.append(
            [
                "Cheapest after tax",
                f"=INDEX({names},MATCH(MIN({values}),{values},0))",
                cell(self.result.get("cheapest_after_tax") or ""),
            ]
        )
        row = sheet.max_row
        sheet.cell(row=row, column=4).value = f'=IF(B{row}=C{row},"agree","differ")'
        self.define("cheapest_after_tax", sheet, f"$B${row}")

    def finance_results(self, option: dict, slug: str, found: dict[str, str]) -> list[tuple[str, str, str, str]]:
        """After tax (docs/money-math.md "Finance depth"): the NPV less the tax savings plus the tax on sales, the
        after-tax cash cost, and the option's own figures (depreciation, loan, lease, commitment)."""
        s = slug
        last = found["cumulative"].split("!")[0] + "!" + found["cumulative"].split(":")[-1]
        schedule = self.schedules.get(slug)
        term = option.get("commitment_term_months")
        if schedule is not None:
            financing = {"loan": "interest", "lease": "lease"}.get(schedule.financing)
            pv_financing = (
                f"=tax_rate*({found['today_' + financing]}+SUMPRODUCT({found[financing]},{found['discount']}))"
                if financing
                else "=0"
            )
            financed = f"+{found['today_' + financing]}+SUM({found[financing]})" if financing else ""
            parts = [
                f"=tax_rate*SUMPRODUCT({found['usage']},{found['discount']})",
                f"=tax_rate*SUMPRODUCT({found['depreciation']},{found['discount']})",
                pv_financing,
                f"=SUMPRODUCT({found['disposal']},{found['discount']})",
            ]
            total = (
                f"={found['today_cash']}+SUM({found['cash']})-SUM({found['proceeds']})"
                f"-tax_rate*(SUM({found['usage']})+SUM({found['depreciation']}){financed})+SUM({found['disposal']})"
            )
        elif term is not None:
            parts = [f"=tax_rate*SUMPRODUCT({found['deductible']},{found['discount']})", "=0", "=0", "=0"]
            total = f"={last}-tax_rate*SUM({found['deductible']})"
        else:
            parts = [f"=tax_rate*npv_{s}", "=0", "=0", "=0"]
            total = f"={last}-tax_rate*{last}"
        keys = ("pv_opex_tax_saving", "pv_depreciation_tax_shield", "pv_financing_tax_saving", "pv_tax_on_disposals")
        labels = (
            "PV of the tax saved on operating costs",
            "PV of the depreciation tax shield",
            "PV of the tax saved on interest and lease payments",
            "PV of the tax on sales",
        )
        rows = [(label, formula, key, key) for label, formula, key in zip(labels, parts, keys, strict=True)]
        rows += [
            (
                "Present value of cost after tax",
                f"=npv_{s}-pv_opex_tax_saving_{s}-pv_depreciation_tax_shield_{s}-pv_financing_tax_saving_{s}"
                f"+pv_tax_on_disposals_{s}",
                "npv_after_tax",
                "npv_after_tax",
            ),
            ("Total cash cost after tax (sales credited)", total, "total_cash_cost", "total_cash_cost"),
        ]
        if schedule is not None:
            rows += self.owned_finance_results(option, slug, found, schedule)
        elif term is not None:
            rows += self.commitment_results(option, slug, found)
        return rows

    def owned_finance_results(
        self, option: dict, slug: str, found: dict[str, str], schedule: fin.OwnedSchedule
    ) -> list[tuple[str, str, str, str]]:
        s = slug
        rows = [
            (
                "After-tax capital charge per year",
                f"=capital_charge_after_tax_{s}",
                "capital_charge_after_tax_per_year",
                "capital_charge_after_tax_per_year",
            ),
            (
                "Book value at the horizon",
                f"={schedule.last['book']}",
                "book_value_at_horizon",
                "book_value_at_horizon",
            ),
            ("Tax basis at the horizon", f"={schedule.last['basis']}", "tax_basis_at_horizon", "tax_basis_at_horizon"),
            (
                "Deferred tax at the horizon T·(book - basis)",
                f"=tax_rate*(book_value_at_horizon_{s}-tax_basis_at_horizon_{s})",
                "deferred_tax_liability_at_horizon",
                "deferred_tax_liability_at_horizon",
            ),
            ("Replacements (fixed: the refresh cycle)", f"={len(schedule.starts) - 1}", "replacements", "replacements"),
        ]
        if not (schedule.leased and not schedule.buyout):
            rows.append(
                (
                    "Book depreciation per year",
                    f"=(capex_{s}-residual_{s})/useful_life_years_{s}",
                    "book_depreciation_per_year",
                    "book_depreciation_per_year",
                )
            )
        if schedule.financing == "loan":
            rows += [
                ("Loan payment per month", f"=loan_payment_{s}", "loan_payment_per_month", "loan_payment_per_month"),
                (
                    "Loan balance repaid at sales",
                    f"=SUM({found['repaid']})",
                    "loan_balance_repaid_at_sale",
                    "loan_balance_repaid_at_sale",
                ),
            ]
        if schedule.leased and self.doc.get("cost_of_debt") is not None:
            k = f"after_tax_cost_of_debt_rate_{s}"
            rows += [
                ("After-tax cost of debt", f"={k}", "after_tax_cost_of_debt", "after_tax_cost_of_debt"),
                (
                    "Net advantage of leasing (NAL)",
                    f"=lease_buy_cost_{s}-(1-tax_rate)*lease_payment_{s}*lease_annuity_{s}",
                    "nal",
                    "nal",
                ),
                (
                    "Break-even lease payment",
                    f"=lease_buy_cost_{s}/((1-tax_rate)*lease_annuity_{s})",
                    "break_even_lease_payment",
                    "break_even_lease_payment",
                ),
            ]
        return rows

    def commitment_results(self, option: dict, slug: str, found: dict[str, str]) -> list[tuple[str, str, str, str]]:
        """A commitment with a term: its effective price against on demand (the upfront spread over the term at the
        discount rate), the share of demand it serves, how busy the committed GPUs are, and the break-evens."""
        s = slug
        term = int(option["commitment_term_months"])
        _, first = fin.term_layout(option, self.horizon)
        months_in_term = sum(1 for month in first[1:] if month)
        discount = found["discount"].split("!")
        letter = discount[1].split("$")[1]
        annuity = f"SUM({discount[0]}!${letter}${self.first_row}:${letter}${self.first_row + term - 1})"
        share = f"upfront_share_{s}"
        od = (
            f"on_demand_price_per_gpu_hour_{s}"
            if option.get("on_demand_price_per_gpu_hour") is not None
            else "burst_price_per_gpu_hour"
        )
        u_c = f"commitment_break_even_utilization_{s}"
        fleet_u = f"committed_gpus_{s}*{u_c}/(({self.work_factor(option, s)})*fleet_gpus)"
        term_hours = f"committed_gpus_{s}*{HOURS_PER_MONTH}*{months_in_term}"
        return [
            (
                "Commitment's effective price per GPU-hour",
                f"=price_per_gpu_hour_{s}*({share}*{term}/{annuity}+1-{share})",
                "commitment_effective_price_per_gpu_hour",
                "commitment_effective_price_per_gpu_hour",
            ),
            (
                "Share of demand the commitment serves",
                f'=IF(SUM({found["hours"]})=0,"",SUM({found["served"]})/SUM({found["hours"]}))',
                "commitment_coverage",
                "commitment_coverage",
            ),
            (
                "Share of committed GPU-hours busy",
                f'=IF({term_hours}=0,"",SUM({found["served"]})/({term_hours}))',
                "commitment_utilization",
                "commitment_utilization",
            ),
            (
                "Committed GPUs must be busy (break-even vs on demand)",
                f'=IF(N({od})=0,"",commitment_effective_price_per_gpu_hour_{s}/{od})',
                "commitment_break_even_utilization",
                "commitment_break_even_utilization",
            ),
            (
                "Fleet break-even utilization vs on demand",
                f'=IF({u_c}="","",IF({fleet_u}<=1,{fleet_u},""))',
                "break_even_utilization_vs_on_demand",
                "break_even_utilization_vs_on_demand",
            ),
        ]

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

    def tax_tables(self, slugs: list[str], ranges: list[dict[str, str]]) -> None:
        """The MACRS tables (IRS Publication 946, Table A-1, per cent), and per owned option the share of its basis
        deducted in each tax year, their running total, and the tax depreciation landing in each year of the
        horizon (write-offs at a sale left out)."""
        from openpyxl.utils import get_column_letter

        from tco.engine.tax import MACRS

        sheet = self.book.create_sheet("Tax depreciation")
        years = fin.tax_years(self.doc)
        owned = [(i, slug) for i, slug in enumerate(slugs) if slug in self.schedules]
        headers = ["Tax year", *(f"MACRS {method[-1]}-year, %" for method in MACRS)]
        for i, _ in owned:
            name = self.doc["options"][i]["name"]
            headers += [f"Share, {name}", f"Share so far, {name}", f"Deducted in year, {name}"]
        self.header(sheet, [cell(text) for text in headers])
        horizon_years = -(-self.horizon // 12)
        for k in range(1, years + 1):
            row = k + 1
            values: list[Any] = [k]
            for table in MACRS.values():
                values.append(table[k - 1] if k <= len(table) else None)
            for n, (i, slug) in enumerate(owned):
                share = get_column_letter(5 + 3 * n)
                macrs = {"macrs_3": "B", "macrs_5": "C", "macrs_7": "D"}.get(
                    self.doc["options"][i].get("tax_depreciation", ""), "B"
                )
                values.append(fin.share_formula(self.doc["options"][i], slug, k, f"{macrs}{row}"))
                values.append(f"=SUM({share}$2:{share}{row})")
                if k <= horizon_years:
                    column = ranges[i]["depreciation"].split("!")
                    letter = column[1].split("$")[1]
                    top, bottom = self.first_row + 12 * (k - 1), min(self.first_row + 12 * k - 1, self.last_row)
                    values.append(f"=SUM({column[0]}!{letter}{top}:{letter}{bottom})")
                else:
                    values.append(None)
            sheet.append(values)
        self.define("tax_years", sheet, f"$A$2:$A${years + 1}")
        for method, letter in zip(MACRS, "BCD", strict=True):
            self.define(method, sheet, f"${letter}$2:${letter}${years + 1}")
        for n, (_, slug) in enumerate(owned):
            share, total, deducted = (get_column_letter(5 + 3 * n + j) for j in range(3))
            self.define(f"tax_shares_{slug}", sheet, f"${share}$2:${share}${years + 1}")
            self.define(f"tax_shares_cum_{slug}", sheet, f"${total}$2:${total}${years + 1}")
            self.define(f"tax_depreciation_by_year_{slug}", sheet, f"${deducted}$2:${deducted}${horizon_years + 1}")

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
                if rental["kind"] in OWNED_KINDS or rental["kind"] in API_KINDS or rental.get("billing") != "on_demand":
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
