"""The tco views: the functions URLs name, one module per part of the pages."""
