"""Automatic metrics of the paper (§5.1, Tables 3–4), computed correctly — and, with
``compat="coastalcph-2023"``, the way the authors' released script computes them.

Pre-processing as in the paper: headings stripped, newlines → spaces, jieba segmentation for
Chinese (whitespace for English); BLEU and chrF are corpus-level SacreBLEU on the segmented
strings; ROUGE-L is the per-recipe F1 (best reference) averaged, Chinese over characters or jieba
words (:data:`ZH_ROUGE_TOKENIZERS`); BERTScore the per-recipe F1 with the backbone named for each
target language (the paper's bert-base-uncased / bert-base-chinese are hub models; offline,
``bundled:minilm`` serves English and Chinese has none); ``#Tok`` the mean output length. All
scores ×100 except ``#Tok``. How each number differs from the paper's computation is said by the
run's comparison with the paper (:mod:`culturelab.cultural_recipes.protocol`).

The release script (``auto_evaluation/eval_seq2seq.py``) has two defects that ``compat``
reproduces (spec §3.3):

1. it hands SacreBLEU the per-recipe reference lists as if they were reference *streams*, so
   only the **first** hypothesis is scored, against all references (BLEU/chrF);
2. for Chinese ROUGE-L it splits ``' '.join(list(segmented))`` on single spaces, which turns the
   segmentation spaces into **empty-string tokens** that match each other.

>>> preds = ["the cat sat on the mat", "a dog ran", "hello world"]
>>> refs = [["the cat sat on a mat"], ["the dog ran home"], ["goodbye world"]]
>>> round(corpus_scores(preds, refs, "en")["BLEU"], 1), round(corpus_scores(preds, refs, "en", compat="coastalcph-2023")["BLEU"], 1)
(42.8, 53.7)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab.cultural_recipes.data import LANGS, strip_headings, tokenize
from culturelab.cultural_recipes.protocol import is_model_free
from culturelab.metrics import generation as gen
from culturelab.protocol import Deviations
from culturelab.reported import compare
from culturelab.stats import bootstrap_ci

COMPAT = ("coastalcph-2023",)
METRICS = ("BLEU", "ChrF", "R-L", "B-Sc", "#Tok")
#: why an adaptation-metric figure has no chance line (Source copy is its floor)
NO_CHANCE = "BLEU, ChrF and ROUGE-L have no chance level; Source copy (no adaptation) is the floor"
#: the units of Chinese ROUGE-L: characters (what the release's script meant) or jieba words (the paper, fn. 13)
ZH_ROUGE_TOKENIZERS = ("char", "jieba")
#: the statuses of the paper's Table 4 cells whose place is certain (``reported/cultural_recipes/README.md``:
#: in column order, or assignable from the extraction order and the text): a Δ is printed only against these
CERTAIN_CELLS = ("clean", "scrambled-sure")
#: the BERTScore backbones when none are named: MiniLM for English (bundled), none for Chinese
DEFAULT_BACKBONES: dict[str, str | None] = {"en": "bundled:minilm", "zh": None}


def segment(text: str, lang: str) -> list[str]:
    """Evaluation tokens: jieba segments (zh) or whitespace tokens (en), headings stripped."""
    return tokenize(strip_headings(text), lang)


def _joined(text: str, lang: str) -> str:
    return " ".join(segment(text, lang))


class _ReleaseCharSplit:
    """The release's Chinese ROUGE tokenizer: characters of the *segmented* string, split on
    single spaces — segmentation spaces become empty tokens."""

    def tokenize(self, text: str) -> list[str]:
        return " ".join(list(text)).split(" ")


def _check(predictions: Sequence[str], references: Sequence[Sequence[str]], lang: str, compat: str | None) -> None:
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} reference lists")
    if any(not r for r in references):
        raise ValueError("every prediction needs at least one reference")
    if lang not in {"zh", "en"}:
        raise ValueError(f"lang must be 'zh' or 'en', not {lang!r}")
    if compat not in (None, *COMPAT):
        raise ValueError(f"compat must be None or one of {COMPAT}, not {compat!r}")


def rouge_l_best(predictions: Sequence[str], references: Sequence[Sequence[str]], lang: str, *,
                 compat: str | None = None, zh_tokenizer: str = "char") -> np.ndarray:
    """Per-recipe ROUGE-L F1 against the best of its references (on segmented text).

    Corrected: English with rouge-score's tokenizer, Chinese by character (``zh_tokenizer="char"``,
    the unit the release meant) or by jieba word (``"jieba"``).

    >>> a, b = "红豆 汤 很 甜", "绿豆 粥 不 咸"
    >>> float(rouge_l_best([a], [[b]], "zh").round(2)[0]), float(rouge_l_best([a], [[b]], "zh", compat="coastalcph-2023").round(2)[0])
    (0.2, 0.64)
    """
    from rouge_score import rouge_scorer

    flat_p = [p for p, refs in zip(predictions, references) for _ in refs]
    flat_r = [r for refs in references for r in refs]
    owner = np.repeat(np.arange(len(predictions)), [len(r) for r in references])
    if compat and lang == "zh":
        scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=False, tokenizer=_ReleaseCharSplit())
        flat = np.array([scorer.score(r, p)["rougeLsum"].fmeasure for p, r in zip(flat_p, flat_r)])
    else:
        tokenizer = "default" if lang == "en" else zh_tokenizer
        if lang == "zh" and tokenizer not in ZH_ROUGE_TOKENIZERS:
            raise ValueError(f"zh_tokenizer must be 'char' or 'jieba', not {tokenizer!r}")
        flat = gen.rouge_l(flat_p, flat_r, tokenizer=tokenizer) if flat_p else np.zeros(0)
    best = np.full(len(predictions), -np.inf)
    np.maximum.at(best, owner, flat)
    return best


def bertscore_best(predictions: Sequence[str], references: Sequence[Sequence[str]], *, model: str | None,
                   lang: str = "en") -> np.ndarray:
    """Per-recipe BERTScore F1 against the best reference; NaN without a backbone."""
    if not model:
        return np.full(len(predictions), np.nan)
    flat_p = [p for p, refs in zip(predictions, references) for _ in refs]
    flat_r = [r for refs in references for r in refs]
    owner = np.repeat(np.arange(len(predictions)), [len(r) for r in references])
    flat = gen.bertscore(flat_p, flat_r, model=model, lang=lang)
    best = np.full(len(predictions), -np.inf)
    np.maximum.at(best, owner, flat)
    return best


def _corpus_interval(metric: Any, preds: list[str], streams: list[list[str | None]], n_bootstrap: int, *,
                     seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap 95 % interval of a SacreBLEU corpus metric: recipes resampled with
    replacement, the corpus score recomputed from the resampled segment statistics (as
    SacreBLEU's own paired bootstrap does)."""
    if n_bootstrap < 2 or len(preds) < 2:
        return float("nan"), float("nan")
    stats = np.asarray(metric._extract_corpus_statistics(preds, streams), dtype=float)
    rows = np.random.default_rng(seed).integers(0, len(stats), size=(n_bootstrap, len(stats)))
    scores = [metric._compute_score_from_stats(stats[r].sum(axis=0)).score for r in rows]
    return float(np.percentile(scores, 2.5)), float(np.percentile(scores, 97.5))


