"""CulturalRecipes (Cao et al., TACL 2024): Chinese↔English recipes matched by title.

The release (``github.com/coastalcph/cultural-recipes``, files in Google Drive folders) stores one
``matched_recipe = {"source": recipe, "targets": [recipe, ...]}`` per JSONL line, with
``recipe = {id, title, title_translated, ingredients: [str], steps: [str], dish}``. Put the files
under ``<data_dir>/cultural_recipes/recipe_match_{cn2en,en2cn}/`` (``CULTURELAB_DATA``) as
``train.jsonl``, ``valid.jsonl``, ``test.jsonl`` (auto-matched), ``silver_test.jsonl`` and
``gold_test.jsonl`` — or pass any file to :func:`read_matched`. Drive folders cannot be fetched
without a browser session and carry no checksums, so there is no ``download`` source:
``data_source`` is ``auto`` (the local copy, else our sample), ``local`` (the local copy, or an
error saying where to get it) or ``sample`` (**our** small sample in
``culturelab/data/samples/cultural_recipes``, written by us, labelled as a sample).

Tables (one row per matched source recipe):

* :func:`load_split` — ``recipe_id, direction, split, source, targets, n_targets`` (``source`` a
  recipe dict, ``targets`` a list of recipe dicts);
* :func:`pairs` — one row per (source, target) pair, the finetuning view of the paper;
* :func:`load_ratings` — human ratings ``recipe_id, direction, system, GRA, CON, PRE, CUL``;
* :func:`iter_recipes` — streams RecipeNLG CSV / recipe JSONL / plain-text corpora (for word2vec).

>>> serialize({"title": "Red Bean Soup", "ingredients": ["1 cup beans", "water"], "steps": ["Soak.", "Boil."]})
'Title: Red Bean Soup, Ingredients: 1 cup beans water, Steps: Soak. Boil.'
>>> strip_headings("Title: 红豆汤, Ingredients: 红豆, Steps: 煮。")
'红豆汤, 红豆, 煮。'
>>> count_tokens("红豆洗净，浸泡8小时", "zh"), count_tokens("Soak the beans overnight", "en")
(6, 4)
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from culturelab import config
from culturelab.data.sources import resolve_source, sample_dir
from culturelab.data.validate import DataError, require_columns, validate_rows
from culturelab.protocol import Deviations

SUBDIR = "cultural_recipes"
#: our direction names → the release's folder names
DIRECTIONS = {"zh2en": "cn2en", "en2zh": "en2cn"}
LANGS = {"zh2en": ("zh", "en"), "en2zh": ("en", "zh")}
ARROWS = {"zh2en": "zh→en", "en2zh": "en→zh"}
SPLIT_FILES = {"train": "train.jsonl", "valid": "valid.jsonl", "test": "test.jsonl",
               "silver": "silver_test.jsonl", "gold": "gold_test.jsonl"}
CRITERIA = ("GRA", "CON", "PRE", "CUL")
#: the data sources this paper offers (its release has no fetchable download)
DATA_SOURCES = ("auto", "local", "sample")
#: where the release lives (Google Drive links in the repository README; manual download)
RELEASE_URL = "https://github.com/coastalcph/cultural-recipes#readme"

_HEADINGS = ("Title:", "Ingredients:", "Steps:", "title:", "ingredients:", "steps:", "標題:", "原料:", "腳步:")


# --------------------------------------------------------------------------- text helpers
def jieba() -> Any:
    """The ``jieba`` module with its start-up chatter silenced."""
    import logging

    import jieba as _jieba

    _jieba.setLogLevel(logging.WARNING)
    return _jieba


def serialize(recipe: dict[str, Any]) -> str:
    """The paper's model input/output string (the same English headings for both languages)."""
    return (f"Title: {recipe['title']}, Ingredients: {' '.join(recipe['ingredients'])}, "
            f"Steps: {' '.join(recipe['steps'])}")


