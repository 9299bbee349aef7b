"""What browser tests share besides fixtures (tests/browser/conftest.py): the test users' password and signing in."""

from __future__ import annotations

import re

from django.contrib.auth.models import User

PASSWORD = "browser-test-pw-1"


def log_in(page, live_server, user: User) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/$"))


def reveal(field) -> None:
    """Open the folded group (a closed disclosure, such as an option's tax and financing) an input sits in, as a user
    does: by clicking its summary."""
    folded = field.locator("xpath=ancestor::details[not(@open)][1]")
    if folded.count():
        folded.locator(":scope > summary").click()