def corpus_scores(predictions: Sequence[str], references: Sequence[Sequence[str]], lang: str, *,
                  compat: str | None = None, bertscore_model: str | None = None, zh_tokenizer: str = "char",
                  bertscore_values: np.ndarray | None = None, n_bootstrap: int = 0) -> dict[str, float]:
    """BLEU, chrF, ROUGE-L, BERTScore and #Tok of one system on one test set (×100).

    ``bertscore_values`` (per-recipe F1 already computed) skips loading the backbone again.
    ``n_bootstrap`` > 1 adds a 95 % percentile bootstrap interval of each metric (``BLEU_ci_low``,
    ``BLEU_ci_high``, …: the corpus score recomputed for BLEU and chrF, the mean for ROUGE-L and
    BERTScore — recipes resampled; none for the release-compatible BLEU/chrF, which score one
    hypothesis).
    """
    import sacrebleu
    from sacrebleu.metrics import BLEU, CHRF

    _check(predictions, references, lang, compat)
    preds = [_joined(p, lang) for p in predictions]
    refs = [[_joined(r, lang) for r in rs] for rs in references]
    intervals: dict[str, tuple[float, float]] = {}
    if compat:  # the release's call: per-recipe lists where streams are expected
        bleu = sacrebleu.corpus_bleu(preds, refs).score
        chrf = sacrebleu.corpus_chrf(preds, refs).score
    else:
        streams = gen.reference_streams(refs)
        bleu = gen.bleu(preds, streams)
        chrf = gen.chrf(preds, streams)
        intervals["BLEU"] = _corpus_interval(BLEU(), preds, streams, n_bootstrap)
        intervals["ChrF"] = _corpus_interval(CHRF(), preds, streams, n_bootstrap)
    rl = rouge_l_best(preds, refs, lang, compat=compat, zh_tokenizer=zh_tokenizer)
    if bertscore_values is None:
        bertscore_values = bertscore_best([strip_headings(p) for p in predictions],
                                          [[strip_headings(r) for r in rs] for rs in references],
                                          model=bertscore_model, lang=lang)
    bs = np.asarray(bertscore_values, dtype=float)
    scores = {"BLEU": float(bleu), "ChrF": float(chrf), "R-L": float(np.mean(rl) * 100),
              "B-Sc": float(np.mean(bs) * 100) if len(bs) and not np.isnan(bs).all() else float("nan"),
              "#Tok": float(np.mean([len(p.split()) for p in preds]))}
    if n_bootstrap > 1:
        for name, values in (("R-L", np.asarray(rl) * 100), ("B-Sc", bs * 100)):
            intervals[name] = bootstrap_ci(values, n_resamples=n_bootstrap)
        for name in ("BLEU", "ChrF", "R-L", "B-Sc"):
            low, high = intervals.get(name, (float("nan"), float("nan")))
            scores[f"{name}_ci_low"], scores[f"{name}_ci_high"] = low, high
    return scores