def strip_headings(text: str) -> str:
    """Remove the ``Title:/Ingredients:/Steps:`` headings (and the release's Chinese ones),
    newlines → spaces, as before evaluation (paper fn. 13, 17)."""
    for heading in _HEADINGS:
        text = text.replace(heading, "")
    return re.sub(r"\s+", " ", text).strip()


def recipe_text(recipe: dict[str, Any]) -> str:
    """Title, ingredients and steps as plain text, without headings (what Table 1 counts).

    >>> recipe_text({"title": "T", "ingredients": ["a"], "steps": ["b", "c"]})
    'T a b c'
    """
    return " ".join([recipe["title"], *recipe["ingredients"], *recipe["steps"]])


def tokenize(text: str, lang: str) -> list[str]:
    """Table 1's tokens: jieba segments for Chinese (spaces dropped), whitespace for English.

    >>> tokenize("红豆 汤", "zh"), tokenize("red  bean soup", "en")
    (['红豆', '汤'], ['red', 'bean', 'soup'])
    """
    if lang == "zh":
        return [t for t in jieba().lcut(text) if t.strip()]
    if lang == "en":
        return text.split()
    raise ValueError(f"lang must be 'zh' or 'en', not {lang!r}")


def count_tokens(text: str, lang: str) -> int:
    """Number of :func:`tokenize` tokens."""
    return len(tokenize(text, lang))


# --------------------------------------------------------------------------- validation
def _check_recipe(value: Any) -> bool | str:
    if not isinstance(value, dict):
        return "must be a recipe object {id, title, ingredients, steps}"
    for key in ("title", "ingredients", "steps"):
        if key not in value:
            return f"recipe has no {key!r} field"
    if not isinstance(value["title"], str) or not value["title"].strip():
        return "recipe title must be a non-empty string"
    for key in ("ingredients", "steps"):
        items = value[key]
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            return f"recipe {key!r} must be a list of strings"
    if not value["steps"]:
        return "recipe has no steps"
    return True


def _check_targets(value: Any) -> bool | str:
    if not isinstance(value, list) or not value:
        return "must be a non-empty list of recipes"
    for i, recipe in enumerate(value):
        verdict = _check_recipe(recipe)
        if verdict is not True:
            return f"target {i}: {verdict}"
    return True


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-empty line, streamed; bad lines raise ``DataError``."""
    with path.open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataError(f"{path}, row {line_no}, column 'json': not valid JSON ({err.msg})") from None
            if not isinstance(row, dict):
                raise DataError(f"{path}, row {line_no}, column 'json': expected an object, got {type(row).__name__}")
            yield line_no, row


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [row for _, row in _iter_jsonl(path)]


def read_matched(path: str | os.PathLike, *, direction: str | None = None, split: str | None = None) -> pd.DataFrame:
    """Read one release-format JSONL file of matched recipes, checking every row.

    Row numbers in errors are JSONL line numbers. ``recipe_id`` is the source's ``id`` when
    present, else ``<file stem>-<line>``.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found")
    rows = _read_jsonl(path)
    frame = pd.DataFrame({"source": [r.get("source") for r in rows], "targets": [r.get("targets") for r in rows]})
    validate_rows(frame, path, {"source": _check_recipe, "targets": _check_targets}, header_rows=0)
    frame.insert(0, "recipe_id", [str(s.get("id") or f"{path.stem}-{i + 1}") for i, s in enumerate(frame["source"])])
    frame.insert(1, "direction", direction)
    frame.insert(2, "split", split)
    frame["n_targets"] = frame["targets"].map(len)
    return frame


