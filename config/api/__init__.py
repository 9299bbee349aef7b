"""The public API's wiring (/api/v1/): bearer-token sign-in, per-token limits, problem+json errors, the site.

The endpoints are the apps' own routers (``tco.api``, ``pricing.api``); ``config.api.site`` puts them together.
"""
