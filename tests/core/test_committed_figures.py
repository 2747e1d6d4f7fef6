"""The committed figures (``figures/``, the paper rendering of the default run that ``make reproduce``
writes): each PDF fits a paper's text width with no text under 6 pt and TrueType fonts, has its caption
file, and no caption names a path of the machine that drew it — read from the files themselves."""

from __future__ import annotations

import pytest

from culturelab import config
from culturelab.plots import audit

FIGURES = config.committed_figures_dir()
PDFS = sorted(FIGURES.rglob("*.pdf"))


def test_there_are_committed_figures():
    assert len(PDFS) >= 20


@pytest.mark.parametrize("pdf", PDFS, ids=[p.relative_to(FIGURES).as_posix() for p in PDFS])
def test_a_committed_figure_is_ready_for_a_paper(pdf):
    facts = audit.pdf_facts(pdf)
    assert facts["width_in"] <= 7.0, facts
    assert min(facts["font_sizes"]) >= 6.0, facts
    assert "Type3" not in facts["font_types"], facts
    caption = pdf.with_suffix(".caption.md")
    assert caption.is_file(), f"{pdf.name} has no caption file"
    text = caption.read_text(encoding="utf-8")
    assert not audit.absolute_path(text), text
    assert pdf.with_suffix(".png").is_file()