def split_path(direction: str, split: str, *, data_dir: str | os.PathLike | None = "",
               data_source: str = "auto") -> tuple[Path, str]:
    """The file of one split and where it came from (``released`` or ``sample``).

    ``data_source``: ``auto`` (the local copy under ``data_dir``, else our sample), ``local``
    (the local copy, or an error saying where to get it), ``sample``.

    >>> path, origin = split_path("en2zh", "gold", data_source="sample")
    >>> path.parent.name, path.name, origin
    ('recipe_match_en2cn', 'gold_test.jsonl', 'sample')
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {sorted(DIRECTIONS)}, not {direction!r}")
    if split not in SPLIT_FILES:
        raise ValueError(f"split must be one of {sorted(SPLIT_FILES)}, not {split!r}")
    if data_source not in DATA_SOURCES:
        raise ValueError(f"data_source must be one of {', '.join(DATA_SOURCES)}, not {data_source!r} (the release "
                         f"is in Google Drive folders, {RELEASE_URL}: download it by hand)")
    rel = Path(SUBDIR) / f"recipe_match_{DIRECTIONS[direction]}" / SPLIT_FILES[split]
    local = config.data_dir(data_dir) / rel
    try:
        source = resolve_source(data_source, local if local.is_file() else None, auto="sample", data_dir=data_dir)
    except FileNotFoundError:
        raise FileNotFoundError(f"{local} not found. The CulturalRecipes files are on Google Drive (links in "
                                f"{RELEASE_URL}); download them to that path or set CULTURELAB_DATA / data_dir, "
                                "or use data_source 'sample'") from None
    if source == "local":
        return local, "released"
    return sample_dir(SUBDIR) / rel.relative_to(SUBDIR), "sample"


def load_split(direction: str, split: str, *, data_dir: str | os.PathLike | None = "",
               data_source: str = "auto") -> pd.DataFrame:
    """One split of one direction (see :func:`split_path`); ``attrs["data_source"]`` says
    ``released`` or ``sample``.

    >>> t = load_split("zh2en", "gold", data_source="sample")
    >>> len(t), t.attrs["data_source"], t["source"].iloc[0]["title"]
    (5, 'sample', '红豆汤')
    """
    path, source = split_path(direction, split, data_dir=data_dir, data_source=data_source)
    frame = read_matched(path, direction=direction, split=split)
    frame.attrs["data_source"] = source
    frame.attrs["path"] = str(path)
    return frame


def recipes_key(split: str, direction: str) -> str:
    """The count key of one split of one direction (source recipes), as runs stamp it and the
    paper's release declares it (:data:`culturelab.cultural_recipes.protocol.RELEASE`).

    >>> recipes_key("gold", "zh2en")
    'gold zh→en recipes'
    """
    return f"{split} {ARROWS[direction]} recipes"


def data_source_of(tables: Iterable[pd.DataFrame]) -> str:
    """Where several loaded splits came from: ``released``, ``sample``, or ``mixed``.

    >>> data_source_of([load_split(d, "gold", data_source="sample") for d in DIRECTIONS])
    'sample'
    """
    origins = {t.attrs["data_source"] for t in tables}
    return origins.pop() if len(origins) == 1 else "mixed"


def pairs(matched: pd.DataFrame) -> pd.DataFrame:
    """One row per (source, target) combination: ``recipe_id, direction, split, target_rank, source, target``.

    >>> len(pairs(load_split("zh2en", "train", data_source="sample")))
    5
    """
    rows = [{"recipe_id": r.recipe_id, "direction": r.direction, "split": r.split, "target_rank": i,
             "source": r.source, "target": t}
            for r in matched.itertuples(index=False) for i, t in enumerate(r.targets)]
    return pd.DataFrame(rows, columns=["recipe_id", "direction", "split", "target_rank", "source", "target"])


# --------------------------------------------------------------------------- ratings and predictions
def load_ratings(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """Human ratings ``recipe_id, direction, system, GRA, CON, PRE, CUL`` (1–7 Likert); without a
    path, our sample ratings (``attrs["data_source"] == "sample"``).

    >>> r = load_ratings()
    >>> len(r), int(r[["GRA", "CON", "PRE", "CUL"]].to_numpy().max()) <= 7
    (30, True)
    """
    file = Path(path) if path else sample_dir(SUBDIR) / "human_ratings.csv"
    if not file.is_file():
        raise FileNotFoundError(f"{file} not found")
    table = pd.read_csv(file, dtype={"recipe_id": str, "direction": str, "system": str})

    def likert(v: Any) -> bool | str:
        return (not pd.isna(v) and float(v) == int(v) and 1 <= int(v) <= 7) or "must be an integer rating 1–7"

    validate_rows(table, file, {"recipe_id": lambda v: (isinstance(v, str) and bool(v)) or "must be non-empty",
                                "direction": lambda v: v in DIRECTIONS or f"must be one of {sorted(DIRECTIONS)}",
                                "system": lambda v: (isinstance(v, str) and bool(v)) or "must be non-empty",
                                **dict.fromkeys(CRITERIA, likert)})
    table[list(CRITERIA)] = table[list(CRITERIA)].astype(int)
    table.attrs["data_source"] = "released" if path else "sample"
    return table


# --------------------------------------------------------------------------- monolingual corpora
def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value.startswith("["):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return [value]
        return [str(v) for v in parsed] if isinstance(parsed, (list, tuple)) else [value]
    return [] if value is None else [str(value)]


def iter_recipes(path: str | os.PathLike, *, scope: str = "full", max_recipes: int | None = None) -> Iterator[dict]:
    """Stream recipes ``{title, ingredients, steps}`` from a corpus file, never loading it whole.

    * ``.csv`` — RecipeNLG (``title, ingredients, directions`` as stringified lists);
    * ``.jsonl`` — one recipe per line, or release-format matched recipes (``scope="matched"``
      yields sources and targets, ``scope="full"`` the same for a matched file);
    * ``.txt`` — one recipe (or sentence) per line, as its only step.
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"{file} not found")
    if scope not in {"full", "matched"}:
        raise ValueError(f"scope must be 'full' or 'matched', not {scope!r}")
    n = 0

    def done() -> bool:
        return max_recipes is not None and n >= max_recipes

    suffix = file.suffix.lower()
    if suffix == ".csv":
        csv.field_size_limit(2**31 - 1)
        with file.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in ("title", "ingredients", "directions") if c not in (reader.fieldnames or [])]
            if missing:
                raise DataError(f"{file}: missing column(s) {missing}; a RecipeNLG CSV has title, ingredients, directions")
            for row in reader:
                if done():
                    return
                n += 1
                yield {"title": row["title"] or "", "ingredients": _as_list(row["ingredients"]),
                       "steps": _as_list(row["directions"])}
    elif suffix == ".jsonl":
        for line_no, row in _iter_jsonl(file):
            recipes = [row["source"], *row.get("targets", [])] if "source" in row else [row]
            for recipe in recipes:
                if done():
                    return
                verdict = _check_recipe(recipe)
                if verdict is not True:
                    raise DataError(f"{file}, row {line_no}, column 'recipe': {verdict}")
                n += 1
                yield recipe
    else:
        with file.open(encoding="utf-8") as fh:
            for line in fh:
                if done():
                    return
                if line.strip():
                    n += 1
                    yield {"title": "", "ingredients": [], "steps": [line.strip()]}


