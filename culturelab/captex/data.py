"""CAPTEx (Yari & Koto, ACL 2025): cultural procedures, their MCQs and conversations.

The public dataset ``AmirHossein2002/CAPTex`` on the Hugging Face hub (paper footnote 1; CC BY-NC
4.0: non-commercial research only) has three CSV configs: ``Procedures.csv``, ``MCQs.csv`` and
``Conversations.csv``. :func:`load` reads them from a local folder (``<data_dir>/captex/`` or
``data_dir`` itself), else from the hub (:func:`culturelab.data.sources.hf_snapshot`: downloaded
once, then served from the cache), else — ``data_source="auto"`` only, and saying why in
``CaptexData.source_note`` — from **our sample** (:func:`culturelab.data.sources.sample_dir`, same
schema, written by us; see its README). :func:`where` tells which without loading anything.

Expected schema (column names are matched case-insensitively; common aliases accepted):

* ``Procedures.csv`` — one row per procedure *and language*: ``ID`` (optional; pairs the
  English and native versions — without it the k-th English and k-th native procedure of a
  country and category are paired), ``Country``, ``Category``, ``Language`` (``English`` or
  the native language, by name or ISO code), ``Title``, ``Steps`` (numbered lines
  ``1. …``, or a JSON list, or columns ``Step 1`` … ``Step 10``).
* ``MCQs.csv`` — ``ID`` (optional), ``Country``, ``Category``, ``Language``, ``Type``
  (SA/SN/AA/AN), ``Question``, ``Choices`` (lines ``A. …``, a JSON list, or columns
  ``A`` … ``D``), ``Answer`` (letter, 1–4, or the option text).
* ``Conversations.csv`` — ``ID`` (optional), ``Country``, ``Category``, ``Title``
  (optional), ``Conversation`` (four utterances ``Person A: …`` / ``Person B: …``, the last
  one ending in ``Next step: N``), optionally ``Choices`` and ``Answer`` for CB-MCQ (without
  them the conversations carry no options: :func:`culturelab.captex.construction.with_cb_options`
  builds them).

Every file is validated on the way in; a malformed value raises :class:`DataError` naming
the file, the row (1-based, header = row 1) and the column. Counts are checked against the
released sizes (``reported/captex/dataset.csv``: 700 procedures × 2 languages, 5,600 MCQs,
700 conversations) unless ``expect="sample"``.

>>> data = load(data_source="sample")
>>> data.data_source, data.procedures["country"].nunique(), sorted(data.procedures["lang_group"].unique())
('sample', 7, ['English', 'native'])
>>> normalise_category("Agricultural and Seasonal Procedures")
'Agricultural and Seasonal Practices'
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from culturelab import config, reported
from culturelab.data import sources
from culturelab.data.validate import DataError, require_columns, validate_rows

REPO_ID = "AmirHossein2002/CAPTex"
HUB_URL = f"https://huggingface.co/datasets/{REPO_ID}"
LICENSE = "CC BY-NC 4.0"
#: what :func:`culturelab.data.sources.hf_snapshot` fetches: the CSVs, or the hub's parquet conversion
HUB_PATTERNS = ["*.csv", "*/*.parquet", "**/*.parquet"]
FILES = {"procedures": "Procedures.csv", "mcqs": "MCQs.csv", "conversations": "Conversations.csv"}
SUBDIR = "captex"

#: country → (ISO code, native language), in the paper's order (Table 2)
COUNTRIES: dict[str, tuple[str, str]] = {
    "China": ("zh", "Chinese"), "Japan": ("ja", "Japanese"), "Iran": ("fa", "Persian"), "India": ("hi", "Hindi"),
    "Indonesia": ("id", "Indonesian"), "Pakistan": ("ur", "Urdu"), "Nigeria": ("ha", "Hausa"),
}
#: the ten categories, in the paper's order (§3.1)
CATEGORIES = [
    "Food and Cuisine", "Celebrations and Festivals", "Social Etiquette and Hospitality",
    "Craftsmanship and Artisan Skills", "Traditional Attire and Dress", "Agricultural and Seasonal Practices",
    "Religious and Spiritual Practices", "Life Milestones and Family Rites", "Sports, Games, and Competitions",
    "Environmental and Nature-Based Practices",
]
QUESTION_TYPES = ("SA", "SN", "AA", "AN")
MIN_STEPS, MAX_STEPS = 5, 10

_COUNTRY_ALIASES = {**{c.lower(): c for c in COUNTRIES}, **{v[0]: c for c, v in COUNTRIES.items()},
                    "persia": "Iran", "prc": "China", "pk": "Pakistan", "ng": "Nigeria", "in": "India",
                    "jp": "Japan", "cn": "China", "ir": "Iran"}
_LANGUAGE_ALIASES = {"english": "en", "en": "en", "eng": "en",
                     **{v[1].lower(): v[0] for v in COUNTRIES.values()}, **{v[0]: v[0] for v in COUNTRIES.values()},
                     "mandarin": "zh", "chinese (mandarin)": "zh", "farsi": "fa", "bahasa indonesia": "id"}
_COLUMN_ALIASES = {
    "id": ["id", "procedure_id", "proc_id", "pid"],
    "country": ["country", "region", "nation"],
    "category": ["category", "topic", "domain", "cultural_category"],
    "language": ["language", "lang", "language_code"],
    "title": ["title", "procedure_name", "procedure", "name", "procedure_title"],
    "steps": ["steps", "procedure_steps", "step_list", "text"],
    "type": ["type", "question_type", "qtype", "mcq_type"],
    "question": ["question", "prompt", "mcq"],
    "choices": ["choices", "options", "answers", "candidates"],
    "answer": ["answer", "label", "correct", "correct_answer", "answer_key", "gold"],
    "conversation": ["conversation", "dialogue", "dialog", "conversations"],
    "next_step": ["next_step", "next_step_number", "step_number"],
}


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", str(text).strip().lower()).strip("_")


def _category_key(text: str) -> str:
    text = re.sub(r"^\s*\(?\d+[.)]?\s*", "", str(text))  # "6. Agricultural …" → "Agricultural …"
    text = text.lower().replace("&", " and ")
    text = re.sub(r"\b(procedures|practices|practice|procedure)\b", "practices", text)
    return " ".join(re.findall(r"[a-z]+", text))


_CATEGORY_KEYS = {_category_key(c): c for c in CATEGORIES}


def normalise_country(value: Any) -> str:
    """The canonical country name (``Iran``, …) for a name, an alias or a language code.

    >>> normalise_country(" iran "), normalise_country("ja")
    ('Iran', 'Japan')
    """
    key = str(value).strip().lower()
    if key not in _COUNTRY_ALIASES:
        raise ValueError(f"unknown country (expected one of {', '.join(COUNTRIES)})")
    return _COUNTRY_ALIASES[key]


def normalise_category(value: Any) -> str:
    """The canonical category name; accepts the paper's variants ("… Procedures" in Table 6,
    missing Oxford comma, "&", list numbers) and close misspellings (rapidfuzz ≥ 90).

    >>> normalise_category("sports, games and competitions")
    'Sports, Games, and Competitions'
    """
    key = _category_key(value)
    if key in _CATEGORY_KEYS:
        return _CATEGORY_KEYS[key]
    from rapidfuzz import fuzz, process

    best = process.extractOne(key, list(_CATEGORY_KEYS), scorer=fuzz.token_sort_ratio)
    if best and best[1] >= 90:
        return _CATEGORY_KEYS[best[0]]
    raise ValueError(f"unknown category (expected one of: {'; '.join(CATEGORIES)})")


def normalise_language(value: Any, country: str | None = None) -> str:
    """ISO code of a language given by name or code; ``native`` resolves through ``country``.

    >>> normalise_language("Persian"), normalise_language("English"), normalise_language("native", "Nigeria")
    ('fa', 'en', 'ha')
    """
    key = str(value).strip().lower()
    if key in {"native", "original", "local"} and country in COUNTRIES:
        return COUNTRIES[country][0]
    if key not in _LANGUAGE_ALIASES:
        raise ValueError("unknown language (expected English or the country's native language)")
    return _LANGUAGE_ALIASES[key]


# ---------------------------------------------------------------------------- cell parsers
_NUMBERING = re.compile(r"^\s*(?:[-•*]\s*)?(?:step\s*)?[(（]?\d+\s*[.)．:：、)）\-]\s*", re.I)


def parse_steps(cell: Any) -> list[str]:
    """The ordered steps in one cell: a JSON/Python list, or one step per line with optional
    numbering (``1.``, ``Step 2:``, ``３．``, Persian/Devanagari digits).

    >>> parse_steps("1. Wash the rice.\\n2. Soak it.")
    ['Wash the rice.', 'Soak it.']
    >>> parse_steps('["a", "b"]')
    ['a', 'b']
    """
    if isinstance(cell, (list, tuple)):
        return [str(s).strip() for s in cell if str(s).strip()]
    text = str(cell).strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError:
            items = ast.literal_eval(text)
        return [str(s).strip() for s in items if str(s).strip()]
    return [s for s in (_NUMBERING.sub("", line).strip() for line in text.splitlines()) if s]


_CHOICE_LINE = re.compile(r"^\s*\(?([A-Da-d])\s*[.):：]\s*(.*)$")


def parse_choices(cell: Any) -> list[str]:
    """The options of one MCQ: lines ``A. …`` (continuation lines are joined), or a list.

    >>> parse_choices("A. Boil\\nB. Soak\\nC. Wash\\nD. Eat")
    ['Boil', 'Soak', 'Wash', 'Eat']
    """
    if isinstance(cell, (list, tuple)):
        return [str(s).strip() for s in cell]
    text = str(cell).strip()
    if text.startswith("["):
        try:
            return [str(s).strip() for s in json.loads(text)]
        except json.JSONDecodeError:
            return [str(s).strip() for s in ast.literal_eval(text)]
    options: list[str] = []
    for line in text.splitlines():
        m = _CHOICE_LINE.match(line)
        if m and "ABCD".index(m.group(1).upper()) == len(options):
            options.append(m.group(2).strip())
        elif options and line.strip():
            options[-1] = f"{options[-1]} {line.strip()}"
    return options


def parse_answer(cell: Any, options: Sequence[str]) -> int:
    """0-based index of the correct option from a letter (``C``, ``C.``, ``(C)``), a number
    1–4, or the option text itself.

    >>> parse_answer("C", ["a", "b", "c", "d"]), parse_answer(2, ["a", "b", "c", "d"]), parse_answer("d", ["a", "b", "c", "d"])
    (2, 1, 3)
    """
    text = str(cell).strip()
    stripped = text.strip("().: ")
    if len(stripped) == 1 and stripped.upper() in "ABCD"[: len(options)] and stripped.isupper():
        return "ABCD".index(stripped.upper())
    if stripped.isdigit() and 1 <= int(stripped) <= len(options):
        return int(stripped) - 1
    norm = [o.strip().lower() for o in options]
    if text.lower() in norm:
        return norm.index(text.lower())
    if len(stripped) == 1 and stripped.upper() in "ABCD"[: len(options)]:
        return "ABCD".index(stripped.upper())
    raise ValueError("answer must be a letter A–D, a number 1–4 or the text of one option")


_SPEAKER = re.compile(r"(?:^|\n|\s)\**\s*(Person\s+[AB])\s*\**\s*:\s*\**", re.I)
_NEXT_STEP = re.compile(r"\**\s*Next\s+step\s*\**\s*[:：]?\s*\(?\s*(?:step\s*)?(\d+)\s*\)?\.?", re.I)


def split_conversation(cell: Any) -> tuple[list[str], int | None]:
    """The utterances (speaker labels removed) and the ``Next step: N`` number (or ``None``).

    >>> split_conversation("Person A: Hi?\\nPerson B: Yes.\\nPerson A: Next?\\nPerson B: Boil it. Next step: 3.")
    (['Hi?', 'Yes.', 'Next?', 'Boil it.'], 3)
    """
    text = str(cell).replace("\r\n", "\n").strip()
    found = list(_NEXT_STEP.finditer(text))
    next_step = int(found[-1].group(1)) if found else None
    if found:
        last = found[-1]
        text = (text[: last.start()] + text[last.end():]).strip()
    marks = list(_SPEAKER.finditer(text))
    utterances = [text[m.end(): (marks[i + 1].start() if i + 1 < len(marks) else len(text))].strip()
                  for i, m in enumerate(marks)]
    return utterances, next_step


# ---------------------------------------------------------------------------- reading files
def _read_table(path: Path) -> pd.DataFrame:
    if path.suffix == ".parquet" or path.is_dir():
        files = sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
        frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        return frame.astype(str)
    return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")


def _canonical_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Rename aliased columns to the canonical names; collect ``Step N`` / ``A``–``D`` columns."""
    keys = {c: _key(c) for c in frame.columns}
    rename = {}
    for canon, aliases in _COLUMN_ALIASES.items():
        for col, k in keys.items():
            if k in aliases and canon not in rename.values() and col not in rename:
                rename[col] = canon
                break
    out = frame.rename(columns=rename)
    step_cols = sorted([c for c, k in keys.items() if re.fullmatch(r"step_?\d+", k)],
                       key=lambda c: int(re.findall(r"\d+", keys[c])[0]))
    if "steps" not in out.columns and step_cols:
        out["steps"] = [[s.strip() for s in row if str(s).strip()] for row in frame[step_cols].to_numpy().tolist()]
    letter_cols = [c for c, k in keys.items() if k in {"a", "b", "c", "d", "option_a", "option_b", "option_c",
                                                       "option_d", "choice_a", "choice_b", "choice_c", "choice_d"}]
    if "choices" not in out.columns and len(letter_cols) == 4:
        out["choices"] = [list(map(str, r)) for r in frame[letter_cols].to_numpy().tolist()]
    return out