def segment_scores(predictions: Sequence[str], references: Sequence[Sequence[str]], lang: str, *,
                   bertscore_model: str | None = None, zh_tokenizer: str = "char",
                   bertscore_values: np.ndarray | None = None) -> pd.DataFrame:
    """Per-recipe scores for correlation with human ratings: sentence BLEU and chrF (SacreBLEU,
    all references), ROUGE-L, BERTScore (×100) and #Tok."""
    import sacrebleu

    _check(predictions, references, lang, None)
    preds = [_joined(p, lang) for p in predictions]
    refs = [[_joined(r, lang) for r in rs] for rs in references]
    raw_p = [strip_headings(p) for p in predictions]
    raw_r = [[strip_headings(r) for r in rs] for rs in references]
    return pd.DataFrame({
        "BLEU": [sacrebleu.sentence_bleu(p, rs).score for p, rs in zip(preds, refs)],
        "ChrF": [sacrebleu.sentence_chrf(p, rs).score for p, rs in zip(preds, refs)],
        "R-L": rouge_l_best(preds, refs, lang, zh_tokenizer=zh_tokenizer) * 100,
        "B-Sc": (bertscore_best(raw_p, raw_r, model=bertscore_model, lang=lang) if bertscore_values is None
                 else np.asarray(bertscore_values, dtype=float)) * 100,
        "#Tok": [len(p.split()) for p in preds]})


def backbones(params: Mapping[str, str | None]) -> dict[str, str | None]:
    """The BERTScore backbone of each target language from a notebook's ``bertscore_en`` /
    ``bertscore_zh`` parameters (an empty string: none, the language gets no BERTScore).

    >>> backbones({"bertscore_en": "bert-base-uncased", "bertscore_zh": ""})
    {'en': 'bert-base-uncased', 'zh': None}
    """
    return {lang: params.get(f"bertscore_{lang}") or None for lang in ("en", "zh")}


def per_output_bertscore(outputs: pd.DataFrame, bertscore: dict[str, str | None] | None = None) -> np.ndarray:
    """Per-row BERTScore F1 of an adaptation table, one backbone load per target language
    (``bertscore``: language → backbone, default :data:`DEFAULT_BACKBONES`; NaN where the
    language has none)."""
    bertscore = DEFAULT_BACKBONES if bertscore is None else bertscore
    values = np.full(len(outputs), np.nan)
    langs = outputs["direction"].map(lambda d: LANGS[d][1]).to_numpy()
    for lang in ("en", "zh"):
        rows = np.flatnonzero(langs == lang)
        if len(rows) and bertscore.get(lang):
            part = outputs.iloc[rows]
            values[rows] = bertscore_best([strip_headings(p) for p in part["prediction"]],
                                          [[strip_headings(r) for r in rs] for rs in part["references"]],
                                          model=bertscore[lang], lang=lang)
    return values


