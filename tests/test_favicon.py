"""Every page names the site's icon, served from static/ like every other asset."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.urls import reverse

ICON = static("img/favicon.svg")
LINK = re.compile(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">')


def test_the_icon_is_a_small_svg_in_static():
    path = finders.find("img/favicon.svg")
    assert path is not None
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 32 32"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["login", "tco:home", "pricing:market"])
def test_pages_link_the_icon(editor_client, name):
    html = editor_client.get(reverse(name)).content.decode()
    assert LINK.findall(html) == [ICON]


@pytest.mark.django_db
def test_the_decision_pages_link_the_icon(client):
    html = client.get("/d/not-a-token").content.decode()
    assert LINK.findall(html) == [ICON]