def table1_stats(matched: pd.DataFrame) -> pd.DataFrame:
    """Table 1: recipes and mean tokens (jieba for zh, whitespace for en) per split × direction.

    ``n_source`` counts source recipes, ``n_target`` target recipes (several per source in the
    auto-matched splits).
    """
    require_columns(matched, ["direction", "split", "source", "targets"], "matched recipes")
    rows = []
    for (direction, split), part in matched.groupby(["direction", "split"], sort=False):
        src_lang, trg_lang = LANGS[direction]
        src_tokens = [count_tokens(recipe_text(s), src_lang) for s in part["source"]]
        trg_tokens = [count_tokens(recipe_text(t), trg_lang) for ts in part["targets"] for t in ts]
        rows.append({"direction": direction, "split": split, "n_source": len(src_tokens), "n_target": len(trg_tokens),
                     "mean_tokens_source": sum(src_tokens) / max(len(src_tokens), 1),
                     "mean_tokens_target": sum(trg_tokens) / max(len(trg_tokens), 1)})
    return pd.DataFrame(rows)


def load_splits(directions: Iterable[str], splits: Iterable[str] = tuple(SPLIT_FILES), *,
                data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> dict[str, pd.DataFrame]:
    """Every split of the given directions (both directions of a split in one table; its
    ``attrs["data_source"]`` is ``released``, ``sample`` or ``mixed``), for Table 1.

    >>> t = load_splits(["zh2en", "en2zh"], ["gold"], data_source="sample")
    >>> len(t["gold"]), t["gold"].attrs["data_source"]
    (10, 'sample')
    """
    out = {}
    for split in splits:
        parts = [load_split(d, split, data_dir=data_dir, data_source=data_source) for d in directions]
        out[split] = pd.concat(parts, ignore_index=True)
        out[split].attrs["data_source"] = data_source_of(parts)
    return out


#: the auto-matched splits together: the paper's Table 1 "Train & Val" row (see :func:`table1_beside_paper`)
AUTO_MATCHED = "train+valid+test"


def table1_beside_paper(splits: dict[str, pd.DataFrame],
                        deviations_of: Callable[[str, dict[str, int]], Deviations]) -> pd.DataFrame:
    """Table 1 recomputed (:func:`table1_stats`) beside the paper's: ``splits`` maps each split
    name (``train``, ``valid``, ``test``, ``silver``, ``gold``) to its matched recipes (e.g.
    :func:`load_splits`). The paper's "Train & Val" row counts every auto-matched recipe: its
    44.5k / 43.8k sources are the README's train + valid + test (35,578 + 4,447 + 4,448 = 44,473
    zh→en; 35,013 + 4,377 + 4,377 = 43,767 en→zh), so it is set beside the three splits merged
    (:data:`AUTO_MATCHED`, when all three are given); the exact
    train/valid/test sizes come from the repository README. The token counts follow the paper
    (jieba for Chinese, whitespace for English). Each (split, direction) is labelled by
    ``deviations_of(source, counts)`` — where it was read from and how many source recipes it
    holds per split and direction (:func:`culturelab.cultural_recipes.protocol.table1`) — so Δ
    is filled only for a split of the release as the paper counts it.

    >>> from culturelab.cultural_recipes.protocol import table1
    >>> t = table1_beside_paper(load_splits(["zh2en"], ["gold"], data_source="sample"), table1)
    >>> t.set_index("quantity").loc["n_source", ["ours", "reported", "delta"]].tolist()
    [5.0, 25.0, nan]
    """
    from culturelab.reported import compare
    from culturelab.reported import load as load_reported

    tables = dict(splits)
    parts = AUTO_MATCHED.split("+")
    if all(s in tables for s in parts):
        merged = pd.concat([tables[s] for s in parts], ignore_index=True).assign(split=AUTO_MATCHED)
        merged.attrs["data_source"] = data_source_of([tables[s] for s in parts])
        tables[AUTO_MATCHED] = merged
    paper = load_reported(SUBDIR, "table1")
    keys = ["split", "direction", "quantity"]
    parts = []
    for name, table in tables.items():
        for direction, part in table.groupby("direction", sort=False):
            ours = table1_stats(part).melt(id_vars=["direction", "split"], var_name="quantity", value_name="value")
            ours["value"] = ours["value"].astype(float)
            rep = paper.merge(ours[keys], on=keys)
            if len(rep):
                counts = {recipes_key(s, direction): int((tables[s]["direction"] == direction).sum())
                          for s in name.split("+")}
                deviations = deviations_of(table.attrs.get("data_source", "released"), counts)
                parts.append(compare(rep, ours, on=keys, deviations=deviations))
    return pd.concat(parts, ignore_index=True).dropna(subset=["ours", "reported"]).reset_index(drop=True)