def _parse(frame: pd.DataFrame, name: str, column: str, parse: Callable[..., Any],
           check: Callable[[Any], bool | str] | None = None, *, also: str | None = None) -> list[Any]:
    """Every cell of ``column`` parsed once (``parse(cell)``, or ``parse(cell, other)`` with the
    same row's ``also`` column) and checked by :func:`~culturelab.data.validate.validate_rows`:
    a ``ValueError`` or a failed ``check`` (``True`` or a message) raises :class:`DataError`
    naming the file, the row and the column.

    >>> _parse(pd.DataFrame({"n": ["1", "x"]}), "f.csv", "n", int)
    Traceback (most recent call last):
    ...
    culturelab.data.validate.DataError: f.csv, row 3, column 'n': invalid literal for int() with base 10: 'x' (got 'x')
    """
    parsed: list[Any] = []
    others = iter(frame[also].tolist()) if also else None

    def verdict(cell: Any) -> bool | str:
        try:
            value = parse(cell, next(others)) if others else parse(cell)
        except ValueError as err:
            return str(err)
        parsed.append(value)
        return True if check is None else check(value)

    validate_rows(frame, name, {column: verdict})
    return parsed


def _released(what: str) -> int:
    """A size of the released CAPTEx, as the paper states it (``reported/captex/dataset.csv``).

    >>> _released("mcqs")
    5600
    """
    sizes = reported.load("captex", "dataset").set_index("measure")["value"]
    return int(sizes[what])


