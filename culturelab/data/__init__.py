"""Data plumbing shared by every paper. Each paper's loader lives in its own package
(``culturelab/<paper>/data.py``) and uses these: ``validate`` (a malformed row raises
:class:`DataError` naming the file, the row and the column), ``sources`` (one data-source
vocabulary: a local copy, a verified download, or our sample via ``sample_dir(paper)``), and
``samples/``, the small schema-faithful data written for this project.
"""

from __future__ import annotations

from culturelab.data.validate import DataError, require_columns, validate_rows

__all__ = ["DataError", "require_columns", "validate_rows"]
