"""CulturalRecipes' one entry point: allowed values in one place (setup.CHOICES, setup.check),
open() resolving each data source and stamping it on the run, paper numbers from reported/, and a
package without import cycles whose embeddings layer does not depend on it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import culturelab
from culturelab.cultural_recipes import alignment, corpus, setup
from culturelab.params import notebook_choice_problems
from culturelab.protocol import compare
from culturelab.reported import load as load_reported
from culturelab.runner import notebook_defaults, notebook_file

PACKAGE = Path(culturelab.__file__).parent


class FakeRun:
    def __init__(self, notebook: str, **params):
        self.notebook = f"cultural_recipes/{notebook}"
        self.params = {**notebook_defaults(notebook_file(self.notebook)), **params}
        self.stamp = None

    def set_data_source(self, source: str, counts: dict | None = None, note: str = "") -> None:
        self.stamp, self.counts, self.note = source, counts, note


def _write_gold(root: Path, folder: str = "recipe_match_cn2en") -> None:
    recipe = {"id": "r1", "title": "红豆汤", "ingredients": ["红豆"], "steps": ["煮。"]}
    (root / "cultural_recipes" / folder).mkdir(parents=True)
    for name in ("gold_test.jsonl", "silver_test.jsonl"):
        line = json.dumps({"source": recipe, "targets": [{**recipe, "title": "Soup"}]}, ensure_ascii=False)
        (root / "cultural_recipes" / folder / name).write_text(line + "\n", encoding="utf-8")


@pytest.mark.parametrize(("notebook", "key", "value", "fragment"), [
    ("01_bli_alignment", "mode", "magic", "'magic' is not one of supervised"),
    ("01_bli_alignment", "real_vectors_modes", ["identical", "fast"], "['fast'] not allowed"),
    ("01_bli_alignment", "seed_variant", "ocr", "'ocr' is not one of paper, printed, cut"),
    ("02_adaptation", "directions", [], "must not be empty"),
    ("02_adaptation", "split", "train", "'train' is not one of gold, silver"),
    ("02_adaptation", "style", "chat", "'chat' is not one of llm, bloom"),
    ("02_adaptation", "compat", ["corrected", "2024"], "['2024'] not allowed"),
    ("02_adaptation", "data_source", "download", "'download' is not one of auto, local, sample"),
])
def test_a_bad_value_is_one_line_naming_the_key(notebook, key, value, fragment):
    params = {**notebook_defaults(notebook_file(f"cultural_recipes/{notebook}")), key: value}
    problems = notebook_choice_problems(f"cultural_recipes/{notebook}", params)
    assert len(problems) == 1 and problems[0].startswith(f"cultural_recipes/{notebook}.{key}: ")
    assert fragment in problems[0]


def test_both_corpus_paths_or_neither():
    nb = "cultural_recipes/01_bli_alignment"
    defaults = notebook_defaults(notebook_file(nb))
    assert notebook_choice_problems(nb, {**defaults, "en_corpus": "en.csv"}) == [
        f"{nb}.zh_corpus: give both corpus paths (zh_corpus and en_corpus) or neither"]
    assert notebook_choice_problems(nb, {**defaults, "zh_corpus": "a", "en_corpus": "b"}) == []


def test_open_gives_notebook_01_the_toy_sample_or_the_corpus_files():
    run = FakeRun("01_bli_alignment", max_recipes=4)
    toy = setup.open(run)
    assert run.stamp == "sample" and toy.name == "toy" and toy.max_recipes is None
    assert toy.zh() == corpus.toy_corpus("zh", 4, seed=0) and toy.related["豆腐"] == {"ham": "cultural"}
    run = FakeRun("01_bli_alignment", zh_corpus="zh.jsonl", en_corpus="en.csv", max_recipes=0)
    files = setup.open(run)
    assert run.stamp == "given" and files.zh == Path("zh.jsonl") and files.max_recipes is None
    assert files.literal is None and files.related is None  # CC-CEDICT and our taxonomy label them


def test_open_gives_notebook_02_each_data_source(tmp_path):
    _write_gold(tmp_path)
    where = {"data_dir": str(tmp_path), "directions": ["zh2en"], "max_recipes": 0}
    for data_source, stamp, n in [("auto", "released", 1), ("local", "released", 1), ("sample", "sample", 5)]:
        run = FakeRun("02_adaptation", data_source=data_source, **where)
        data, silver, _ = setup.open(run)
        assert run.stamp == stamp and len(data["zh2en"]) == n and len(silver["zh2en"]) == n, data_source
        assert run.counts == {"gold zh→en recipes": n, "silver zh→en recipes": n,
                              "gold zh→en recipes found in the Retrieval pool": n}
    run = FakeRun("02_adaptation", data_source="auto", data_dir=str(tmp_path), max_recipes=2)
    data, _, _ = setup.open(run)  # zh2en is local, en2zh falls back to the sample
    assert run.stamp == "mixed" and [len(t) for t in data.values()] == [1, 2]
    assert run.note == "the release for gold zh→en, silver zh→en; our sample for gold en→zh, silver en→zh"
    with pytest.raises(FileNotFoundError, match="Google Drive"):
        setup.open(FakeRun("02_adaptation", data_source="local", data_dir=str(tmp_path)))


def test_paper_numbers_come_from_reported():
    reported = load_reported("cultural_recipes", "bli").set_index("quantity")["value"]
    view = pd.DataFrame({"label": ["literal", "error"]})
    summary = alignment.bli_summary(view, compare(None, {})).set_index("quantity")["reported"].dropna()
    assert summary.to_dict() == {q: float(reported[q]) for q in ("P@5", "queries", "cultural (of misses)",
                                                                  "error (of misses)")}
    shares = alignment.label_shares(view, "ours")
    paper = shares[shares["source"].str.startswith("paper")].set_index("label")["share"]
    assert paper["literal"] == reported["P@5"]
    assert paper["cultural"] == reported["cultural (of misses)"] / reported["queries"]


def _imports(path: Path) -> set[str]:
    """Every culturelab module a file imports (top level or inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("culturelab"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("culturelab"))
    return found


def _modules(package: str) -> dict[str, Path]:
    folder = PACKAGE / package
    return {f"culturelab.{package}.{p.stem}": p for p in folder.glob("*.py") if p.stem != "__init__"}


def test_no_import_cycles_and_the_embeddings_layer_knows_no_paper():
    modules = {**_modules("cultural_recipes"), **_modules("embeddings")}
    graph = {name: _imports(path) & set(modules) for name, path in modules.items()}

    def reaches(start: str, target: str, seen: set[str]) -> bool:
        return any(n == target or (n not in seen and reaches(n, target, seen | {n})) for n in graph[start])

    assert [m for m in graph if reaches(m, m, set())] == []
    for name, path in _modules("embeddings").items():
        assert not any(m.startswith("culturelab.cultural_recipes") for m in _imports(path)), name


def test_checking_the_parameters_loads_no_torch():
    code = ("import sys; import culturelab.cultural_recipes.setup; "
            "print([m for m in ('torch', 'transformers', 'gensim') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
