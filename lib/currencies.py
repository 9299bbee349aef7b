"""ISO 4217: the active currency codes money may be in (a static list: no network at run time).

Only codes that name money: the list leaves out precious metals (XAU, XAG, XPT, XPD), bond-market units
(XBA-XBD), the SDR and its kin (XDR, XSU, XUA), fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW),
the testing code XTS and XXX ("no currency"). Pure Python, so the framework-free engine may use it too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_CODES = """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD
    CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP
    GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD
    KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK
    NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS
    SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST
    XAF XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL
"""
ISO_4217_ACTIVE = frozenset(_CODES.split())
DEFAULT_CURRENCY = "USD"  # a document or scenario that names no currency is in US dollars

_CODE = re.compile(r"[A-Za-z]{3}")


def is_currency(code: object) -> bool:
    """True for an active ISO 4217 code (upper case, as stored)."""
    return isinstance(code, str) and code in ISO_4217_ACTIVE


def currency_problem(text: str) -> str | None:
    """Why `text` is not a currency code a price or scenario may use, or None when it is one (any case)."""
    code = text.strip().upper()
    if not _CODE.fullmatch(code):
        return f"{text.strip()[:20]!r} is not a 3-letter currency code such as USD or EUR"
    if code not in ISO_4217_ACTIVE:
        return f"{code} is not an ISO 4217 currency code; use one such as USD, EUR, GBP or JPY"
    return None


def currency_of(data: Mapping[str, Any]) -> str:
    """The currency a document or result is in: its ``currency``, or the default when it names none (left out,
    null or blank)."""
    return data.get("currency") or DEFAULT_CURRENCY