@dataclass
class CaptexData:
    """The three CAPTEx tables, tidy, plus where they came from: ``data_source`` is ``sample``
    or ``released`` (what :meth:`culturelab.runner.Run.set_data_source` stamps)."""

    procedures: pd.DataFrame
    mcqs: pd.DataFrame
    conversations: pd.DataFrame
    data_source: str
    location: str
    notes: list[str] = field(default_factory=list)
    #: where the data came from, in words (a local folder, the hub, or why our sample was used)
    source_note: str = ""

    def subset(self, *, countries: Sequence[str] | None = None, categories: Sequence[str] | None = None,
               procedure_ids: Sequence[str] | None = None) -> CaptexData:
        """The same data restricted to some countries / categories / procedures.

        >>> d = load(data_source="sample").subset(countries=["Iran"])
        >>> sorted(d.procedures["country"].unique()), sorted(d.conversations["country"].unique())
        (['Iran'], ['Iran'])
        """
        keep = pd.Series(True, index=self.procedures.index)
        if countries:
            keep &= self.procedures["country"].isin([normalise_country(c) for c in countries])
        if categories:
            keep &= self.procedures["category"].isin([normalise_category(c) for c in categories])
        if procedure_ids is not None:
            keep &= self.procedures["procedure_id"].isin(list(procedure_ids))
        ids = set(self.procedures.loc[keep, "procedure_id"])
        return replace(self, procedures=self.procedures[keep].reset_index(drop=True),
                       mcqs=self.mcqs[self.mcqs["procedure_id"].isin(ids)].reset_index(drop=True),
                       conversations=self.conversations[self.conversations["procedure_id"].isin(ids)].reset_index(
                           drop=True),
                       notes=list(self.notes))

    def summary(self) -> pd.DataFrame:
        """Counts per country: procedures, texts, MCQs, conversations, mean steps.

        >>> int(load(data_source="sample").summary()["procedures"].sum())
        105
        """
        p = self.procedures
        rows = []
        for country in [c for c in COUNTRIES if c in set(p["country"])]:
            part = p[p["country"] == country]
            rows.append({"country": country, "language": COUNTRIES[country][0],
                         "procedures": part["procedure_id"].nunique(), "texts": len(part),
                         "mean_steps": round(float(part.drop_duplicates("procedure_id")["n_steps"].mean()), 2),
                         "mcqs": int((self.mcqs["country"] == country).sum()),
                         "conversations": int((self.conversations["country"] == country).sum())})
        return pd.DataFrame(rows)

    def counts(self) -> dict[str, int]:
        """The sizes this copy holds, keyed as the paper's release (:data:`culturelab.captex.protocol.RELEASE`):
        procedures, MCQs, conversations — what :meth:`culturelab.runner.Run.set_data_source` compares.

        >>> load(data_source="sample").subset(countries=["Iran"]).counts()
        {'procedures': 15, 'mcqs': 120, 'conversations': 15}
        """
        return {"procedures": int(self.procedures["procedure_id"].nunique()), "mcqs": len(self.mcqs),
                "conversations": len(self.conversations)}

    def sizes(self) -> pd.DataFrame:
        """The §3.1/§3.3 sizes in the shape of ``reported/captex/dataset.csv`` (``measure``,
        ``value``); ``procedures_per_country`` is the smallest country's count.

        >>> load(data_source="sample").sizes().set_index("measure")["value"].to_dict()
        {'procedures': 105, 'procedures_per_country': 15, 'mcqs': 840, 'conversations': 105}
        """
        per_country = self.procedures.groupby("country", observed=True)["procedure_id"].nunique()
        return pd.DataFrame({"measure": ["procedures", "procedures_per_country", "mcqs", "conversations"],
                             "value": [self.procedures["procedure_id"].nunique(),
                                       int(per_country.min()) if len(per_country) else 0,
                                       len(self.mcqs), len(self.conversations)]})


