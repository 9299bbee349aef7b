"""Request guards that apply to every view."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest


class RejectNulCharactersMiddleware:
    """Refuse form data or query parameters containing NUL (0x00): PostgreSQL can neither store nor search
    for it (a search term with NUL fails the query), and no user means it.

    Django's form fields already refuse NUL; this covers views that read request.POST or request.GET directly.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for data in (request.GET, request.POST) if request.method == "POST" else (request.GET,):
            for key, values in data.lists():
                if "\x00" in key or any("\x00" in value for value in values):
                    field = key.replace("\x00", "")
                    return HttpResponseBadRequest(
                        f"The field {field!r} contains a NUL (0x00) character; remove it and try again."
                    )
        return self.get_response(request)