def score_outputs(outputs: pd.DataFrame, *, compat: str | Sequence[str | None] | None = None,
                  bertscore: dict[str, str | None] | None = None, zh_tokenizer: str = "char",
                  by: Sequence[str] = ("direction", "split", "system"),
                  bertscore_values: np.ndarray | None = None, n_bootstrap: int = 0) -> pd.DataFrame:
    """Score every system of an adaptation table (see :mod:`.adaptation`): one row per group
    (and per ``compat`` setting when a list is given) with ``n``, ``invalid`` (outputs not in the
    target language — still scored) and the metrics.

    ``bertscore`` maps the target language to a backbone spec (:func:`backbones`; default
    :data:`DEFAULT_BACKBONES`); BERTScore is computed once and shared by all ``compat`` settings (it has no defect);
    pass ``bertscore_values`` (:func:`per_output_bertscore`) to reuse it across calls.
    ``n_bootstrap`` > 1 adds each metric's 95 % interval (:func:`corpus_scores`).
    """
    settings = list(compat) if isinstance(compat, (list, tuple)) else [compat]
    outputs = outputs.reset_index(drop=True)
    bs_all = per_output_bertscore(outputs, bertscore) if bertscore_values is None else bertscore_values
    rows = []
    for setting in settings:
        for key, part in outputs.groupby(list(by), sort=False, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            meta = dict(zip(by, key))
            lang = LANGS[part["direction"].iloc[0]][1]
            scores = corpus_scores(part["prediction"].tolist(), part["references"].tolist(), lang, compat=setting,
                                   zh_tokenizer=zh_tokenizer, bertscore_values=bs_all[part.index.to_numpy()],
                                   n_bootstrap=n_bootstrap)
            rows.append({**meta, "n": len(part), "invalid": int((~part["valid"].astype(bool)).sum()), **scores,
                         "compat": setting or "corrected"})
    return pd.DataFrame(rows)


def score_segments(outputs: pd.DataFrame, *, bertscore: dict[str, str | None] | None = None,
                   zh_tokenizer: str = "char", bertscore_values: np.ndarray | None = None) -> pd.DataFrame:
    """Per-output scores (:func:`segment_scores`) for every row of an adaptation table, aligned
    with its rows (``bertscore_values`` as in :func:`score_outputs`)."""
    outputs = outputs.reset_index(drop=True)
    bs_all = per_output_bertscore(outputs, bertscore) if bertscore_values is None else bertscore_values
    parts = []
    for direction, part in outputs.groupby("direction", sort=False):
        seg = segment_scores(part["prediction"].tolist(), part["references"].tolist(), LANGS[direction][1],
                             zh_tokenizer=zh_tokenizer, bertscore_values=bs_all[part.index.to_numpy()])
        parts.append(seg.set_index(part.index))
    return pd.concat(parts).sort_index() if parts else pd.DataFrame(columns=list(METRICS))


def per_output(outputs: pd.DataFrame, segments: pd.DataFrame) -> pd.DataFrame:
    """One row per output of an adaptation table with its per-output scores (:func:`score_segments`,
    aligned with its rows): the ids, ``prompt``, ``prediction``, ``valid``, ``target_share`` and the
    metrics, without the source and reference texts (what ``culturelab evaluate`` reads).

    >>> out = pd.DataFrame({"recipe_id": ["r1"], "direction": ["zh2en"], "split": ["gold"], "system": ["m"],
    ...                     "source_text": ["红豆汤"], "prompt": ["p"], "raw_output": ["Soup"], "prediction": ["Soup"],
    ...                     "references": [["Red bean soup"]], "valid": [True], "target_share": [1.0]})
    >>> per_output(out, pd.DataFrame({"ChrF": [30.0]})).columns.tolist()[-3:]
    ['valid', 'target_share', 'ChrF']
    """
    if len(segments) != len(outputs):
        raise ValueError(f"per_output: {len(segments)} score rows for {len(outputs)} outputs")
    kept = outputs.drop(columns=["source_text", "references"]).reset_index(drop=True)
    return pd.concat([kept, segments.reset_index(drop=True)], axis=1)


def long_form(scores: pd.DataFrame, id_columns: Sequence[str] = ("direction", "split", "system", "compat", "n")
              ) -> pd.DataFrame:
    """Wide metric columns → one row per metric (``metric``, ``value``, and ``ci_low``/``ci_high``
    where the scores carry intervals), as the reported tables.

    >>> s = pd.DataFrame({"system": ["x"], "BLEU": [20.0], "BLEU_ci_low": [15.0], "BLEU_ci_high": [25.0]})
    >>> long_form(s).to_dict("records")
    [{'system': 'x', 'metric': 'BLEU', 'value': 20.0, 'ci_low': 15.0, 'ci_high': 25.0}]
    """
    ids = [c for c in id_columns if c in scores.columns]
    metrics = [m for m in METRICS if m in scores.columns]
    long = scores.melt(id_vars=ids, value_vars=metrics, var_name="metric", value_name="value")
    for bound in ("ci_low", "ci_high"):
        if any(f"{m}_{bound}" in scores for m in metrics):
            long[bound] = np.concatenate([scores.get(f"{m}_{bound}", pd.Series(np.nan, index=scores.index)).to_numpy()
                                          for m in metrics])
    return long


def compare_with_paper(ours: pd.DataFrame, reported: pd.DataFrame,
                       deviations_of: Callable[[Mapping[str, str]], Deviations],
                       system_map: dict[str, str] | None = None) -> pd.DataFrame:
    """Reported vs ours per (direction, method, compat, metric) for the systems the paper has
    (``system_map`` renames ours to its method names), each group labelled by
    ``deviations_of({"system", "direction", "metric", "compat"})`` (the run's comparison with the
    paper, :func:`culturelab.cultural_recipes.protocol.labeller`): Δ only where data and protocol
    are the paper's and a model's row was computed with that model. ``status`` marks the paper's
    scrambled cells (Table 4): a cell whose place in the table is not certain (any status but
    :data:`CERTAIN_CELLS`) gets no Δ, its status reads ``uncertain cell (…)``. Metrics we did not
    compute are left out.

    >>> from culturelab.protocol import compare as cmp
    >>> ours = pd.DataFrame({"direction": ["zh2en"], "system": ["Retrieval"], "compat": ["corrected"], "BLEU": [20.0]})
    >>> rep = pd.DataFrame({"direction": ["zh2en"], "method": ["Retrieval"], "metric": ["BLEU"], "value": [21.0]})
    >>> compare_with_paper(ours, rep, lambda group: cmp(None, {}))[["ours", "reported", "delta"]].values.tolist()
    [[20.0, 21.0, -1.0]]
    >>> t = compare_with_paper(ours, rep.assign(status="scrambled-likely"), lambda group: cmp(None, {}))
    >>> t[["delta", "comparable", "status"]].values.tolist()
    [[nan, False, 'uncertain cell (scrambled-likely)']]
    """
    on = ["direction", "method", "metric"]
    mine = long_form(ours).assign(method=lambda t: t["system"].map(lambda s: (system_map or {}).get(s, s)))
    mine = mine.merge(reported[on].drop_duplicates(), on=on, how="inner").dropna(subset=["value"])
    columns = ["system", *on, "compat", "reported", "ours", "delta", "data", "protocol", "model_status", "comparable"]
    parts = []
    for (system, direction, metric, setting), part in mine.groupby(["system", "direction", "metric", "compat"],
                                                                   sort=False):
        deviations = deviations_of({"system": system, "direction": direction, "metric": metric, "compat": setting})
        model_row = None if is_model_free(system) else part["method"].iloc[0]
        parts.append(compare(reported.merge(part[on].drop_duplicates(), on=on), part, on=on, deviations=deviations,
                             model_row=model_row).assign(system=system, compat=setting))
    if not parts:
        return pd.DataFrame(columns=[*columns, "status"])
    table = pd.concat(parts, ignore_index=True)[columns].reset_index(drop=True)
    status = reported.set_index(on)["status"] if "status" in reported else None
    table["status"] = [status.get((d, m, k), "") for d, m, k in zip(table["direction"], table["method"],
                                                                     table["metric"])] if status is not None else ""
    uncertain = ~table["status"].isin(["", *CERTAIN_CELLS])
    table.loc[uncertain, "delta"] = float("nan")
    table.loc[uncertain, "comparable"] = False
    table.loc[uncertain, "status"] = "uncertain cell (" + table.loc[uncertain, "status"] + ")"
    return table


def _span(values: pd.Series) -> str:
    low, high = (round(float(v), 1) + 0.0 for v in (values.min(), values.max()))  # + 0.0: no "-0.0"
    return f"{low:+.1f}" if low == high else f"{low:+.1f} to {high:+.1f}"


def release_findings(scores: pd.DataFrame, compat: str = "coastalcph-2023") -> str:
    """How the release-compatible scores (``compat``) differ from the corrected ones in this run,
    as Markdown written from ``scores`` (:func:`score_outputs`; the references, which score
    themselves, left out): per direction the range of release − corrected BLEU and chrF over
    the systems, and for Chinese targets whether ROUGE-L is higher with the release's
    empty-token matching for every system — the spec's prediction — or not.

    >>> s = pd.DataFrame({"direction": "en2zh", "split": "gold", "system": ["A", "A", "B", "B"],
    ...                   "compat": ["corrected", "coastalcph-2023"] * 2, "BLEU": [10.0, 12.0, 5.0, 4.0],
    ...                   "ChrF": [20.0, 20.0, 9.0, 9.0], "R-L": [30.0, 50.0, 20.0, 35.0]})
    >>> print(release_findings(s))  # doctest: +NORMALIZE_WHITESPACE
    **The release script's computation** (release − corrected, over 2 systems): en→zh BLEU -1.0 to +2.0,
    chrF +0.0, Chinese ROUGE-L +15.0 to +20.0 — higher for every system, as the spec predicts from its
    empty-token matching.
    >>> _span(pd.Series([-0.01, 4.7]))
    '+0.0 to +4.7'
    >>> print(release_findings(s.assign(compat="corrected")))
    Only the corrected computation ran here (no coastalcph-2023 scores).
    """
    from culturelab.cultural_recipes.data import ARROWS

    shown = scores[~scores["system"].str.startswith("Ref = ")]
    if compat not in set(shown["compat"]):
        return f"Only the corrected computation ran here (no {compat} scores)."
    keys = ["direction", "split", "system"]
    corrected = shown[shown["compat"] == "corrected"].set_index(keys)
    release = shown[shown["compat"] == compat].set_index(keys)
    both = corrected.index.intersection(release.index)
    parts = []
    for direction in dict.fromkeys(both.get_level_values("direction")):
        rows = [k for k in both if k[0] == direction]
        diff = release.loc[rows, ["BLEU", "ChrF", "R-L"]] - corrected.loc[rows, ["BLEU", "ChrF", "R-L"]]
        text = f"{ARROWS[direction]} BLEU {_span(diff['BLEU'])}, chrF {_span(diff['ChrF'])}"
        if LANGS[direction][1] == "zh":
            higher = int((diff["R-L"] > 0).sum())
            verdict = ("higher for every system, as the spec predicts from its empty-token matching"
                       if higher == len(diff) else
                       f"higher for {higher} of {len(diff)} systems, not every one as the spec predicts")
            text += f", Chinese ROUGE-L {_span(diff['R-L'])} — {verdict}"
        parts.append(text)
    n = len({k[2] for k in both})
    return f"**The release script's computation** (release − corrected, over {n} systems): " + "; ".join(parts) + "."


def delta_findings(side: pd.DataFrame) -> str:
    """How many of this run's numbers beside the paper's (:func:`compare_with_paper`) carry a Δ —
    those whose data, protocol and model are the paper's — as Markdown written from ``side``.

    >>> side = pd.DataFrame({"system": ["Retrieval", "Retrieval"], "delta": [1.5, float("nan")],
    ...                      "comparable": [True, False], "data": ["same", "sample data (ours, not the paper's)"]})
    >>> print(delta_findings(side))  # doctest: +NORMALIZE_WHITESPACE
    **Beside the paper**: 1 of 2 of our numbers have a counterpart with the paper's data, protocol and model and
    carry a Δ; the others say in their labels what differs.
    >>> delta_findings(side.iloc[:0])
    '**Beside the paper**: no system of this run has a counterpart in the paper.'
    """
    if side.empty:
        return "**Beside the paper**: no system of this run has a counterpart in the paper."
    with_delta = int(side["delta"].notna().sum())
    rest = "; the others say in their labels what differs." if with_delta < len(side) else "."
    return (f"**Beside the paper**: {with_delta} of {len(side)} of our numbers have a counterpart with the paper's "
            f"data, protocol and model and carry a Δ{rest}")