def _version_language(value: Any, country: str) -> str:
    """ISO code of a procedure version's language, which must be English or ``country``'s own."""
    code = normalise_language(value, country)
    if code not in {"en", COUNTRIES[country][0]}:
        raise ValueError(f"{value!r} is neither English nor the native language of {country} "
                         f"({COUNTRIES[country][1]})")
    return code


def read_procedures(path: str | os.PathLike, *, expect: str = "released") -> pd.DataFrame:
    """``Procedures.csv`` → one row per (procedure, language): ``procedure_id``, ``country``,
    ``category``, ``language`` (ISO), ``lang_group`` (``English``/``native``), ``title``,
    ``steps`` (list), ``n_steps``, ``row`` (line in the file)."""
    path = Path(path)
    name = path.name
    frame = _canonical_columns(_read_table(path))
    require_columns(frame, ["country", "category", "language", "title", "steps"], name)
    frame["country"] = _parse(frame, name, "country", normalise_country)
    frame["category"] = _parse(frame, name, "category", normalise_category)
    validate_rows(frame, name, {"title": lambda v: bool(str(v).strip()) or "empty title"})
    frame["steps"] = _parse(frame, name, "steps", parse_steps, lambda steps: MIN_STEPS <= len(steps) <= MAX_STEPS
                            or f"a procedure needs {MIN_STEPS}–{MAX_STEPS} steps, found {len(steps)}")
    frame["language"] = _parse(frame, name, "language", _version_language, also="country")
    frame["lang_group"] = ["English" if v == "en" else "native" for v in frame["language"]]
    frame["n_steps"] = frame["steps"].map(len)
    frame["title"] = frame["title"].str.strip()
    frame["row"] = range(2, len(frame) + 2)
    if "id" in frame.columns and frame["id"].astype(str).str.strip().ne("").all():
        frame["procedure_id"] = frame["id"].astype(str).str.strip()
    else:  # pair the k-th English and the k-th native text of each (country, category)
        frame["procedure_id"] = [f"{c}-{_key(cat)}-{k + 1:02d}" for c, cat, k in zip(
            frame["country"], frame["category"], frame.groupby(["country", "category", "lang_group"]).cumcount())]
    for pid, part in frame.groupby("procedure_id", sort=False):
        groups = part["lang_group"].tolist()
        last = part.iloc[-1]
        if sorted(groups) != ["English", "native"]:
            raise DataError(f"{name}, row {last['row']}, column 'language': procedure {pid!r} must have exactly one "
                            f"English and one native version, found {groups}")
        if part["n_steps"].nunique() != 1:
            raise DataError(f"{name}, row {last['row']}, column 'steps': procedure {pid!r} has "
                            f"{part['n_steps'].tolist()} steps in {groups}; the versions must have equal step counts")
        if part["country"].nunique() != 1 or part["category"].nunique() != 1:
            raise DataError(f"{name}, row {last['row']}, column 'country': the versions of procedure {pid!r} "
                            "disagree on country or category")
    if expect == "released":
        _expect_count(name, "procedures", frame["procedure_id"].nunique(), _released("procedures"))
        per_country = frame.drop_duplicates("procedure_id").groupby("country").size()
        wanted = _released("procedures_per_country")
        if (per_country != wanted).any() or len(per_country) != len(COUNTRIES):
            raise DataError(f"{name}: expected {wanted} procedures for each of the 7 countries, "
                            f"found {per_country.to_dict()}; pass expect='sample' for a partial copy")
    cols = ["procedure_id", "country", "category", "language", "lang_group", "title", "steps", "n_steps", "row"]
    return frame[cols].reset_index(drop=True)


