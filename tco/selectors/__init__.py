"""Reads (HackSoft selectors), mirroring ``tco/services/``: querysets and plain data, never a write, never the engine.

- ``scenarios``: a scenario with its options, run state, the scenario list with latest results;
- ``decisions``: token look-up, live links, the brief, decision records;
- ``history``: the scenario's change history in words;
- ``uncertainty``: input ranges as the engine's ``uncertainty`` map, simulation runs, the JSON export with ranges.

Market prices for the price picker are the pricing app's (``pricing.selectors.market_prices``); the numbers of a
scenario's current inputs come from the engine through a service (``tco.services.evaluation``).
"""
