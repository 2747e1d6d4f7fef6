"""The four multiple-choice tasks: composition, baselines, zero-shot LLM scoring, predictions files.

Every scorer returns the input table with ``scores`` (one number per option), ``pred``,
``valid``, ``correct`` and ``method`` — the shape :func:`culturelab.metrics.choice.accuracy_table`
summarises.

* :func:`majority_predictions` — the most frequent *validation* label (the test label mix is
  not known to a model); :func:`random_predictions` — uniform guesses over several seeds;
* :func:`overlap_predictions` — Jaccard overlap of Unicode word tokens between what the model
  reads and each option; :func:`tfidf_predictions` — character n-gram TF-IDF cosine. Both
  show how much of a task is solvable from surface similarity; :func:`options_only_predictions`
  — an audit that never reads the prompt (the gold is the hub of its nearest-neighbour distractors);
* :func:`llm_predictions` — real zero-shot scoring: log P(option | context) with a causal LM,
  the Cetvel prompts (``culturelab/prompts/turkish_plu.yaml``), sum or per-token mean;
* :func:`read_predictions` / :func:`score_predictions` — a file of predictions made elsewhere
  (e.g. the released fine-tuned BERTurk checkpoints run on a GPU).

>>> import pandas as pd
>>> t = pd.DataFrame({"task": ["si"], "context": ["Makas Nasıl Bileylenir?"], "prev_step": [None],
...                   "goal": ["Makas Nasıl Bileylenir?"], "label": [1], "n_options": [4],
...                   "options": [["Cami temizle.", "Makası sil.", "Tuvaleti sil.", "Kartonu kes."]]})
>>> overlap_predictions(t)["pred"].tolist()
[1]
>>> add_prompts(t)["prompt"].iloc[0]
'Hedef: Makas Nasıl Bileylenir? Örnek Adım:'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab import prompts
from culturelab.data.validate import DataError, require_columns, validate_rows
from culturelab.metrics.generation import UnicodeTokenizer
from culturelab.models.base import LanguageModel
from culturelab.protocol import LABEL_COLUMNS, Deviations
from culturelab.tasks.mcq import score_loglikelihood
from culturelab.turkish_plu.protocol import HUB_ID_READINGS, mc_part, paper_model

PAPER = "turkish_plu"
#: how option log-probabilities are compared: summed over tokens, or their per-token mean
NORMALISATIONS = ("sum", "mean")
#: the prompt templates of the multiple-choice tasks (``culturelab/prompts/turkish_plu.yaml``)
MC_TEMPLATES = ("gi_context", "si_context", "so_context", "nep_context", "so_option")


def _finish(frame: pd.DataFrame, scores: Sequence[Sequence[float]], method: str,
            rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Argmax of each row's scores (ties broken at random with ``rng``, else the first)."""
    out = frame.copy()
    out["scores"] = [list(map(float, s)) for s in scores]
    preds = []
    for s in scores:
        s = np.asarray(s, dtype=float)
        best = np.flatnonzero(s == s.max())
        preds.append(int(rng.choice(best)) if rng is not None and len(best) > 1 else int(best[0]))
    out["pred"] = preds
    out["valid"] = True
    out["correct"] = out["pred"] == out["label"]
    out["method"] = method
    return out


def reader_text(frame: pd.DataFrame) -> list[str]:
    """What a model reads before the options: the goal (SI, SO), the step (GI), goal + previous step (NEP).

    >>> reader_text(pd.DataFrame({"task": ["nep", "si"], "goal": ["G", "H"], "context": ["s", "H"]}))
    ['G s', 'H']"""
    return [f"{g} {c}" if t == "nep" else str(c) for t, g, c in zip(frame["task"], frame["goal"], frame["context"])]