def _expect_count(name: str, what: str, found: int, wanted: int) -> None:
    if found != wanted:
        raise DataError(f"{name}: expected {wanted:,} {what} in the released CAPTEx, found {found:,}; "
                        "pass expect='sample' to load a partial or modified copy")


def _link_title(question: str, candidates: pd.DataFrame) -> str | None:
    """The procedure a question is about: the longest candidate title quoted in it."""
    hits = [(len(t), pid) for t, pid in zip(candidates["title"], candidates["procedure_id"]) if t and t in question]
    return max(hits)[1] if hits else None


def read_mcqs(path: str | os.PathLike, procedures: pd.DataFrame, *, expect: str = "released") -> pd.DataFrame:
    """``MCQs.csv`` → ``procedure_id``, ``country``, ``category``, ``language``, ``lang_group``,
    ``qtype``, ``question``, ``options`` (4), ``answer`` (0-based), ``row``. Questions are
    linked to their procedure by ``ID`` or, without it, by the procedure title they quote."""
    path = Path(path)
    name = path.name
    frame = _canonical_columns(_read_table(path))
    require_columns(frame, ["country", "language", "type", "question", "choices", "answer"], name)
    frame["country"] = _parse(frame, name, "country", normalise_country)
    validate_rows(frame, name, {
        "type": lambda v: str(v).strip().upper() in QUESTION_TYPES or f"type must be one of {QUESTION_TYPES}",
        "question": lambda v: bool(str(v).strip()) or "empty question",
    })
    frame["options"] = _parse(frame, name, "choices", parse_choices, lambda options: (
        len(options) == 4 and all(options)) or f"an MCQ needs 4 non-empty options, found {len(options)}")
    frame["language"] = _parse(frame, name, "language", normalise_language, also="country")
    frame["answer"] = _parse(frame, name, "answer", parse_answer, also="options")
    frame["lang_group"] = ["English" if v == "en" else "native" for v in frame["language"]]
    frame["qtype"] = frame["type"].str.strip().str.upper()
    frame["row"] = range(2, len(frame) + 2)
    if "category" in frame.columns:
        frame["category"] = _parse(frame, name, "category", normalise_category)
    known = set(procedures["procedure_id"])
    if "id" in frame.columns and frame["id"].astype(str).str.strip().isin(known).all():
        frame["procedure_id"] = frame["id"].astype(str).str.strip()
    else:
        by_key = {k: g for k, g in procedures.groupby(["country", "language"])}
        frame["procedure_id"] = [
            _link_title(q, by_key.get((c, lang), procedures.iloc[:0]))
            for q, c, lang in zip(frame["question"], frame["country"], frame["language"])]
    meta = procedures.drop_duplicates("procedure_id").set_index("procedure_id")
    if "category" not in frame.columns:
        frame["category"] = frame["procedure_id"].map(meta["category"])
    if expect == "released":
        _expect_count(name, "MCQs", len(frame), _released("mcqs"))
    cols = ["procedure_id", "country", "category", "language", "lang_group", "qtype", "question", "options",
            "answer", "row"]
    return frame[cols].reset_index(drop=True)


