"""The README's figures: each exists, each gallery caption names its data (sample or released) and its model
visibly (not in an HTML comment), and figures/ holds only what a run of the paper notebooks writes there
(figures/<paper>/<name>.pdf|png and its <name>.caption.md; copies of other runs live with those runs' results)."""

from __future__ import annotations

import re

from culturelab import config

ROOT = config.project_root()
PAPERS = {"quickstart", "captex", "fmlama", "turkish_plu", "cultural_recipes", "percul", "profile"}


def test_every_readme_image_exists():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert images and [i for i in images if not (ROOT / i).is_file()] == []


def test_gallery_captions_name_the_data_and_the_model():
    readme = re.sub(r"<!--.*?-->", "", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)
    cells = [c for line in readme.splitlines() if line.startswith("| ![") for c in line.strip("| ").split(" | ")]
    captions = [re.sub(r"!\[[^\]]*\]\([^)]+\)", "", c).strip() for c in cells]
    assert len(captions) >= 6
    for caption in captions:
        assert re.search(r"sample data|released", caption), caption
        assert re.search(r"Gemma|SmolLM|no language model|none run here", caption), caption


def test_figures_hold_only_paper_figures():
    stray = [p.relative_to(ROOT).as_posix() for p in (ROOT / "figures").rglob("*") if p.is_file()
             and (len(p.relative_to(ROOT / "figures").parts) != 2 or p.parent.name not in PAPERS
                  or not p.name.endswith((".pdf", ".png", ".html", ".caption.md")))]
    assert stray == []
