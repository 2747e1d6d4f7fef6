"""Summarization: extractive lead baselines and ROUGE two ways (the document–summary pairs come from
:meth:`culturelab.turkish_plu.data.Release.summarization`).

The paper scores ROUGE with HF ``evaluate`` (``rouge_score``'s default tokenizer + Porter
stemmer), which keeps only ``[a-z0-9]``: Turkish words are cut at ç, ğ, ı, ö, ş, ü and
distinct words can collapse into the same fragments. We report that *paper-compatible*
variant and a Unicode-aware one (``\\w+`` tokens, Turkish lower-casing, no English stemmer)
from :func:`culturelab.metrics.generation.rouge`.

>>> default_tokens("Düğmeye bas, güç ışığı yanar.")
['d', 'meye', 'bas', 'g', 'yanar']
>>> unicode_tokens("Düğmeye bas, güç ışığı yanar.")
['düğmeye', 'bas', 'güç', 'ışığı', 'yanar']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab.data.validate import DataError, validate_rows
from culturelab.metrics.generation import UnicodeTokenizer, rouge
from culturelab.protocol import Deviations

TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
#: the two ROUGE-L variants, either of which Table 7's ROUGE-L may be (not stated)
ROUGE_L = ("rougeL", "rougeLsum")
#: tokenizer variant → (culturelab tokenizer name, Porter stemmer) — "paper" is HF evaluate's setting
VARIANTS = {"paper (default tokenizer + stemmer)": ("default", True), "unicode": ("unicode", False)}


def default_tokens(text: str, stem: bool = False) -> list[str]:
    """What ``rouge_score``'s default tokenizer makes of a text (optionally Porter-stemmed).

    >>> default_tokens("Şişeleri yıkadım")
    ['i', 'eleri', 'y', 'kad', 'm']"""
    from rouge_score import tokenize

    stemmer = None
    if stem:
        from nltk.stem import porter

        stemmer = porter.PorterStemmer()
    return tokenize.tokenize(text, stemmer)


def unicode_tokens(text: str) -> list[str]:
    """The Unicode-aware tokens (any script, Turkish dotted/dotless I lower-casing).

    >>> unicode_tokens("IŞIK İSTANBUL'A")
    ['ışık', 'istanbul', 'a']
    """
    return UnicodeTokenizer().tokenize(text)


@cache
def _punkt() -> Any:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer()  # untrained Punkt: needs no downloaded model


def sentences(text: str) -> list[str]:
    """Sentence split with NLTK's Punkt algorithm (untrained parameters: works offline for Turkish).

    >>> sentences("Yazıcını aç. Kağıt koy! Hazır mısın? Evet.")
    ['Yazıcını aç.', 'Kağıt koy!', 'Hazır mısın?', 'Evet.']
    """
    return [s.strip() for s in _punkt().tokenize(str(text)) if s.strip()]


def lead(texts: Sequence[str], k: int = 1) -> list[str]:
    """The first ``k`` sentences of each document (the classic extractive baseline).

    >>> lead(["Bir. İki. Üç."], k=2)
    ['Bir. İki.']
    """
    return [" ".join(sentences(t)[:k]) for t in texts]


def lead_baselines(texts: Sequence[str], ks: Sequence[int] = (1, 2, 3)) -> dict[str, list[str]]:
    """``{"lead-k": predictions}`` for each ``k``.

    >>> lead_baselines(["Bir. İki."], ks=(1,))
    {'lead-1': ['Bir.']}"""
    return {f"lead-{k}": lead(texts, k) for k in ks}


def rouge_long(predictions: Sequence[str], references: Sequence[str], ids: Sequence[str], system: str,
               variants: dict[str, tuple[str, bool]] = VARIANTS, types: Sequence[str] = TYPES) -> pd.DataFrame:
    """Per-pair ROUGE F1 (×100) of one system under each tokenizer variant, long form:
    ``id, system, tokenizer, metric, value, valid`` (``valid``: the prediction has a word; an empty
    generation scores 0 and is counted as no answer). ``rougeLsum`` sees one sentence per line (as
    the paper's evaluation, which joins ``sent_tokenize`` output with newlines).

    >>> rouge_long(["Yazıcını aç.", " "], ["Yazıcını aç.", "Kapat."], ["a", "b"], "lm").query(
    ...     "metric == 'rouge1'")[["id", "value", "valid"]].drop_duplicates().values.tolist()
    [['a', 100.0, True], ['b', 0.0, False]]
    """
    answered = [bool(unicode_tokens(p)) for p in predictions]
    preds = ["\n".join(sentences(p)) for p in predictions]
    refs = ["\n".join(sentences(r)) for r in references]
    parts = []
    for name, (tokenizer, stem) in variants.items():
        scores = rouge(preds, refs, types=tuple(types), tokenizer=tokenizer, use_stemmer=stem)
        for metric, values in scores.items():
            parts.append(pd.DataFrame({"id": list(ids), "system": system, "tokenizer": name, "metric": metric,
                                       "value": 100 * np.asarray(values), "valid": answered}))
    return pd.concat(parts, ignore_index=True)


def with_valid_share(table: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """``table`` (a summary of :func:`rouge_long`'s ``scores`` by ``system`` …) with ``valid``: the
    share of the system's pairs it answered with some word (free generation: what its ROUGE rests on).

    >>> scores = rouge_long(["Aç.", ""], ["Aç.", "Kapat."], ["a", "b"], "lm")
    >>> with_valid_share(pd.DataFrame({"system": ["lm"], "mean": [50.0]}), scores)["valid"].tolist()
    [0.5]
    """
    share = scores.drop_duplicates(["system", "id"]).groupby("system")["valid"].mean().rename("valid")
    return table.merge(share, left_on="system", right_index=True, how="left")


def token_loss(texts: Sequence[str]) -> pd.DataFrame:
    """How much of each text the default tokenizer keeps: Unicode word count, default-token count,
    and the share of Unicode words that contain a letter the default tokenizer drops.

    >>> token_loss(["Güç düğmesine bas"]).round(2).values.tolist()
    [[3.0, 4.0, 0.67]]"""
    rows = []
    for t in texts:
        words = unicode_tokens(t)
        damaged = [w for w in words if any(not ("a" <= c <= "z" or c.isdigit()) for c in w)]
        rows.append({"unicode_tokens": len(words), "default_tokens": len(default_tokens(t)),
                     "damaged_word_share": len(damaged) / len(words) if words else 0.0})
    return pd.DataFrame(rows)


def tokenizer_demo(pairs: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """ROUGE-1 F1 of hand-picked (prediction, reference) pairs under both tokenizers, with the
    tokens each one sees.

    >>> tokenizer_demo([("Güç düğmesi.", "Göç dağı.")])["R-1 unicode"].item()
    0.0
    """
    rows = []
    for pred, ref in pairs:
        row: dict[str, Any] = {"prediction": pred, "reference": ref}
        for name, (tokenizer, stem) in VARIANTS.items():
            row[f"R-1 {name}"] = 100 * float(rouge([pred], [ref], ("rouge1",), tokenizer=tokenizer,
                                                   use_stemmer=stem)["rouge1"][0])
        row["default tokens (pred | ref)"] = f"{default_tokens(pred, True)} | {default_tokens(ref, True)}"
        rows.append(row)
    return pd.DataFrame(rows)


def table7_beside(summary: pd.DataFrame, labels: Callable[[Mapping[str, Any]], Deviations]) -> pd.DataFrame:
    """Table 7 beside our systems' mean ROUGE (``system, tokenizer, metric, mean``; the paper's
    tokenizer only): each system beside the Table 7 row it names (a predictions file of one of the
    paper's models, e.g. ``mBART PRO``; our baselines name none), labelled by ``labels`` of the
    system and metric (:func:`culturelab.turkish_plu.protocol.summary_labels`), Δ only where data,
    protocol and model are the paper's; then the paper's rows no system of ours stands beside. Table
    7's ROUGE-L does not say whether it is ``rougeL`` or ``rougeLsum``: both of ours stand beside it,
    each labelled by our reading of it (:data:`ROUGE_L`). Long form: ``model, metric, reported, ours,
    delta`` and the label columns.

    >>> from culturelab.protocol import DataUsed, Deviations
    >>> t = pd.DataFrame({"system": ["mBART PRO"], "tokenizer": [next(iter(VARIANTS))], "metric": ["rouge1"],
    ...                   "mean": [22.0]})
    >>> beside = table7_beside(t, lambda row: Deviations((), DataUsed("released"), row["system"], row["system"]))
    >>> beside.query("model == 'mBART PRO' and metric == 'rouge1'")[["reported", "ours", "delta"]].round(2).values.tolist()
    [[22.62, 22.0, -0.62]]
    """
    from culturelab.reported import compare, load

    reported = load("turkish_plu", "table7")
    tokenizer = next(iter(VARIANTS))
    ours = summary[summary["tokenizer"] == tokenizer].rename(columns={"system": "model", "mean": "value"})
    parts = []
    for system, part in ours.groupby("model", sort=False):
        paper = reported[reported["model"] == system]
        variants = [m for m in ROUGE_L if (part["metric"] == m).any()]
        groups = [(part[~part["metric"].isin(ROUGE_L)], paper[~paper["metric"].isin(ROUGE_L)] if variants else paper, "")]
        groups += [(part[part["metric"] == m], paper[paper["metric"] == "rougeL"].assign(metric=m), m) for m in variants]
        for rows, paper_rows, metric in groups:
            parts.append(compare(paper_rows, rows, on=["model", "metric"], model_row=system if len(paper) else None,
                                 deviations=labels({"system": system, "tokenizer": tokenizer, "metric": metric})))
    rest = reported[~reported["model"].isin(set(ours["model"]))].rename(columns={"value": "reported"})
    return pd.concat([*parts, rest], ignore_index=True)


def rouge_findings(table: pd.DataFrame, *, n_pairs: int, result: bool) -> str:
    """What a run's ROUGE table (:func:`culturelab.stats.summarise` of :func:`rouge_long`: ``system,
    tokenizer, metric, mean``) shows of the two tokenizers, as Markdown sentences rendered from it
    (:mod:`culturelab.report`): how far the paper-compatible ROUGE-1 lies from the Unicode-aware one,
    the best system under each and whether the order of the systems survives, and how far rougeLsum
    lies from rougeL; ``result`` False (:func:`is_result`) says the ``n_pairs`` pairs are an illustration.

    >>> paper, uni = VARIANTS
    >>> t = pd.DataFrame([("lead-1", paper, "rouge1", 30.0), ("lead-1", uni, "rouge1", 20.0),
    ...                   ("lead-2", paper, "rouge1", 25.0), ("lead-2", uni, "rouge1", 24.0),
    ...                   ("lead-1", paper, "rougeL", 28.0), ("lead-1", paper, "rougeLsum", 29.0),
    ...                   ("lead-2", paper, "rougeL", 20.0), ("lead-2", paper, "rougeLsum", 21.0)],
    ...                  columns=["system", "tokenizer", "metric", "mean"])
    >>> print(rouge_findings(t, n_pairs=4, result=False))  # doctest: +NORMALIZE_WHITESPACE
    On this run's 4 pairs (an illustration, not the summarization test split: no number here is a result), the
    paper-compatible ROUGE-1 is higher than the Unicode-aware one for 2 of 2 systems (by 5.5 points on average). The
    best system by ROUGE-1 is lead-1 (30.0) with the paper's tokenizer and lead-2 (24.0) with the Unicode-aware one:
    the order of the 2 systems changes between them. With the paper's tokenizer rougeLsum lies 1.0 points from rougeL
    on average (one sentence per line, as the paper's evaluation formats the texts).
    """
    paper, unicode = list(VARIANTS)
    r1 = table[table["metric"] == "rouge1"].pivot(index="system", columns="tokenizer", values="mean")
    gap = r1[paper] - r1[unicode]
    higher = int((gap > 0).sum())
    order = {tok: list(r1[tok].sort_values(ascending=False, kind="stable").index) for tok in (paper, unicode)}
    scope = f"On this run's {n_pairs} pairs" + ("" if result else " (an illustration, not the summarization test "
                                                "split: no number here is a result)")
    out = [f"{scope}, the paper-compatible ROUGE-1 is higher than the Unicode-aware one for {higher} of {len(gap)} "
           f"systems (by {gap.mean():.1f} points on average)." if gap.mean() >= 0 else
           f"{scope}, the paper-compatible ROUGE-1 is lower than the Unicode-aware one for {len(gap) - higher} of "
           f"{len(gap)} systems (by {-gap.mean():.1f} points on average).",
           f"The best system by ROUGE-1 is {order[paper][0]} ({r1.loc[order[paper][0], paper]:.1f}) with the paper's "
           f"tokenizer and {order[unicode][0]} ({r1.loc[order[unicode][0], unicode]:.1f}) with the Unicode-aware one: "
           f"the order of the {len(gap)} systems "
           + ("is the same under both." if order[paper] == order[unicode] else "changes between them.")]
    lsum = table[table["tokenizer"] == paper].pivot(index="system", columns="metric", values="mean")
    if {"rougeL", "rougeLsum"} <= set(lsum.columns):
        out.append(f"With the paper's tokenizer rougeLsum lies {(lsum['rougeLsum'] - lsum['rougeL']).abs().mean():.1f} "
                   "points from rougeL on average (one sentence per line, as the paper's evaluation formats the texts).")
    return " ".join(out)


#: where summarization pairs can come from that are not the paper's test split
NOT_REAL = {"example": "the 4 method-level pairs of the release's one example tutorial",
            "sample": "pairs written by us"}


def is_result(source: str) -> bool:
    """Whether pairs read from ``source`` (:meth:`~culturelab.turkish_plu.data.Release.summarization`)
    are a summarization set whose scores are a result — a figure may draw them — rather than an
    illustration (:data:`NOT_REAL`: the example tutorial's pairs or ours, shown as a table).

    >>> is_result("local"), is_result("download"), is_result("example")
    (True, True, False)
    """
    return source not in NOT_REAL


def corpus_headlines(corpus: pd.DataFrame) -> list[str]:
    """Every step headline of the corpus (:meth:`~culturelab.turkish_plu.data.Release.corpus`),
    the text a summary of the paper's recipe is made of (its steps' headlines).

    >>> corpus_headlines(pd.DataFrame({"steps": [["Yazıcını aç.", "Kağıt koy."], ["Bas."]]}))
    ['Yazıcını aç.', 'Kağıt koy.', 'Bas.']
    """
    return [str(step) for steps in corpus["steps"] for step in steps]


def warn_if_not_real(source: str, n_pairs: int) -> str | None:
    """Say loudly — a markdown warning in a notebook, a printed line elsewhere, and a Python
    warning — when the pairs are not the summarization set (``source`` ``example`` or ``sample``);
    returns the message (None for real data).

    >>> warn_if_not_real("local", 5984) is None
    True
    """
    if is_result(source):
        return None
    import warnings

    message = (f"⚠️ **No summarization data: these {n_pairs} pairs are {NOT_REAL[source]}, not the paper's "
               "test split (5,984 pairs of ardauzunoglu/tr-wikihow-summ).** Every number below is a demonstration "
               "of the method, not a result; results are stamped data_source=sample. Put a local copy under "
               "<data_dir>/turkish_plu/summarization or pass summ_dir (or data_source: download with internet).")
    try:
        from IPython.display import Markdown, display

        display(Markdown(message))
    except ImportError:  # pragma: no cover - IPython comes with the notebook stack
        print(message)
    warnings.warn(message.replace("*", ""), UserWarning, stacklevel=2)
    return message


def read_summary_predictions(path: str | os.PathLike, ids: Sequence[str]) -> pd.DataFrame:
    """Summaries made elsewhere: a CSV/JSONL/parquet file with ``id`` and ``prediction`` (or
    ``summary_pred``/``generated``/``output``) and optionally ``model``; without ``id`` the rows are
    taken in the order of ``ids`` (their number must match). Returns ``id, prediction, model``."""
    from culturelab.models.replay import read_table

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"summary predictions file not found: {path}")
    table = read_table(path)
    col = next((c for c in ("prediction", "summary_pred", "generated", "output") if c in table.columns), None)
    if col is None:
        raise DataError(f"{path}: needs a column 'prediction' (or summary_pred/generated/output); "
                        f"found {list(table.columns)}")
    if "id" not in table.columns:
        if len(table) != len(ids):
            raise DataError(f"{path}: no 'id' column and {len(table)} rows for {len(ids)} documents")
        table["id"] = list(ids)
    header = 1 if path.suffix.lower() == ".csv" else 0
    validate_rows(table, path, {col: lambda v: isinstance(v, str) or "must be a text"}, header_rows=header)
    model = table["model"].astype(str) if "model" in table.columns else path.stem
    return pd.DataFrame({"id": table["id"].astype(str), "prediction": table[col], "model": model})