def read_conversations(path: str | os.PathLike, procedures: pd.DataFrame, *,
                       expect: str = "released") -> pd.DataFrame:
    """``Conversations.csv`` → ``procedure_id``, ``country``, ``category``, ``title``,
    ``utterances`` (4), ``next_step``, ``context`` (utterances 1–3 with speakers),
    ``reference`` (utterance 4 without the ``Next step`` marker), ``options``/``answer`` when
    the file has CB-MCQ choices (else ``None`` and ``-1``, ``options_source = "none"``; see
    :func:`culturelab.captex.construction.with_cb_options`)."""
    path = Path(path)
    name = path.name
    frame = _canonical_columns(_read_table(path))
    require_columns(frame, ["country", "conversation"], name)
    frame["country"] = _parse(frame, name, "country", normalise_country)
    parts = _parse(frame, name, "conversation", split_conversation, lambda parsed: len(parsed[0]) == 4
                   or f"a conversation needs exactly 4 utterances (Person A/B), found {len(parsed[0])}")
    if "category" in frame.columns:
        frame["category"] = _parse(frame, name, "category", normalise_category)
    in_file = frame["next_step"].tolist() if "next_step" in frame.columns else [None] * len(frame)
    frame["utterances"] = [p[0] for p in parts]
    frame["next_step"] = [p[1] if p[1] is not None else (int(f) if str(f).strip().isdigit() else None)
                          for p, f in zip(parts, in_file)]
    english = procedures[procedures["lang_group"] == "English"]
    known = set(english["procedure_id"])
    if "id" in frame.columns and frame["id"].astype(str).str.strip().isin(known).all():
        frame["procedure_id"] = frame["id"].astype(str).str.strip()
    else:  # link through the title quoted in utterance 1 ('Have you heard about the "X" from "Y"?')
        by_country = {k: g for k, g in english.groupby("country")}
        frame["procedure_id"] = [_link_title(u[0] if "title" not in frame.columns else f"{t} {u[0]}",
                                             by_country.get(c, english.iloc[:0]))
                                 for u, c, t in zip(frame["utterances"], frame["country"],
                                                    frame.get("title", frame["country"]))]
    meta = english.set_index("procedure_id")
    frame["title"] = frame["procedure_id"].map(meta["title"]).fillna(frame.get("title", ""))
    if "category" not in frame.columns:
        frame["category"] = frame["procedure_id"].map(meta["category"])
    for pos, (pid, step) in enumerate(zip(frame["procedure_id"], frame["next_step"])):
        if step is None or pd.isna(step):
            raise DataError(f"{name}, row {pos + 2}, column 'conversation': no 'Next step: N' marker in the last "
                            "utterance")
        if pid in meta.index and not 1 <= step <= int(meta.loc[pid, "n_steps"]):
            raise DataError(f"{name}, row {pos + 2}, column 'conversation': 'Next step: {step}' is outside the "
                            f"{int(meta.loc[pid, 'n_steps'])} steps of procedure {pid!r}")
    frame["next_step"] = frame["next_step"].astype(int)
    frame["context"] = ["\n".join(f"Person {'AB'[i % 2]}: {u}" for i, u in enumerate(utts[:3]))
                        for utts in frame["utterances"]]
    frame["reference"] = [utts[3] for utts in frame["utterances"]]
    if "choices" in frame.columns and "answer" in frame.columns:
        frame["options"] = _parse(frame, name, "choices", parse_choices)
        frame["answer"] = _parse(frame, name, "answer", parse_answer, also="options")
        frame["options_source"] = "file"
    else:
        frame["options"], frame["answer"], frame["options_source"] = None, -1, "none"
    frame["row"] = range(2, len(frame) + 2)
    if expect == "released":
        _expect_count(name, "conversations", len(frame), _released("conversations"))
    cols = ["procedure_id", "country", "category", "title", "utterances", "next_step", "context", "reference",
            "options", "answer", "options_source", "row"]
    return frame[cols].reset_index(drop=True)


