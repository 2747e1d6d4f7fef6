"""PERCUL (Moosavi Monazzah, Rahimzadeh et al., NAACL 2025): Persian story-based cultural MCQs.

The released dataset ``teias-ai/percul`` (gated on the Hugging Face hub, no licence declared)
has two parquet splits, ``original_persian`` and ``gpt_english_translation`` (592 rows each),
with columns ``ID, Category, Topic, Story, Choice 1 … Choice 4, Correct Choice`` (1-based).
:func:`load` reads a split from (``data_source``, the shared vocabulary of
:data:`culturelab.data.sources.DATA_SOURCES`)

* ``local``: a folder (``data_dir``, or ``$CULTURELAB_DATA/percul``) holding the two splits as
  ``<split>*.parquet`` (the hub layout ``data/original_persian-00000-of-00001.parquet`` is
  found too), ``<split>.jsonl`` or ``<split>.csv``;
* ``download``: the hub (accept the gate on the hub and export ``HF_TOKEN``);
* ``sample``: **our sample** (:func:`culturelab.data.sources.sample_dir` ``("percul")``): 34 Persian
  stories written by us in all 11 categories, with an English translation split. It is *not* the
  paper's data;
* ``auto``: the local copy when there is one, else our sample (a ``data_dir`` given explicitly
  must hold the splits).

Per-option distractor rule labels (R1–R6 from the paper's Figure 11, ``UA`` for options the
annotators rewrote) were not released. When a ``distractor_rules.csv`` (columns ``ID, Choice,
Rule``; the correct option is labelled ``correct``) sits next to the splits it is attached as
the ``rules`` column; our sample has one.

Every file is validated on the way in: a malformed value raises :class:`DataError` naming the
file, the row (1-based; header = row 1 for CSV, first record = row 1 otherwise) and the column.

>>> bench = load(data_source="sample")
>>> bench.source, len(bench.items), bench.items["category"].nunique(), bench.has_rules
('sample', 34, 11, True)
>>> normalise_category("visible_behavior"), normalise_category("Iconic figures")
('Visible Behavior', 'Iconic Figures')
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from culturelab import config, reported
from culturelab.data import sources
from culturelab.data.validate import DataError, require_columns, validate_rows

REPO_ID = "teias-ai/percul"
SUBDIR = "percul"
SPLITS = ("original_persian", "gpt_english_translation")
#: canonical category order of Table 5, Figure 5 and Figure 16
CATEGORIES = ["Objects", "Music", "Dress", "Institution", "Rituals", "Iconic Figures", "Visible Behavior",
              "Architecture", "Art", "Appropriacy", "Foods"]
#: distractor-generation rules (Figure 11 / Table 2) and annotator-rewritten options
RULES = ["R1", "R2", "R3", "R4", "R5", "R6", "UA"]
RULE_NAMES = {"R1": "Partial Correctness", "R2": "Misinterpretation", "R3": "Unrelated Fact",
              "R4": "Plausible Unsupported", "R5": "Noun Confusion", "R6": "Overgeneralization",
              "UA": "Annotator-written"}
#: Hall's triad level of each category [inferred in the spec; an optional grouping only]
LEVEL = {c: "formal" if c in {"Rituals", "Appropriacy", "Visible Behavior"} else "technical" for c in CATEGORIES}
CHOICE_COLUMNS = [f"Choice {k}" for k in range(1, 5)]
COLUMNS = ["ID", "Category", "Topic", "Story", *CHOICE_COLUMNS, "Correct Choice"]

_CATEGORY_KEYS = {re.sub(r"[^a-z]", "", c.lower()): c for c in CATEGORIES}
_CATEGORY_KEYS.update({"visiblebehaviour": "Visible Behavior", "visbehavior": "Visible Behavior",
                       "iconicfigure": "Iconic Figures", "object": "Objects", "food": "Foods", "ritual": "Rituals",
                       "institutions": "Institution", "instit": "Institution", "arch": "Architecture",
                       "appropriateness": "Appropriacy", "iconfigs": "Iconic Figures"})

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
_ARABIC_LETTERS = str.maketrans({"ي": "ی", "ى": "ی", "ك": "ک", "ة": "ه", "ۀ": "هٔ"})
_DIACRITICS = re.compile(r"[\u064B-\u065F\u0670]")


def normalise_category(value: object) -> str:
    """Map a released ``Category`` string (any case, spaces or underscores) to its canonical name.

    >>> normalise_category("FOODS")
    'Foods'
    >>> normalise_category("cuisine")
    Traceback (most recent call last):
    ...
    ValueError: unknown category 'cuisine'
    """
    key = re.sub(r"[^a-z]", "", str(value).lower())
    if key not in _CATEGORY_KEYS:
        raise ValueError(f"unknown category {value!r}")
    return _CATEGORY_KEYS[key]


def normalise_persian(text: str) -> str:
    """Normalise Persian text **for comparisons only** (never applied to prompts): Arabic yeh/kaf
    → Persian, Persian/Arabic-Indic digits → ASCII, ZWNJ and tatweel → space/none, diacritics
    removed, white space collapsed.

    >>> normalise_persian("كتاب\u200cهاي ۱۲")
    'کتاب های 12'
    """
    text = str(text).translate(_ARABIC_LETTERS).translate(_DIGITS)
    text = _DIACRITICS.sub("", text.replace("\u0640", "")).replace("\u200c", " ")
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Benchmark:
    """One loaded split: ``items`` (tidy, one row per story), where it came from, and whether the
    distractor rule labels are present.

    ``items`` columns: ``id``, ``category`` (canonical), ``category_raw``, ``level``, ``topic``,
    ``story``, ``options`` (list of 4), ``answer`` (0-based), ``split``, and ``rules`` (list of
    4 labels: ``correct``/R1–R6/UA) when ``has_rules``.
    """

    items: pd.DataFrame
    split: str
    source: str  # sample | released
    location: str
    has_rules: bool = False


def table1_column(statistic: str = "stories") -> dict[str, float]:
    """One column of the paper's Table 1 (``culturelab/reported/percul/table1.csv``: ``stories``
    or ``edition_pct``, the share of story tokens annotators changed) in canonical category order.

    >>> table1_column("edition_pct")["Music"]
    0.3
    """
    t1 = reported.load(SUBDIR, "table1")
    column = t1[t1["statistic"] == statistic].set_index("category")["value"]
    return {c: float(column[c]) for c in CATEGORIES}


def released_counts() -> dict[str, int]:
    """Stories per category in the release (the paper's Table 1), in canonical category order.

    >>> counts = released_counts()
    >>> counts["Foods"], sum(counts.values())
    (191, 592)
    """
    return {c: int(v) for c, v in table1_column("stories").items()}


def table1_mismatches(items: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """The categories whose number of stories differs from the paper's Table 1: category →
    (ours, Table 1). Empty for a copy of the release as the paper describes it.

    >>> table1_mismatches(load(data_source="sample").items)["Foods"]
    (4, 191)
    """
    counts = items["category"].value_counts().to_dict()
    return {c: (int(counts.get(c, 0)), n) for c, n in released_counts().items() if counts.get(c, 0) != n}


def find_split_file(folder: Path, split: str) -> Path | None:
    """The file holding ``split`` under ``folder`` (parquet, JSONL or CSV; searched recursively)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {list(SPLITS)}, not {split!r}")
    for pattern in (f"{split}*.parquet", f"{split}.jsonl", f"{split}.csv"):
        found = sorted(p for p in folder.rglob(pattern) if ".cache" not in p.parts)
        if found:
            return found[0]
    return None


def _read(path: Path) -> tuple[pd.DataFrame, int]:
    """A split file as a DataFrame and its number of header rows (for 1-based row numbers)."""
    if path.suffix == ".parquet":
        return pd.read_parquet(path), 0
    if path.suffix == ".jsonl":
        return pd.read_json(path, lines=True, dtype=False), 0
    return pd.read_csv(path, keep_default_na=False, dtype=str), 1


def _is_text(v: object) -> bool | str:
    return (isinstance(v, str) and bool(v.strip())) or "must be non-empty text"


def _answer_ok(v: object) -> bool | str:
    try:
        number = int(str(v).strip().translate(_DIGITS))
    except ValueError:
        return "must be an integer 1–4"
    return (number in (1, 2, 3, 4) and float(str(v).translate(_DIGITS)) == number) or "must be 1–4 (1-based)"


def validate_split(frame: pd.DataFrame, source: str, *, header_rows: int = 0) -> None:
    """Check one split's schema and values; raise :class:`DataError` (file, row, column)."""
    require_columns(frame, COLUMNS, source)
    checks = {"ID": _is_text, "Category": lambda v: bool(normalise_category(v)), "Story": _is_text,
              **{c: _is_text for c in CHOICE_COLUMNS}, "Correct Choice": _answer_ok}
    validate_rows(frame, source, checks, header_rows=header_rows)
    dup = frame["ID"].duplicated()
    if dup.any():
        pos = int(dup.to_numpy().argmax())
        raise DataError(f"{source}, row {pos + 1 + header_rows}, column 'ID': duplicate ID (got {frame['ID'].iloc[pos]!r})")
    norm = frame[CHOICE_COLUMNS].map(normalise_persian)
    same = norm.apply(lambda r: r.nunique() < 4, axis=1)
    if same.any():
        pos = int(same.to_numpy().argmax())
        raise DataError(f"{source}, row {pos + 1 + header_rows}, column 'Choice 1': the four options are not distinct "
                        f"(got {frame[CHOICE_COLUMNS].iloc[pos].tolist()!r})")


def _tidy(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    items = pd.DataFrame({
        "id": frame["ID"].astype(str),
        "category": frame["Category"].map(normalise_category),
        "category_raw": frame["Category"].astype(str),
        "topic": frame["Topic"].astype(str),
        "story": frame["Story"].astype(str),
        "options": frame[CHOICE_COLUMNS].astype(str).values.tolist(),
        "answer": frame["Correct Choice"].map(lambda v: int(str(v).strip().translate(_DIGITS)) - 1),
        "split": split,
    })
    items.insert(2, "level", items["category"].map(LEVEL))
    items["category"] = pd.Categorical(items["category"], categories=CATEGORIES, ordered=True)
    return items.reset_index(drop=True)


def load_rules(path: Path, items: pd.DataFrame) -> pd.Series:
    """Per-option rule labels from ``distractor_rules.csv``, aligned with ``items`` (a list of four
    labels per story). Every story needs all four options labelled, the correct one ``correct``.

    >>> bench = load(data_source="sample", rules=False)
    >>> load_rules(sources.sample_dir(SUBDIR) / "distractor_rules.csv", bench.items).iloc[0]
    ['correct', 'R1', 'R3', 'R6']
    """
    table = pd.read_csv(path, keep_default_na=False, dtype=str)
    known = set(items["id"])
    validate_rows(table, path.name, {
        "ID": lambda v: v in known or "unknown story ID",
        "Choice": lambda v: v.strip() in {"1", "2", "3", "4"} or "must be 1–4",
        "Rule": lambda v: v.strip() in {*RULES, "correct"} or f"must be one of {[*RULES, 'correct']}",
    })
    labels: dict[str, list[str | None]] = {i: [None] * 4 for i in items["id"]}
    for rid, choice, rule in zip(table["ID"], table["Choice"], table["Rule"]):
        labels[rid][int(choice) - 1] = rule.strip()
    for pos, (rid, answer) in enumerate(zip(items["id"], items["answer"])):
        lab = labels[rid]
        if None in lab or lab[answer] != "correct" or lab.count("correct") != 1:
            raise DataError(f"{path.name}: story {rid!r} (split row {pos + 1}) needs four labels with exactly the "
                            f"correct option (Choice {answer + 1}) labelled 'correct'; got {lab}")
    return pd.Series([labels[i] for i in items["id"]], index=items.index, dtype=object)


def resolve_folder(data_source: str = "auto", data_dir: str | os.PathLike | None = "") -> tuple[Path, str]:
    """Where the splits are and what they are: ``(folder, "released" | "sample")``.

    The local copy is ``data_dir`` if given, else ``$CULTURELAB_DATA/percul``, when it holds the
    splits; ``auto`` takes it, else our sample (but a ``data_dir`` given explicitly must hold the
    splits). ``local`` requires the local copy, ``download`` fetches the gated release, ``sample``
    is ours.

    >>> resolve_folder("sample")[1]
    'sample'
    """
    folder = Path(data_dir).expanduser() if data_dir else config.data_dir() / SUBDIR
    local = folder if folder.is_dir() and find_split_file(folder, SPLITS[0]) is not None else None
    what = f"PERCUL's splits (original_persian*.parquet from https://huggingface.co/datasets/{REPO_ID}, gated)"
    chosen = sources.resolve_source("local" if data_source == "auto" and data_dir else data_source, local,
                                    auto="sample", what=what, data_dir=folder)
    if chosen == "sample":
        return sources.sample_dir(SUBDIR), "sample"
    if chosen == "download":
        return sources.hf_snapshot(REPO_ID, allow_patterns=["*.parquet", "*.md"]), "released"
    return folder, "released"


def load(split: str = "original_persian", *, data_source: str = "auto", data_dir: str | os.PathLike | None = "",
         rules: bool = True, check_counts: bool = False) -> Benchmark:
    """Load and validate one split (see the module docstring for where it comes from).

    ``check_counts=True`` also requires the released sizes (Table 1 per category, 592 rows).

    >>> load("gpt_english_translation", data_source="sample").items["options"].iloc[0][0]
    'Aftabeh (ewer)'
    """
    folder, kind = resolve_folder(data_source, data_dir)
    path = find_split_file(folder, split)
    if path is None:
        raise FileNotFoundError(f"{folder}: no file for split {split!r} (expected {split}*.parquet, .jsonl or .csv)")
    frame, header = _read(path)
    shown = path.name if kind == "sample" else str(path)
    validate_split(frame, shown, header_rows=header)
    items = _tidy(frame, split)
    if check_counts:
        bad = table1_mismatches(items)
        if bad:
            raise DataError(f"{shown}: {len(items)} rows (released: {sum(released_counts().values())}); "
                            f"per-category (ours, Table 1) mismatches: {bad}")
    rules_file = folder / "distractor_rules.csv"
    has_rules = rules and rules_file.is_file()
    if has_rules:
        items["rules"] = load_rules(rules_file, items)
    return Benchmark(items, split, kind, str(path), has_rules)


def load_pair(*, data_source: str = "auto", data_dir: str | os.PathLike | None = "",
              rules: bool = True) -> tuple[Benchmark, Benchmark]:
    """Both splits, checked to hold the same story IDs with the same answers and categories.

    >>> fa, en = load_pair(data_source="sample")
    >>> bool((fa.items["id"] == en.items["id"]).all())
    True
    """
    fa = load(SPLITS[0], data_source=data_source, data_dir=data_dir, rules=rules)
    en = load(SPLITS[1], data_source=data_source, data_dir=data_dir, rules=rules)
    merged = fa.items[["id", "answer", "category"]].merge(en.items[["id", "answer", "category"]], on="id",
                                                          how="outer", suffixes=("_fa", "_en"), indicator=True)
    lonely = merged[merged["_merge"] != "both"]
    if len(lonely):
        raise DataError(f"{en.location}: {len(lonely)} story IDs are in only one split, e.g. {lonely['id'].iloc[0]!r}")
    differs = merged[(merged["answer_fa"] != merged["answer_en"]) | (merged["category_fa"] != merged["category_en"])]
    if len(differs):
        raise DataError(f"{en.location}: story {differs['id'].iloc[0]!r} has a different answer or category than in "
                        f"{SPLITS[0]}")
    return fa, en
