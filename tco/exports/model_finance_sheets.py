"""The finance depth's sheets and rows of the live workbook (docs/money-math.md, "The workbook"), mixed into its
builder: the finance inputs' rows, an owned option's schedule columns and today's row, a commitment term's columns,
the Tax depreciation sheet, and the after-tax results on the Summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tco.engine import HOURS_PER_MONTH
from tco.exports import model_finance as fin
from tco.exports.tables import cell


@dataclass
class Column:
    header: str
    formula: Callable[[int], str]  # row number -> formula text
    style: str = "money"
    key: str = ""  # how other formulas find this column
    event: bool = False  # amounts by the option's schedule (model_finance.OwnedSchedule), month 0 included


class FinanceSheets:
    """Methods of the workbook's builder for the finance depth (they use its cells, names and ledgers)."""

    book: Any
    doc: dict
    result: dict
    horizon: int
    first_row: int
    last_row: int
    today_row: int
    ledger_index: int
    input_fill: Any
    schedules: dict[str, fin.OwnedSchedule]
    training: bool
    training_hours: str
    capex_today: dict[str, str]
    define: Callable[..., None]
    header: Callable[..., None]
    input_row: Callable[..., None]
    result_row: Callable[..., None]
    work_factor: Callable[..., str]

    def finance_inputs(self, sheet: Any, option: dict, slug: str) -> None:
        """The option's finance inputs, then its resale curve's points and its yearly price changes, one row each."""
        for label, value, unit, name, editable in fin.option_rows(option, slug):
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
        # The training hours fill the committed GPUs first, at every utilization (docs/money-math.md "Training runs").
        committed = f"committed_gpus_{s}*{u_c}"
        if self.training:
            committed = f"MAX({committed}-{self.training_hours}/{HOURS_PER_MONTH},0)"
        fleet_u = f"{committed}/(({self.work_factor(option, s)})*fleet_gpus)"
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