# ---------------------------------------------------------------------------- entry point
def find_local(data_dir: str | os.PathLike | None = "") -> Path | None:
    """A folder holding the three CSVs: ``data_dir`` itself or ``<data_dir>/captex`` (``""``:
    ``$CULTURELAB_DATA``); ``None`` when there is none.

    >>> find_local(sources.sample_dir(SUBDIR)) == sources.sample_dir(SUBDIR)
    True
    """
    root = config.data_dir(data_dir) if data_dir or os.environ.get("CULTURELAB_DATA") else None
    if root is None:
        return None
    for folder in (Path(root), Path(root) / SUBDIR):
        if all((folder / f).exists() or (folder / Path(f).stem).is_dir() for f in FILES.values()):
            return folder
    return None


def _file(folder: Path, filename: str) -> Path:
    path = folder / filename
    return path if path.exists() else folder / Path(filename).stem  # parquet config folder


def has_cb_options(folder: str | os.PathLike) -> bool:
    """Whether the ``Conversations.csv`` in ``folder`` carries CB-MCQ options (``Choices`` and
    ``Answer`` columns, or their aliases), read from its header only: without them
    :func:`culturelab.captex.construction.with_cb_options` builds the options.

    >>> has_cb_options(sources.sample_dir(SUBDIR))
    False
    """
    path = _file(Path(folder), FILES["conversations"])
    header = _read_table(path).iloc[:0] if path.is_dir() or path.suffix == ".parquet" else pd.read_csv(
        path, dtype=str, nrows=0, encoding="utf-8-sig")
    columns = _canonical_columns(header).columns
    return "choices" in columns and "answer" in columns


