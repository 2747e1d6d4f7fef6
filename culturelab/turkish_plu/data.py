"""Turkish PLU (Uzunoğlu & Şahin, IJCNLP-AACL 2023): procedural tasks on Turkish wikiHow.

Every file is read through a :class:`Release`, which speaks the project's data-source vocabulary
(:data:`culturelab.data.sources.DATA_SOURCES`): ``data_dir = ""`` means ``$CULTURELAB_DATA``;
``data_source`` ``local`` reads ``<data_dir>/turkish_plu/<folder>/<file>`` (the layout of
``shared/data/turkish_plu``: ``mc/``, ``linking/``, ``corpus/``), ``download`` fetches the same
file once from GitHub ``GGLAB-KU/turkish-plu`` at a pinned commit, SHA-256 checked
(:data:`FILES`), and ``auto`` takes each file's local copy, else its download. The summarization
set is only on the Hugging Face hub (:data:`HF_SUMMARIZATION`): :meth:`Release.summarization`
reads a local copy or downloads it, and ``sample`` gives pairs built from the release's one full
tutorial, else the pairs written by us (:func:`sample_pairs`). The full train splits of the
multiple-choice tasks are only on the hub too (:data:`HF_MC`, :func:`load_mc_train`).

Tables returned (one row per item, validated on the way in — a malformed value raises
:class:`~culturelab.data.DataError` naming the file, the row and the column; CSV rows count
the header as row 1 and a quoted multi-line record as one row):

* :meth:`Release.mc` — the four multiple-choice tasks (``gi``, ``si``, ``so``, ``nep``):
  ``id, task, split, row, goal, context, prev_step, options, label, n_options, origin,
  category``. ``goal`` is the item's own goal title (GI: the gold option); ``context`` is what
  the model reads (GI: the step, SI/SO: the goal, NEP: the previous step); ``options`` has 4
  strings (2 for step ordering, whose ``xxx`` dummies are dropped); ``origin`` is
  ``original`` when the goal is a title of the original Turkish corpus, else ``translated``.
* :meth:`Release.corpus` — the original-Turkish corpus, one row per *method*: ``tutorial,
  category, category_tr, method, steps, n_steps, is_ordered``.
* :meth:`Release.linking` — step → goal pairs with the reconstructed train/test split and origin.
* :meth:`Release.goal_negatives` — goal-inference negatives of the original corpus with cosines.

>>> TASKS["nep"], FILES["nep-test"].local
('next-event-prediction', 'mc/next-event-prediction-test.csv')
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from culturelab import config
from culturelab.data.sources import Remote, download, hf_snapshot, resolve_source, sample_dir
from culturelab.data.validate import DataError, require_columns, validate_rows

SUBDIR = "turkish_plu"
#: task code → the file stem used by the release
TASKS = {"gi": "goal-inference", "si": "step-inference", "so": "step-ordering", "nep": "next-event-prediction"}
TASK_NAMES = {"gi": "Goal Inference", "si": "Step Inference", "so": "Step Ordering", "nep": "Next Event Prediction"}
SPLITS = ("val", "test")
#: where fine-tuned baselines take their training items: the released validation split, or the hub's train split
FINETUNE_SPLITS = ("val", "train")
#: how a fine-tuned model reads an option: the paper's SWAG pairs, or our Cetvel prompts (:mod:`~culturelab.turkish_plu.finetune`)
FINETUNE_INPUTS = ("swag", "prompt")
#: Turkish breadcrumb label (``category[1]``) → the paper's abbreviation (Table 3)
CATEGORIES = {"Araba ve Diğer Araçlar": "C&OV", "Bilgisayar ve Elektronik Cihazlar": "C&E",
              "Bilgisayar ve Elektronik": "C&E", "Sağlık": "HE", "Hobi ve Beceriler": "H&C",
              "Ev ve Bahçe": "H&G", "Evcil ve Yabani Hayvanlar": "P&A"}
CATEGORY_ORDER = ["C&E", "HE", "H&G", "H&C", "P&A", "C&OV"]

GITHUB = "https://raw.githubusercontent.com/GGLAB-KU/turkish-plu"
FINAL, INIT = "7747052f9e383e6964e1b57bcc4969b2b561a5df", "83bd26d41705638672da691e569b083de240b99e"


@dataclass(frozen=True)
class ReleasedFile:
    """One released file: its place under ``<data_dir>/turkish_plu``, its path in the GitHub
    repository at ``commit``, and its SHA-256 (pinned from the copy in ``shared/data``)."""

    local: str
    repo_path: str
    commit: str
    sha256: str

    def remote(self, base: str | None = None) -> Remote:
        """Where to download it (``base`` replaces the GitHub raw URL, e.g. for a mirror)."""
        root = (base or os.environ.get("CULTURELAB_TURKISH_PLU_MIRROR") or GITHUB).rstrip("/")
        return Remote(f"{root}/{self.commit}/{self.repo_path}", self.sha256, name=Path(self.local).name)


def _mc(task: str, split: str, sha: str) -> ReleasedFile:
    stem = TASKS[task]
    return ReleasedFile(f"mc/{stem}-{split}.csv", f"tasks/{stem}/data/{stem}-{split}.csv", FINAL, sha)


#: every file the loaders read, by key
FILES: dict[str, ReleasedFile] = {
    "gi-val": _mc("gi", "val", "545e638860254b433a6b12733d6ba247ab87ba9f4ba6189e2a5624ef9cb4573e"),
    "gi-test": _mc("gi", "test", "ef8edffae2ff15be521a7319837d4c99408e8dcba7a49c3cded72cde01f4c9be"),
    "si-val": _mc("si", "val", "e745cc58d7c580ff95d28366db4dded40e9e65686d00bb36fa73e491f4416e1c"),
    "si-test": _mc("si", "test", "844444a4ed0b45fb982e225993618897272d754400b973dfa0c88e62b3c5c89b"),
    "so-val": _mc("so", "val", "a810fa54c553b6b0076180391593def877c15fb28dd873a931aeb2b9c1546a79"),
    "so-test": _mc("so", "test", "7048a3a2bb7ac6176e9635eb6b699934ae43a822b18c24b1848d16513741cc7e"),
    "nep-val": _mc("nep", "val", "ba54756d30fc0d88376a3860a9638fe97739396dcbf056ad9c31036f0b9388db"),
    "nep-test": _mc("nep", "test", "12e68dc733a6071ad481d0e59cb5d5764dfff4260d185e60615b6df890ea7e83"),
    "hyperlinks": ReleasedFile("linking/hyperlinks.json", "tasks/linking-actions/data/hyperlinks.json", FINAL,
                               "e2cfaffa6445245d5c0f3b69b06b66186edb722145177bcb0e3e802117bad6b4"),
    "pilot-test": ReleasedFile("linking/original-hyperlinks-test.json",
                               "tasks/linking-actions/data/original-wikihow-tr-hyperlinks-test.json", INIT,
                               "1159d0bfa0cb371fd19a0c51e48ab2e882858efe59a2aaef8e3b462f3a46c7d2"),
    "pilot-train": ReleasedFile("linking/original-hyperlinks-train.json",
                                "tasks/linking-actions/data/original-wikihow-tr-hyperlinks-train.json", INIT,
                                "73e813aefc2253dd78e5ef97fc4a79998633bd4bc1a6c96bd030607f2248fade"),
    "translated-goals": ReleasedFile("linking/translated-goals.txt",
                                     "tasks/linking-actions/data/translated-wikihow-tr-goals.txt", INIT,
                                     "671e1e7272c0b224ffa0bb44268ccc34feea15fc0517c4a40a177f1580863022"),
    "corpus": ReleasedFile("corpus/original-wikihow-tr-wikihow.json",
                           "tasks/next-event-prediction/data/original-wikihow-tr-wikihow.json", INIT,
                           "5234bbf8054bf13f63b6b2ef3e7b5906731b9f39d0e11a1290630fcd4af994a8"),
    "step2goal": ReleasedFile("corpus/original-wikihow-tr-step2goal.json",
                              "tasks/goal-inference/data/original-wikihow-tr-step2goal.json", INIT,
                              "df82395d00023a6af1b076ab15f42eee6f8d0fb873568ecc29db2b60d10c364d"),
    "goal-negatives": ReleasedFile("corpus/original_goal_inference.json",
                                   "tasks/goal-inference/data/original_goal_inference.json", INIT,
                                   "26547c1158474e50ee79f7a066050edaf2c18fc1c2360f5127145e1167599986"),
    "example-tutorial": ReleasedFile("corpus/example_tutorial.json", "example_tutorial.json", FINAL,
                                     "24d84bd4929401aab9c9520d588430b3351ff45d5e8919e3a93588a25c14dc75"),
}

#: Hugging Face re-uploads of the full multiple-choice splits (third party) and their pinned revisions
HF_MC = {"gi": ("mcemilg/turkish-plu-goal-inference", "a1d486a4394887ae3165b2d5a498eb5fba0653ea"),
         "si": ("mcemilg/turkish-plu-step-inference", "3020a6573609c077aa698992054e8e3953475be2"),
         "so": ("mcemilg/turkish-plu-step-ordering", "e17ebf7917c06b3d40a2446ad062929af76cb6cb"),
         "nep": ("mcemilg/turkish-plu-next-event-prediction", "0ebf43f4bf4d6c7e96e3fbe6974c8e4c40fba1ab")}
HF_SUMMARIZATION = ("ardauzunoglu/tr-wikihow-summ", "e18b665eeba6ad0833f85899f9ce81532311544d")
#: the folder of a local copy of the summarization set under ``<data_dir>/turkish_plu``
SUMMARIZATION_DIR = "summarization"
#: the summarization splits (``val`` is an alias of ``validation``)
SUMMARIZATION_SPLITS = ("train", "validation", "val", "test")

_SWAG = ["sent1", "sent2", "ending0", "ending1", "ending2", "ending3", "label"]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise DataError(f"{path}: not valid JSON ({err})") from None


def _nonempty(v: Any) -> bool | str:
    return (isinstance(v, str) and bool(v.strip()) and v.strip() != "xxx") or "must be a non-empty text (not 'xxx')"


def _int_in(lo: int, hi: int):
    def check(v: Any) -> bool | str:
        try:
            ok = float(v) == int(float(v)) and lo <= int(float(v)) <= hi
        except (TypeError, ValueError):
            ok = False
        return ok or f"must be an integer {lo}–{hi}"
    return check


# ------------------------------------------------------------------ corpus
def read_corpus(path: str | os.PathLike) -> pd.DataFrame:
    """Parse a method-level ``wikihow.json`` file (a list of ``{task, category, method, caption,
    is_ordered}``) into the tidy corpus table; see :meth:`Release.corpus`."""
    path = Path(path)
    records = _read_json(path)
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of method records, got {type(records).__name__}")
    table = pd.DataFrame.from_records(records)
    require_columns(table, ["task", "category", "method", "caption"], path)
    if "is_ordered" not in table:
        table["is_ordered"] = pd.NA
    validate_rows(table, path, {
        "task": _nonempty,
        "category": lambda v: (isinstance(v, list) and len(v) >= 2 and v[1] in CATEGORIES)
        or f"must be a breadcrumb list whose 2nd element is one of {sorted(set(CATEGORIES))}",
        "caption": lambda v: (isinstance(v, list) and all(isinstance(s, str) for s in v)) or "must be a list of steps",
        "is_ordered": lambda v: bool(pd.isna(v)) or v in (0, 1) or "must be 0 or 1",
    }, header_rows=0)
    out = pd.DataFrame({
        "tutorial": table["task"].str.strip(),
        "category": [CATEGORIES[c[1]] for c in table["category"]],
        "category_tr": [c[1] for c in table["category"]],
        "method": table["method"].fillna("").astype(str),
        "steps": [list(s) for s in table["caption"]],
    })
    out["n_steps"] = out["steps"].map(len)
    out["is_ordered"] = table["is_ordered"].astype("Int64")
    return out


def title_categories(corpus: pd.DataFrame) -> dict[str, str]:
    """Tutorial title → category abbreviation (titles compared without a trailing ``?``).

    >>> title_categories(pd.DataFrame({"tutorial": ["A Nasıl Yapılır?"], "category": ["HE"]}))
    {'A Nasıl Yapılır': 'HE'}"""
    return {normalise_title(t): c for t, c in zip(corpus["tutorial"], corpus["category"])}


def normalise_title(title: str) -> str:
    """A goal title as the paper's retrieval script compares them: no "How to", no
    "- wikiHow", no "?", single spaces.

    >>> normalise_title("  Ağ Yazıcısı Nasıl Kurulur? - wikiHow")
    'Ağ Yazıcısı Nasıl Kurulur'
    """
    t = str(title).replace("- wikiHow", "").replace("How to ", "").replace("?", "")
    return " ".join(t.split())


# ------------------------------------------------------------------ multiple choice
def read_mc(path: str | os.PathLike, task: str, split: str = "test") -> pd.DataFrame:
    """Parse one SWAG-schema CSV of a multiple-choice task into the tidy table of :meth:`Release.mc`
    (without ``origin``/``category``)."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)}, not {task!r}")
    path = Path(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise DataError(f"{path}: not a readable CSV ({err})") from None
    n_options = 2 if task == "so" else 4
    checks: dict[str, Any] = {"sent2": _nonempty, "label": _int_in(0, n_options - 1)}
    checks.update({f"ending{i}": _nonempty for i in range(n_options)})
    if task == "nep":
        checks["sent1"] = _nonempty
    require_columns(raw, _SWAG, path)
    validate_rows(raw, path, checks)
    endings = raw[[f"ending{i}" for i in range(n_options)]].to_numpy().tolist()
    labels = raw["label"].astype(float).astype(int)
    if task == "gi":
        goal = [e[lab] for e, lab in zip(endings, labels)]
        context, prev = raw["sent2"], None
    elif task == "nep":
        goal, context, prev = raw["sent1"], raw["sent2"], raw["sent2"]
    else:
        goal, context, prev = raw["sent2"], raw["sent2"], None
    rows = range(len(raw))
    return pd.DataFrame({
        "id": [f"{task}-{split}-{i}" for i in rows], "task": task, "split": split, "row": list(rows),
        "goal": list(goal), "context": list(context), "prev_step": list(prev) if prev is not None else None,
        "options": endings, "label": labels.to_numpy(), "n_options": n_options,
    })


def annotate_origin(table: pd.DataFrame, corpus: pd.DataFrame) -> pd.DataFrame:
    """Add ``origin`` (original/translated) and ``category`` by matching ``goal`` to corpus titles.

    >>> c = pd.DataFrame({"tutorial": ["Kek Nasıl Yapılır?"], "category": ["H&G"]})
    >>> annotate_origin(pd.DataFrame({"goal": ["Kek Nasıl Yapılır", "Kek Yapmak"]}), c)[["origin", "category"]].values.tolist()
    [['original', 'H&G'], ['translated', None]]"""
    cats = title_categories(corpus)
    keys = table["goal"].map(normalise_title)
    out = table.copy()
    out["category"] = keys.map(cats).astype(object).where(keys.isin(cats), None)
    out["origin"] = ["original" if k in cats else "translated" for k in keys]
    return out


def load_mc_train(task: str, local_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """The full train split of a multiple-choice task from the Hugging Face re-upload
    (``mcemilg/turkish-plu-*``, pinned revision) or a local copy of it (a folder holding
    ``*train*.csv``; with several tasks' files, ``*<task stem>*train*.csv``, e.g.
    ``step-inference-train.csv``). Needs internet without a local copy."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)}, not {task!r}")
    repo, revision = HF_MC[task]
    folder = hf_snapshot(repo, local_dir=local_dir, revision=revision, allow_patterns=["*train*.csv"])
    # a folder holding several tasks' train files: the one named after this task
    files = sorted(folder.rglob(f"*{TASKS[task]}*train*.csv")) or sorted(folder.rglob("*train*.csv"))
    if not files:
        raise FileNotFoundError(f"{folder}: no *train*.csv of {repo} found")
    return read_mc(files[0], task, "train")


# ------------------------------------------------------------------ linking actions
#: block layout of ``hyperlinks.json`` [spec §2.1]: (start, stop, origin, split)
LINKING_BLOCKS = ((0, 52, "original", "test"), (52, 208, "original", "train"),
                  (208, 596, "translated", "test"), (596, 1759, "translated", "train"))


def read_linking(path: str | os.PathLike) -> pd.DataFrame:
    """Parse ``hyperlinks.json`` ({step: goal}) into ``step, goal, origin, split`` using the
    release's block layout (52 original test, 156 original train, 388 translated test, 1,163
    translated train; test = 440, train = 1,319 as in Table 4)."""
    path = Path(path)
    pairs = _read_json(path)
    if not isinstance(pairs, dict):
        raise DataError(f"{path}: expected a JSON object {{step: goal}}, got {type(pairs).__name__}")
    table = pd.DataFrame({"step": list(pairs), "goal": list(pairs.values())})
    validate_rows(table, path, {"step": _nonempty, "goal": _nonempty}, header_rows=0)
    if len(table) != LINKING_BLOCKS[-1][1]:
        raise DataError(f"{path}: expected {LINKING_BLOCKS[-1][1]} step→goal pairs (the released layout), "
                        f"found {len(table)}")
    origin, split = [""] * len(table), [""] * len(table)
    for start, stop, o, s in LINKING_BLOCKS:
        origin[start:stop] = [o] * (stop - start)
        split[start:stop] = [s] * (stop - start)
    table["origin"], table["split"] = origin, split
    return table


# ------------------------------------------------------------------ summarization
def _read_summ_file(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        table = pd.read_parquet(path)
    elif suffix == ".jsonl":
        table = pd.read_json(path, lines=True, dtype=False)
    elif suffix == ".csv":
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    elif suffix == ".json":
        data = _read_json(path)
        if isinstance(data, dict):  # the repository's variant: {method: {summary, document, …}}
            table = pd.DataFrame([{"text": v.get("document"), "summary": v.get("summary"), "title": k}
                                  for k, v in data.items()])
        else:
            table = pd.DataFrame.from_records(data)
    else:
        raise DataError(f"{path}: summarization files must be .parquet, .jsonl, .json or .csv")
    table = table.rename(columns={"document": "text"})
    validate_rows(table, path, {"text": _nonempty, "summary": _nonempty}, header_rows=1 if suffix == ".csv" else 0)
    return table[["text", "summary"]].reset_index(drop=True)


def read_summarization(folder: str | os.PathLike, split: str = "test") -> pd.DataFrame:
    """Document–summary pairs of one split from a local folder (a copy of
    ``ardauzunoglu/tr-wikihow-summ``: files whose name contains the split, e.g.
    ``data/test-00000-of-00001.parquet``, or ``summarization-test.json`` of the repository)."""
    folder = Path(folder)
    aliases = {"val": ("validation", "val"), "validation": ("validation", "val")}.get(split, (split,))
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in
                   {".parquet", ".jsonl", ".json", ".csv"} and any(a in p.name.lower() for a in aliases))
    if not files:
        raise FileNotFoundError(f"{folder}: no {split} file (*.parquet/jsonl/json/csv with '{aliases[0]}' in its name)")
    table = pd.concat([_read_summ_file(p) for p in files], ignore_index=True)
    table.insert(0, "id", [f"summ-{split}-{i}" for i in range(len(table))])
    return table


def read_goal_negatives(path: str | os.PathLike) -> pd.DataFrame:
    """Parse ``original_goal_inference.json`` ({goal: {steps, negative_candidates,
    negative_candidates_similarities}}) into one row per (goal, negative) with its similarity
    ``rank`` (1 = most similar), the released ``cosine`` and the goal's ``steps``."""
    path = Path(path)
    rows = []
    for pos, (goal, item) in enumerate(_read_json(path).items()):
        negs, sims = item.get("negative_candidates"), item.get("negative_candidates_similarities")
        if not (isinstance(negs, list) and isinstance(sims, list) and len(negs) == len(sims) == 3):
            raise DataError(f"{path}, record {pos + 1} ({goal!r}), field 'negative_candidates': "
                            "needs 3 negatives with 3 similarities")
        order = sorted(range(3), key=lambda i: -float(sims[i]))
        for rank, i in enumerate(order, start=1):
            rows.append({"goal": goal, "rank": rank, "negative": negs[i], "cosine": float(sims[i]),
                         "steps": list(item.get("steps") or [])})
    return pd.DataFrame(rows)


def pairs_from_tutorial(tutorial: dict[str, Any]) -> pd.DataFrame:
    """Document–summary pairs from one tutorial-level record, with the paper's recipe: per method
    or part, the document is the step descriptions joined and the summary the step headlines
    joined (the whole tutorial when it has no methods). Columns ``title, method, text, summary,
    n_steps``.

    >>> t = {"title": "X", "steps": [{"name": "m", "steps": [{"headline": "Aç.", "description": "Kapağı aç."}]}]}
    >>> pairs_from_tutorial(t)[["text", "summary"]].values.tolist()
    [['Kapağı aç.', 'Aç.']]
    """
    blocks = tutorial.get("steps") or []
    if blocks and isinstance(blocks[0], dict) and "headline" in blocks[0]:  # no methods: one flat list
        blocks = [{"name": "", "steps": blocks}]
    rows = []
    for pos, block in enumerate(blocks):
        steps = block.get("steps") or []
        heads = [str(s.get("headline", "")).strip() for s in steps]
        descs = [str(s.get("description", "")).strip() for s in steps]
        if not any(heads) or not any(descs):
            raise DataError(f"tutorial {tutorial.get('title')!r}, method {pos + 1}: steps need 'headline' and "
                            "'description'")
        rows.append({"title": tutorial.get("title", ""), "method": block.get("name", ""),
                     "text": " ".join(d for d in descs if d), "summary": " ".join(h for h in heads if h),
                     "n_steps": len(steps)})
    return pd.DataFrame(rows)


def sample_pairs() -> pd.DataFrame:
    """The 12 document–summary pairs written by us (``summarization_sample.jsonl`` in
    :func:`~culturelab.data.sources.sample_dir`), ids ``sample-<i>``.

    >>> t = sample_pairs()
    >>> len(t), t.columns.tolist()
    (12, ['id', 'text', 'summary'])
    """
    table = _read_summ_file(sample_dir(SUBDIR) / "summarization_sample.jsonl")
    table.insert(0, "id", [f"sample-{i}" for i in range(len(table))])
    return table


def split_sizes(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Rows per task split (``frames`` as :meth:`Release.mc_splits` gives them), in the long form
    of Table 4 (``task, split, value``).

    >>> split_sizes({"so test": pd.DataFrame({"task": ["so"] * 2, "split": "test"})}).values.tolist()
    [['so', 'test', 2]]
    """
    return pd.DataFrame([{"task": t["task"].iloc[0], "split": t["split"].iloc[0], "value": len(t)}
                         for t in frames.values()])


# ------------------------------------------------------------------ where the files come from
@dataclass(frozen=True)
class Release:
    """The authors' release as one data source: ``data_dir`` (``""``: ``$CULTURELAB_DATA``) and
    ``data_source``. For the GitHub files (:data:`FILES`), ``local`` reads
    ``<data_dir>/turkish_plu/<file>``, ``download`` fetches the file once at its pinned commit
    (SHA-256 checked) and ``auto`` takes each file's local copy, else its download. For the
    summarization set (:meth:`summarization`) ``summ_dir`` (``""``:
    ``<data_dir>/turkish_plu/summarization``) is the local copy and ``auto`` falls back to
    ``sample``.

    >>> Release("/nowhere").summarization_source()
    'sample'
    >>> Release("/nowhere", "local").path("corpus")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no local copy of Turkish PLU's corpus/original-wikihow-tr-wikihow.json under /nowhere: ...
    """

    data_dir: str | os.PathLike = ""
    data_source: str = "auto"
    summ_dir: str | os.PathLike = ""

    def path(self, key: str) -> Path:
        """The local path of a released file (downloaded once when ``data_source`` asks for it or
        ``auto`` finds no local copy)."""
        if key not in FILES:
            raise KeyError(f"unknown Turkish PLU file {key!r}; choose one of {sorted(FILES)}")
        f = FILES[key]
        local = config.data_dir(self.data_dir) / SUBDIR / f.local
        source = resolve_source(self.data_source, local if local.is_file() else None, what=f"Turkish PLU's {f.local}",
                                data_dir=self.data_dir)
        if source == "local":
            return local
        if source != "download":
            raise ValueError(f"Turkish PLU's {f.local} has no {source!r} copy; use data_source auto, local or download")
        return download(f.remote(), str(Path(SUBDIR, f.local).parent))

    def corpus(self) -> pd.DataFrame:
        """The original-Turkish wikiHow corpus (6,720 methods of 2,009 tutorials), one row per
        method: ``tutorial`` (title), ``category`` (``C&E``…), ``category_tr``, ``method``,
        ``steps`` (step headlines), ``n_steps``, ``is_ordered`` (the paper's BERTurk orderliness
        classifier, applied per method)."""
        return read_corpus(self.path("corpus"))

    def mc(self, task: str, split: str = "test", corpus: pd.DataFrame | None = None) -> pd.DataFrame:
        """A multiple-choice split of the release (``val`` or ``test``) as a tidy table.

        ``origin``/``category`` come from the original-Turkish corpus (loaded unless given):
        ``category`` is ``None`` for goals outside it (the translated part has no categories in
        the release)."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS} (train splits: load_mc_train), not {split!r}")
        table = read_mc(self.path(f"{task}-{split}"), task, split)
        return annotate_origin(table, self.corpus() if corpus is None else corpus)

    def mc_splits(self, tasks: Sequence[str] = tuple(TASKS), corpus: pd.DataFrame | None = None
                  ) -> dict[str, pd.DataFrame]:
        """Every val and test split of ``tasks``, keyed ``"<task> <split>"`` (e.g. ``"si test"``)."""
        corpus = self.corpus() if corpus is None else corpus
        return {f"{t} {s}": self.mc(t, s, corpus) for t in tasks for s in SPLITS}

    def linking(self, split: str = "test") -> pd.DataFrame:
        """Linking-actions pairs of a split (``test``, ``train`` or ``all``)."""
        if split not in {"test", "train", "all"}:
            raise ValueError(f"split must be 'test', 'train' or 'all', not {split!r}")
        table = read_linking(self.path("hyperlinks"))
        return table if split == "all" else table[table["split"] == split].reset_index(drop=True)

    def translated_goals(self) -> list[str]:
        """The 49,562 translated goal titles (infinitive form) of the linking-actions candidate pool."""
        text = self.path("translated-goals").read_text(encoding="utf-8")
        return [line.strip() for line in text.splitlines() if line.strip()]

    def goal_negatives(self) -> pd.DataFrame:
        """Goal-inference negatives of the original corpus (:func:`read_goal_negatives`)."""
        return read_goal_negatives(self.path("goal-negatives"))

    def split_sizes(self, tasks: Sequence[str] = tuple(TASKS)) -> pd.DataFrame:
        """Rows per released val/test file and per linking split, beside Table 4 (long form:
        ``task, split, value``)."""
        links = self.linking("all")
        linking = [{"task": "linking", "split": s, "value": int((links["split"] == s).sum())} for s in ("train", "test")]
        return pd.concat([split_sizes(self.mc_splits(tasks)), pd.DataFrame(linking)], ignore_index=True)

    def _summarization_copy(self) -> Path | None:
        """The local copy of the summarization set: ``summ_dir`` when given, else
        ``<data_dir>/turkish_plu/summarization`` when it exists."""
        if self.summ_dir:
            return Path(self.summ_dir).expanduser()
        folder = config.data_dir(self.data_dir) / SUBDIR / SUMMARIZATION_DIR
        return folder if folder.is_dir() else None

    def summarization_source(self) -> str:
        """Where :meth:`summarization` reads from: ``local`` (``summ_dir`` when given, else
        ``<data_dir>/turkish_plu/summarization`` when it exists), ``download`` (the hub) or ``sample``."""
        return resolve_source(self.data_source, self._summarization_copy(), auto="sample",
                              what=f"the summarization set ({HF_SUMMARIZATION[0]})", data_dir=self.data_dir)

    def summarization(self, split: str = "test") -> tuple[pd.DataFrame, str]:
        """Summarization pairs (``id, text, summary``) and where they came from.

        ``local``/``download``: a split of ``ardauzunoglu/tr-wikihow-summ`` (the local copy, or
        the hub at its pinned revision). ``sample``: the pairs built with the paper's recipe from
        the one full tutorial of the release (``example``: real text, 4 method-level pairs; its
        local copy, else its verified download), or, when that file cannot be had, the 12 pairs
        written by us (``sample``, :func:`sample_pairs`)."""
        source = self.summarization_source()
        if source in {"local", "download"}:
            repo, revision = HF_SUMMARIZATION
            local = self._summarization_copy() if source == "local" else None
            return read_summarization(hf_snapshot(repo, local_dir=local, revision=revision), split), source
        try:
            tutorial = _read_json(Release(self.data_dir).path("example-tutorial"))
        except (FileNotFoundError, ConnectionError):
            return sample_pairs(), "sample"
        pairs = pairs_from_tutorial(tutorial)
        pairs.insert(0, "id", [f"example-{i}" for i in range(len(pairs))])
        return pairs, "example"
