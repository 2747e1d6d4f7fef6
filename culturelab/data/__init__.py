"""Benchmark loaders, one module per paper (``captex``, ``fmlama``, ``turkish_plu``,
``recipes``, ``percul``). Each returns tidy pandas tables with documented columns and
checks them on the way in: a malformed row raises :class:`DataError` naming the file, the
row and the column. ``sources`` finds a file locally, downloads it, or falls back to the
bundled sample; ``samples/`` holds the small schema-faithful data written for this project.
"""

from __future__ import annotations

from culturelab.data.validate import DataError, require_columns, validate_rows

__all__ = ["DataError", "require_columns", "validate_rows"]
