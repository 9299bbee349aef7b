"""Scenario pages and their htmx endpoints (the Overview stays in tco/views.py)."""
