"""Tokens and a client that sends them, for the API's tests."""

from __future__ import annotations

import pytest

from config.tokens import api_token_create


class ApiClient:
    """Django's test client with ``Authorization: Bearer <token>`` on every request, JSON bodies by default."""

    def __init__(self, client, token: str | None) -> None:
        self.client = client
        self.token = token

    def _headers(self, headers: dict | None) -> dict:
        sent = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**sent, **(headers or {})}

    def get(self, path: str, data=None, headers: dict | None = None):
        return self.client.get(path, data, headers=self._headers(headers))

    def post(self, path: str, body=None, *, headers: dict | None = None, **kwargs):
        if "data" in kwargs:  # multipart (a file upload)
            return self.client.post(path, kwargs["data"], headers=self._headers(headers))
        return self.client.post(path, body, content_type="application/json", headers=self._headers(headers))

    def patch(self, path: str, body, headers: dict | None = None):
        return self.client.patch(path, body, content_type="application/json", headers=self._headers(headers))

    def delete(self, path: str, headers: dict | None = None):
        return self.client.delete(path, headers=self._headers(headers))


@pytest.fixture
def make_api(client):
    """make_api(user, scope) -> an ApiClient with a fresh token of that user and scope."""

    def make(user, scope: str = "read", **options) -> ApiClient:
        _, token = api_token_create(user=user, name=f"{scope} token of {user.username}", scope=scope, **options)
        return ApiClient(client, token)

    return make


@pytest.fixture
def editor_api(make_api, editor) -> ApiClient:
    return make_api(editor, "write")


@pytest.fixture
def reader_api(make_api, editor) -> ApiClient:
    return make_api(editor, "read")


@pytest.fixture
def viewer_api(make_api, viewer) -> ApiClient:
    return make_api(viewer, "write")