def composition(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Size, label balance, majority-label share, share of original-Turkish goals and categorised
    items per task split (``frames``: label → table of :meth:`~culturelab.turkish_plu.data.Release.mc`).

    >>> t = pd.DataFrame({"task": "so", "split": "test", "n_options": 2, "label": [1, 1, 0],
    ...                   "origin": "translated", "category": None})
    >>> composition({"so test": t})[["labels", "majority_share"]].values.tolist()
    [['1/2', 0.6666666666666666]]
    """
    rows = []
    for name, t in frames.items():
        counts = t["label"].value_counts().reindex(range(int(t["n_options"].iloc[0])), fill_value=0)
        rows.append({"set": name, "task": t["task"].iloc[0], "split": t["split"].iloc[0], "n": len(t),
                     "labels": "/".join(map(str, counts.tolist())), "majority_share": counts.max() / len(t),
                     "chance": 1 / t["n_options"].iloc[0], "original_share": (t["origin"] == "original").mean(),
                     "with_category": t["category"].notna().mean()})
    return pd.DataFrame(rows)


def subset(frame: pd.DataFrame, n: int, seed: int = 0, by: str = "task") -> pd.DataFrame:
    """At most ``n`` items per ``by`` group, drawn with ``seed`` (kept in file order); ``n = 0``
    keeps everything. The same (frame, n, seed) always gives the same items.

    >>> t = pd.DataFrame({"task": ["a"] * 5 + ["b"] * 2, "row": range(7)})
    >>> subset(t, 2, seed=0).groupby("task").size().tolist()
    [2, 2]
    """
    if n <= 0:
        return frame
    parts = []
    for _, part in frame.groupby(by, sort=False):
        if len(part) > n:
            keep = np.sort(np.random.default_rng(seed).choice(len(part), size=n, replace=False))
            part = part.iloc[keep]
        parts.append(part)
    return pd.concat(parts).reset_index(drop=True)


def goal_overlap(test: pd.DataFrame, val: pd.DataFrame) -> float:
    """Share of test items whose goal also appears in the validation split (tutorial-level leakage).

    >>> goal_overlap(pd.DataFrame({"goal": ["a", "b"]}), pd.DataFrame({"goal": ["b", "c"]}))
    0.5"""
    return float(test["goal"].isin(set(val["goal"])).mean())


# ------------------------------------------------------------------ baselines
def majority_predictions(frame: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Always answer the most frequent label of ``reference`` (the validation split), per task.

    >>> t = pd.DataFrame({"task": ["so"] * 3, "label": [1, 1, 0], "n_options": [2] * 3})
    >>> majority_predictions(t, t)["pred"].tolist()
    [1, 1, 1]"""
    majority = reference.groupby("task")["label"].agg(lambda s: int(s.value_counts().idxmax()))
    scores = [np.eye(n)[majority[t]] for t, n in zip(frame["task"], frame["n_options"])]
    return _finish(frame, scores, "majority (val)")


def random_predictions(frame: pd.DataFrame, seeds: Sequence[int] = (0, 1, 2, 3, 4)) -> pd.DataFrame:
    """Uniform random guesses, one block of rows per seed (column ``seed``): a check of the chance
    level. :func:`accuracy_by_task` pools the seeds per item (:func:`pool_seeds`), so the test set
    counts once however many seeds are drawn.

    >>> t = pd.DataFrame({"task": ["si"], "label": [0], "n_options": [4]})
    >>> random_predictions(t, seeds=[0, 1])["seed"].tolist()
    [0, 1]"""
    parts = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        scores = [rng.random(n) for n in frame["n_options"]]
        parts.append(_finish(frame, scores, "random").assign(seed=seed))
    return pd.concat(parts, ignore_index=True)


def word_stems(text: str, prefix: int | None = 5) -> set[str]:
    """Word types of ``text`` (Unicode ``\\w+``, Turkish-aware lower-casing), cut to their first
    ``prefix`` letters — the "F5" stemming that works well for agglutinative Turkish.

    >>> sorted(word_stems("Makası sil, makasları bileyle."))
    ['biley', 'makas', 'sil']
    """
    tokens = UnicodeTokenizer().tokenize(text)
    return {t[:prefix] if prefix else t for t in tokens}


def overlap_predictions(frame: pd.DataFrame, seed: int = 0, prefix: int | None = 5) -> pd.DataFrame:
    """Pick the option sharing the most word stems with what the model reads (Jaccard of
    :func:`word_stems`, ties broken at random)."""
    scores = []
    for text, options in zip(reader_text(frame), frame["options"]):
        a = word_stems(text, prefix)
        row = []
        for o in options:
            b = word_stems(o, prefix)
            row.append(len(a & b) / len(a | b) if a | b else 0.0)
        scores.append(row)
    return _finish(frame, scores, "lexical overlap", np.random.default_rng(seed))


def char_tfidf() -> Any:
    """The character 2–4-gram TF-IDF (word-bounded, sublinear, lower-cased) used by the
    lexical baselines and the distractor audit; unfitted.

    >>> char_tfidf().fit(["Kek yap.", "Çay demle."]).transform(["kek"]).shape[0]
    1
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, lowercase=True)


def tfidf_predictions(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Pick the option with the highest character 2–4-gram TF-IDF cosine to what the model reads
    (vectoriser fitted on the frame's own texts).

    >>> t = pd.DataFrame({"task": ["gi"], "goal": ["Kek Pişirmek"], "context": ["Keki fırında pişir."],
    ...                   "label": [1], "n_options": [2], "options": [["Araba Yıkamak", "Kek Pişirmek"]]})
    >>> tfidf_predictions(t)["correct"].tolist()
    [True]"""
    texts = reader_text(frame)
    options = [list(o) for o in frame["options"]]
    flat = [o for opts in options for o in opts]
    vec = char_tfidf().fit(texts + flat)
    a = vec.transform(texts)
    b = vec.transform(flat)
    owner = np.repeat(np.arange(len(options)), [len(o) for o in options])
    sims = np.asarray(a[owner].multiply(b).sum(axis=1)).ravel()  # rows are L2-normalised
    bounds = np.cumsum([0] + [len(o) for o in options])
    scores = [sims[bounds[i]:bounds[i + 1]] for i in range(len(options))]
    return _finish(frame, scores, "tf-idf char", np.random.default_rng(seed))


def options_only_predictions(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """An artefact audit that never reads the prompt: pick the option with the highest summed
    character 2–4-gram TF-IDF cosine to the *other* options of its item. The GI, SI and NEP
    distractors are nearest neighbours of the gold option, so the gold tends to be the hub of
    its option set; accuracy above chance measures how much that leaks. Two-option items (SO)
    are symmetric: ties, broken at random.

    >>> t = pd.DataFrame({"task": ["si"], "label": [0], "n_options": [3],
    ...                   "options": [["Kek hamuru yap.", "Kek yap.", "Hamuru yap."]]})
    >>> options_only_predictions(t)["pred"].tolist()
    [0]"""
    options = [list(o) for o in frame["options"]]
    flat = [o for opts in options for o in opts]
    matrix = char_tfidf().fit(flat).transform(flat)  # one transform for all items
    bounds = np.cumsum([0] + [len(o) for o in options])
    scores = []
    for i in range(len(options)):
        m = matrix[bounds[i]:bounds[i + 1]]
        sims = (m @ m.T).toarray()
        np.fill_diagonal(sims, 0.0)
        scores.append(np.round(sims.sum(axis=1), 12))  # rounding: symmetric pairs tie exactly
    return _finish(frame, scores, "options only (tf-idf)", np.random.default_rng(seed))


# ------------------------------------------------------------------ zero-shot LLM scoring
def add_prompts(frame: pd.DataFrame, version: str = "v1") -> pd.DataFrame:
    """Add ``prompt`` (the context the options are scored after) and ``llm_options`` (the scored
    continuations). Step ordering scores the two orders of its step pair: option *i* puts step
    *i* first, so the label (index of the earlier step) is the index of the right order."""
    out = frame.copy()
    tpl = {t: prompts.get(PAPER, f"{t}_context", version) for t in ("gi", "si", "so", "nep")}
    so_option = prompts.get(PAPER, "so_option", version)
    out["prompt"] = [tpl[t].format(goal=g, step=c) for t, g, c in zip(out["task"], out["goal"], out["context"])]
    out["llm_options"] = [[so_option.format(first=o[i], second=o[1 - i]) for i in range(2)] if t == "so"
                          else list(o) for t, o in zip(out["task"], out["options"])]
    return out


def llm_predictions(model: LanguageModel, frame: pd.DataFrame, normalise: Sequence[str] = NORMALISATIONS,
                    version: str = "v1") -> pd.DataFrame:
    """Zero-shot log-likelihood scoring of every option of every item — all tasks in one
    ``model.loglikelihood`` call (the second normalisation is served from the response cache).
    ``method`` is ``llm (sum)`` or ``llm (mean)``; ``model`` is the model's spec."""
    prompted = add_prompts(frame, version)
    parts = []
    for norm in normalise:
        scored = score_loglikelihood(model, prompted, target="text", normalise=norm, options_col="llm_options",
                                     answer_col="label")
        parts.append(scored.assign(method=f"llm ({norm})", model=model.spec, prompt_version=version))
    return pd.concat(parts, ignore_index=True)


def score_all(items: pd.DataFrame, *, model: LanguageModel | None = None, reference: pd.DataFrame | None = None,
              random_seeds: Sequence[int] = (), max_llm_instances: int = 0, seed: int = 0,
              normalisations: Sequence[str] = NORMALISATIONS, version: str = "v1") -> pd.DataFrame:
    """Every scorer on ``items``: majority (when ``reference`` gives validation labels), random
    (when ``random_seeds``), lexical overlap and TF-IDF on all items, and the LM (when ``model``)
    on :func:`subset` (``max_llm_instances`` per task, drawn with ``seed``; 0: all), plus the prompt-free
    :func:`options_only_predictions` audit. Baseline rows have
    ``model = "baseline"``."""
    parts = [majority_predictions(items, reference)] if reference is not None else []
    parts += [random_predictions(items, random_seeds)] if len(random_seeds) else []
    parts += [overlap_predictions(items, seed), tfidf_predictions(items, seed),
              options_only_predictions(items, seed)]
    parts = [p.assign(model="baseline") for p in parts]
    if model is not None:
        parts.append(llm_predictions(model, subset(items, max_llm_instances, seed), normalisations, version))
    return pd.concat(parts, ignore_index=True)


def pool_seeds(results: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """``results`` with the rows a method repeats over seeds (a ``seed`` column, as
    :func:`random_predictions` writes) pooled into one row per item (``id``) and ``by`` group, whose
    ``correct`` is the share of the seeds that got the item right (``seeds`` says how many): an item
    counts once, so n is the number of items and the CI comes from the items, not from seeds × items.
    Rows without a seed are kept as they are.

    >>> t = pd.DataFrame({"id": ["a", "a", "b", "b"], "task": "si", "method": "random", "correct": [1, 0, 0, 0],
    ...                   "valid": True, "n_options": 4, "seed": [0, 1, 0, 1]})
    >>> pool_seeds(t, ["task", "method"])[["id", "correct", "seeds"]].values.tolist()
    [['a', 0.5, 2], ['b', 0.0, 2]]
    """
    if "seed" not in results or results["seed"].isna().all():
        return results
    seeded = results["seed"].notna()
    keys = list(dict.fromkeys([*by, "id"]))
    pooled = (results[seeded].groupby(keys, sort=False, observed=True, dropna=False)
              .agg(correct=("correct", "mean"), valid=("valid", "all"), n_options=("n_options", "first"),
                   seeds=("seed", "nunique")).reset_index())
    return pd.concat([results[~seeded], pooled], ignore_index=True) if (~seeded).any() else pooled


def accuracy_by_task(results: pd.DataFrame, by: Sequence[str] = ("task", "method", "model"), *,
                     seed: int = 0) -> pd.DataFrame:
    """Accuracy (0–1) with its 95 % CI, n (items: a method repeated over seeds is pooled per item
    first, :func:`pool_seeds`) and the chance level (1 / options) per ``by`` group — the tidy table
    every model figure and full-size result file uses.

    >>> t = pd.DataFrame({"task": ["so"] * 4, "method": "m", "model": "x", "correct": [1, 1, 0, 1],
    ...                   "valid": True, "n_options": 2})
    >>> accuracy_by_task(t)[["task", "accuracy", "n", "chance"]].values.tolist()
    [['so', 0.75, 4, 0.5]]
    """
    from culturelab.metrics.choice import accuracy_table

    results = pool_seeds(results, by)
    table = accuracy_table(results, list(by), seed=seed)
    chance = (1.0 / results["n_options"]).groupby([results[b] for b in by], sort=True, observed=True).mean()
    return table.merge(chance.rename("chance").reset_index(), on=list(by), how="left")


# ------------------------------------------------------------------ predictions made elsewhere
_PRED_COLUMNS = ("pred", "prediction", "predicted", "pred_label")


def _is_option_index(value: object) -> bool | str:
    try:
        as_float = float(value)  # type: ignore[arg-type]
        ok = as_float == int(as_float) and as_float >= 0
    except (TypeError, ValueError, OverflowError):
        ok = False
    return ok or "must be a 0-based option index"


def read_predictions(path: str | os.PathLike) -> pd.DataFrame:
    """A predictions file (CSV, JSONL or parquet) → ``id, pred, model``.

    Rows name their item by ``id`` (``"<task>-<split>-<row>"``, e.g. ``si-test-0``; ``row`` is the
    0-based position in the released CSV) or by ``task`` + ``row`` (+ ``split``, default ``test``);
    the 0-based predicted option is in ``pred`` (or ``prediction``/``predicted``/``pred_label``);
    an optional ``model`` column names the system (default: the file name). For step ordering,
    ``pred`` is the index of the step predicted to come first.
    """
    from culturelab.models.replay import read_table

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"predictions file not found: {path}")
    table = read_table(path)
    col = next((c for c in _PRED_COLUMNS if c in table.columns), None)
    if col is None:
        raise DataError(f"{path}: needs a prediction column (one of {list(_PRED_COLUMNS)}); found {list(table.columns)}")
    if "id" not in table.columns:
        require_columns(table, ["task", "row"], path)
        split = table["split"] if "split" in table.columns else "test"
        table["id"] = table["task"].astype(str) + "-" + pd.Series(split, index=table.index).astype(str) + "-" \
            + table["row"].astype(int).astype(str)
    header = 1 if path.suffix.lower() == ".csv" else 0
    validate_rows(table, path, {col: _is_option_index}, header_rows=header)
    preds = [int(float(v)) for v in table[col]]
    model = table["model"].astype(str) if "model" in table.columns else path.stem
    out = pd.DataFrame({"id": table["id"].astype(str), "pred": preds, "model": model})
    dup = out.duplicated(["id", "model"])
    if dup.any():
        raise DataError(f"{path}, row {int(np.flatnonzero(dup)[0]) + 1 + header}, column 'id': "
                        f"duplicate prediction for {out.loc[dup, 'id'].iloc[0]!r}")
    return out


def score_predictions(frame: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """Score predictions against the items of ``frame``, one block per ``model``: items without a
    prediction (or with an out-of-range index) are invalid and count as wrong.

    >>> items = pd.DataFrame({"id": ["si-test-0", "si-test-1"], "label": [2, 0], "n_options": [4, 4]})
    >>> preds = pd.DataFrame({"id": ["si-test-0"], "pred": [2], "model": ["m"]})
    >>> score_predictions(items, preds)[["pred", "valid", "correct"]].values.tolist()
    [[2, True, True], [-1, False, False]]"""
    parts = []
    for model, preds in predictions.groupby("model", sort=True):
        by_id = dict(zip(preds["id"], preds["pred"]))
        out = frame.copy()
        pred = [by_id.get(i, -1) for i in out["id"]]
        out["valid"] = [0 <= p < n for p, n in zip(pred, out["n_options"])]
        out["pred"] = [p if v else -1 for p, v in zip(pred, out["valid"])]
        out["correct"] = out["pred"] == out["label"]
        out["method"] = f"predictions: {model}"
        out["model"] = model
        parts.append(out)
    return pd.concat(parts, ignore_index=True) if parts else frame.iloc[0:0]


# ------------------------------------------------------------------ beside the paper
def table6_row(method: str, paper_model: str | None, rows: Collection[str]) -> str | None:
    """The row of Table 6 (``rows``) a method's accuracies stand beside: random and majority ↔
    Random; the LM ↔ BERTurk ZS (the paper's best "zero-shot", a random head, not prompting);
    fine-tuned ↔ the FT row of its model when it is one of the paper's encoders, else BERTurk FT;
    a predictions file ↔ the row its model column names; ``None`` for our surface scorers.

    >>> rows = {"Random", "BERTurk ZS", "BERTurk FT", "XLM-R FT"}
    >>> [table6_row(m, p, rows) for m, p in [("majority (val)", None), ("fine-tuned (val→test)", "XLM-R"),
    ...                                       ("fine-tuned (val→test)", ""), ("tf-idf char", None)]]
    ['Random', 'XLM-R FT', 'BERTurk FT', None]
    """
    part = mc_part(method)
    if part == "random":
        return "Random"
    if part == "llm":
        return "BERTurk ZS"
    if part == "finetune":
        return f"{paper_model} FT" if f"{paper_model} FT" in rows else "BERTurk FT"
    named = method.removeprefix("predictions: ")
    return named if part == "predictions" and named in rows else None


def table6_beside(accuracy: pd.DataFrame, labels: Callable[[Mapping[str, Any]], Deviations]) -> pd.DataFrame:
    """Our accuracies (``task, method, model, accuracy`` in 0–1, ``n``, CIs optional) beside the
    paper's Table 6 (in %): one row per (our method, task) with the paper row it stands beside
    (``paper_row``, :func:`table6_row`), ``reported``, ``ours`` and the labels of the one comparison
    with the paper's protocol (``labels`` of the row's ``task``, ``method`` and ``model``:
    :func:`culturelab.turkish_plu.protocol.mc_labels`); ``delta`` (percentage points) only where
    data, protocol and model are the paper's; ``model_note`` where the hub id of the paper's model
    is our reading (:data:`~culturelab.turkish_plu.protocol.HUB_ID_READINGS`).

    >>> from culturelab.protocol import DataUsed, compare
    >>> from culturelab.turkish_plu.protocol import PROTOCOL
    >>> acc = pd.DataFrame({"task": ["so"], "method": ["random"], "model": ["baseline"], "accuracy": [0.5], "n": [1021]})
    >>> same = lambda row: compare(PROTOCOL["02_mc_tasks"], {}, DataUsed("released"))
    >>> table6_beside(acc, same)[["paper_row", "reported", "ours", "delta", "data"]].values.tolist()
    [['Random', 50.0, 50.0, 0.0, 'same']]
    """
    from culturelab.reported import compare, load

    reported = load(PAPER, "table6")
    names = set(reported["model"])
    keys = ["task", "method", "model"]
    out = []
    for combo, part in accuracy.groupby(keys, sort=False):
        row = dict(zip(keys, combo))
        deviations = labels(row)
        paper_row = table6_row(row["method"], deviations.paper_model, names)
        paper = reported[(reported["model"] == paper_row) & (reported["task"] == row["task"])]
        table = compare(paper, part.assign(value=100 * part["accuracy"]), on=["task"], deviations=deviations,
                        model_row=paper_model(paper_row) if paper_row else None)
        spec = deviations.model_spec or ""
        note = HUB_ID_READINGS.get(deviations.paper_model or "", "") if ":" in spec else ""
        table = table[table["ours"].notna()].assign(method=row["method"], model=row["model"], paper_row=paper_row,
                                                    model_note=note)
        extra = [c for c in ("ci_low", "ci_high", "n") if c in part.columns]
        table = table.merge(part[["task", *extra]], on="task", how="left")
        for c in ("ci_low", "ci_high"):
            if c in table:
                table[c] = 100 * table[c]
        out.append(table)
    cols = ["task", "method", "model", "paper_row", "reported", "ours", "delta", "ci_low", "ci_high", "n",
            *LABEL_COLUMNS, "model_note"]
    table = pd.concat(out, ignore_index=True)
    return table[[c for c in cols if c in table.columns]]


# ------------------------------------------------------------------ what a run shows
def _scores(rows: pd.DataFrame, tasks: Sequence[str]) -> str:
    """``GI 21.7 % (95 % CI 15.0–28.3, n = 60)``, … for the tasks of ``rows`` (one method's accuracies)."""
    by = rows.set_index("task")
    return ", ".join(f"{t.upper()} {100 * by.loc[t, 'accuracy']:.1f} % (95 % CI {100 * by.loc[t, 'ci_low']:.1f}–"
                     f"{100 * by.loc[t, 'ci_high']:.1f}, n = {int(by.loc[t, 'n'])})" for t in tasks if t in by.index)


def _against_chance(rows: pd.DataFrame, tasks: Sequence[str]) -> dict[str, list[str]]:
    """The tasks (in the order of ``tasks``) whose 95 % CI lies above, on (covers) or below the chance level."""
    out: dict[str, list[str]] = {"above": [], "on": [], "below": []}
    by = rows.set_index("task")
    for task in (t for t in tasks if t in by.index):
        r = by.loc[task]
        place = "above" if r["ci_low"] > r["chance"] else "below" if r["ci_high"] < r["chance"] else "on"
        out[place].append(task.upper())
    return out


#: the surface-similarity baselines of the interpretation, as its sentences name them
SURFACE = {"lexical overlap": "lexical overlap", "tf-idf char": "character TF-IDF"}


def _beats_chance(name: str, rows: pd.DataFrame, tasks: Sequence[str]) -> str:
    """``Character TF-IDF beats chance on GI, not on SO.`` for one method's accuracies (``rows``), ``""``
    where its 95 % CI lies above chance on no task.

    >>> rows = pd.DataFrame({"task": ["gi", "so"], "ci_low": [0.3, 0.4], "chance": [0.25, 0.5]})
    >>> _beats_chance("character TF-IDF", rows, ["gi", "so"])
    'Character TF-IDF beats chance on GI, not on SO.'
    """
    wins = set(rows.loc[rows["ci_low"] > rows["chance"], "task"])
    beat = [t.upper() for t in tasks if t in wins]
    rest = [t.upper() for t in tasks if t not in wins and t in set(rows["task"])]
    if not beat:
        return ""
    return f"{name[0].upper()}{name[1:]} beats chance on {', '.join(beat)}" + (f", not on {', '.join(rest)}." if rest
                                                                               else ".")


def findings(acc: pd.DataFrame, composition: pd.DataFrame, results: pd.DataFrame, tasks: Sequence[str]) -> str:
    """What the multiple-choice notebook shows, as Markdown sentences rendered from its tables
    (:mod:`culturelab.report`; no number typed by hand): whether the random and majority baselines
    sit on chance (their 95 % CIs), what step ordering's label balance does to a constant answer,
    on which tasks the surface baselines beat chance, how precise the LM's zero-shot accuracies are
    and how often its two normalisations pick the same option. ``acc``: :func:`accuracy_by_task`;
    ``composition``: :func:`composition`; ``results``: the scored items.

    >>> acc = pd.DataFrame({"task": ["so", "so", "so"], "method": ["random", "majority (val)", "tf-idf char"],
    ...                     "accuracy": [0.5, 0.456, 0.47], "ci_low": [0.45, 0.42, 0.43], "ci_high": [0.55, 0.49, 0.51],
    ...                     "n": 1021, "chance": 0.5})
    >>> comp = pd.DataFrame({"set": ["so val", "so test"], "labels": ["5018/4982", "466/555"],
    ...                      "majority_share": [0.502, 0.544]})
    >>> print(findings(acc, comp, pd.DataFrame({"method": []}), ["so"]))  # doctest: +NORMALIZE_WHITESPACE
    Random guessing scores SO 50.0 % (95 % CI 45.0–55.0, n = 1021): chance lies inside the interval of SO. The
    validation's most frequent answer scores SO 45.6 % (95 % CI 42.0–49.0, n = 1021). The SO test labels are 466/555:
    always answering option 2 scores 54.4 %, while the validation's majority is option 1. Character TF-IDF beats
    chance on no task.
    """
    out = []
    for method, name in (("random", "Random guessing"), ("majority (val)", "The validation's most frequent answer")):
        rows = acc[acc["method"] == method]
        if len(rows):
            place = _against_chance(rows, tasks)
            tail = (f": chance lies inside the interval of {', '.join(place['on'])}" if not place["above"] + place["below"]
                    else f": off chance on {', '.join(place['above'] + place['below'])}") if method == "random" else ""
            out.append(f"{name} scores {_scores(rows, tasks)}{tail}.")
    sets = composition.set_index("set")
    if "so test" in sets.index and "so val" in sets.index:
        test = [int(x) for x in sets.loc["so test", "labels"].split("/")]
        val = [int(x) for x in sets.loc["so val", "labels"].split("/")]
        out.append(f"The SO test labels are {sets.loc['so test', 'labels']}: always answering option "
                   f"{int(np.argmax(test)) + 1} scores {100 * sets.loc['so test', 'majority_share']:.1f} %, while the "
                   f"validation's majority is option {int(np.argmax(val)) + 1}.")
    surface = acc[acc["method"].isin(SURFACE)]
    if len(surface):
        said = [_beats_chance(name, surface[surface["method"] == method], tasks) for method, name in SURFACE.items()
                if (surface["method"] == method).any()]
        present = [SURFACE[m] for m in SURFACE if (surface["method"] == m).any()]
        names = " and ".join(present)
        out.append(" ".join(s for s in said if s) or
                   f"{names[0].upper()}{names[1:]} {'beat' if len(present) > 1 else 'beats'} chance on no task.")
    llm = acc[acc["method"].str.startswith("llm")]
    for method, rows in llm.groupby("method", sort=False):
        place = _against_chance(rows, tasks)
        out.append(f"Zero-shot {method} scores {_scores(rows, tasks)}: above chance on "
                   f"{', '.join(place['above']) or 'no task'}, its intervals up to "
                   f"{100 * (rows['ci_high'] - rows['ci_low']).max():.0f} points wide.")
    picks = results[results["method"].isin(["llm (sum)", "llm (mean)"])].pivot_table(
        index="id", columns="method", values="pred", aggfunc="first") if len(results) else pd.DataFrame()
    if {"llm (sum)", "llm (mean)"} <= set(picks.columns):
        same = (picks["llm (sum)"] == picks["llm (mean)"]).mean()
        out.append(f"Summed and per-token mean log-probabilities pick the same option on {same:.0%} of the "
                   f"{len(picks)} items the LM scored (sums favour short options; means remove that bias).")
    return " ".join(out)