def where(data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> tuple[str, Path | None, str]:
    """Where :func:`load` will read CAPTEx from, found without loading or downloading anything:
    ``(kind, folder, note)`` with ``kind`` one of ``local`` (a copy under ``data_dir``, ``""``
    meaning ``$CULTURELAB_DATA``), ``cached`` (the hub release downloaded before), ``download``
    (the hub release, to be downloaded), ``sample`` (ours: asked for, or ``auto`` with no copy and
    no way to download one — the note says why) or ``missing`` (the note says what to do).

    >>> where(data_source="sample")[0]
    'sample'
    >>> import unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"HF_HUB_OFFLINE": "1", "CULTURELAB_DATA": "/nonexistent"}):
    ...     kind, _, note = where(data_source="auto")
    >>> kind, note[:40]
    ('sample', 'offline (HF_HUB_OFFLINE is set): the pub')
    """
    if data_source not in sources.DATA_SOURCES:
        raise ValueError(f"data_source must be one of {', '.join(sources.DATA_SOURCES)}, not {data_source!r}")
    if data_source == "sample":
        return "sample", sources.sample_dir(SUBDIR), ""
    local = find_local(data_dir) if data_source != "download" else None
    if local is not None:
        return "local", local, f"local copy at {local}"
    if data_source == "local" or (data_source == "auto" and data_dir):
        return "missing", None, (f"no local copy of CAPTEx ({', '.join(FILES.values())}, or a {SUBDIR}/ folder of "
                                 f"them) under {config.data_dir(data_dir)}: put the release ({HUB_URL}) there, "
                                 "or use data_source 'download' or 'sample'")
    cached = sources.hf_cached(REPO_ID, allow_patterns=HUB_PATTERNS)
    if cached is not None:
        return "cached", cached, f"the hub release {REPO_ID} ({LICENSE}), cached at {cached}"
    if sources.hub_offline():
        why = f"offline (HF_HUB_OFFLINE is set): the public release {REPO_ID} cannot be downloaded"
        if data_source == "auto":
            return "sample", sources.sample_dir(SUBDIR), f"{why}; `auto` uses our sample"
        return "missing", None, f"{why}; unset HF_HUB_OFFLINE or put a copy under data_dir"
    return "download", None, f"the hub release {REPO_ID} ({LICENSE}), downloaded from {HUB_URL}"


def load(data_dir: str | os.PathLike | None = "", *, data_source: str = "auto", expect: str = "auto") -> CaptexData:
    """Load CAPTEx.

    ``data_source`` (:func:`where`): ``auto`` (the local copy under ``data_dir`` — ``""`` means
    ``$CULTURELAB_DATA``; a ``data_dir`` given explicitly must hold the files — else the Hugging
    Face release ``AmirHossein2002/CAPTex``, downloaded once and cached, else our sample, with
    ``source_note`` saying why), ``local`` (must exist), ``download`` (the hub release, or an
    error saying why not), ``sample``. ``expect``: ``released`` checks the released
    counts, ``sample`` only the schema, ``auto`` picks by source. Conversations without CB-MCQ
    options in the file keep ``options = None`` (see
    :func:`culturelab.captex.construction.with_cb_options`).

    >>> load(data_source="sample").location == str(sources.sample_dir("captex"))
    True
    """
    if expect not in {"auto", "released", "sample"}:
        raise ValueError(f"expect must be auto, released or sample, not {expect!r}")
    kind, folder, note = where(data_dir, data_source)
    if kind == "missing" and data_source != "download":
        raise FileNotFoundError(note)
    if folder is None or kind == "cached":  # the hub release (hf_snapshot: cached, or its error if offline)
        try:
            folder = sources.hf_snapshot(REPO_ID, allow_patterns=HUB_PATTERNS)
        except ConnectionError as err:
            if data_source != "auto":
                raise
            kind, folder = "sample", sources.sample_dir(SUBDIR)
            note = f"the public release {REPO_ID} could not be downloaded ({err}); `auto` uses our sample"
    released = "sample" if kind == "sample" else "released"
    expect = released if expect == "auto" else expect
    procedures = read_procedures(_file(folder, FILES["procedures"]), expect=expect)
    mcqs = read_mcqs(_file(folder, FILES["mcqs"]), procedures, expect=expect)
    conversations = read_conversations(_file(folder, FILES["conversations"]), procedures, expect=expect)
    notes = []
    unlinked = int(mcqs["procedure_id"].isna().sum())
    if unlinked:
        notes.append(f"{unlinked} MCQs could not be linked to a procedure (no ID column and no quoted title)")
    return CaptexData(procedures, mcqs, conversations, released, str(folder), notes, note)
