"""The tco views: the functions URLs name, each called `<url name>_view`, one module per part of the pages."""
