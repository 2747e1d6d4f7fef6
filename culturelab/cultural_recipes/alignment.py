"""The paper's §4 pipeline: monolingual word2vec → mapping with 15 seed pairs → top-5 BLI of the
100 most frequent Chinese content words → Table 2 view and P@5.

:func:`embed_corpus` tokenises a corpus once (jieba / regex) into ``<cache>/corpora`` and trains
word2vec from that file (gensim ``corpus_file`` mode) with the paper's settings
(:data:`WORD2VEC`); :func:`align_and_translate` maps zh onto en and retrieves the neighbours of
the queries; :func:`bli_summary` and :func:`label_shares` put ours next to the paper's §4.2
numbers (``culturelab/reported/cultural_recipes/bli.csv``). The label is **automatic**
(:data:`culturelab.embeddings.bli.LABELS`: CC-CEDICT glosses for ``literal``, our taxonomy of
cooking words for ``near-literal`` / ``cultural`` / ``error``, ``unlabelled`` where neither can
judge); ``manual_label`` stays empty for the human pass the paper made.

>>> reported_bli()[["P@5", "cultural (of misses)", "error (of misses)"]].tolist()
[0.68, 26.0, 6.0]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from culturelab import config
from culturelab.cultural_recipes import corpus as corpus_mod
from culturelab.cultural_recipes import lexicon
from culturelab.cultural_recipes.corpus import Corpora, Recipes
from culturelab.embeddings import bli
from culturelab.embeddings.align import AlignmentResult, VecMap
from culturelab.embeddings.fit_cache import cached_fit
from culturelab.embeddings.vectors import Embeddings
from culturelab.embeddings.word2vec import train_word2vec, write_tokenized
from culturelab.plots.recipe import drawing
from culturelab.protocol import Deviations
from culturelab.reported import compare as compare_reported
from culturelab.reported import load as load_reported
from culturelab.stats import proportion_ci

#: the paper's word2vec (§4.1, fn. 10) as gensim 4 options: skip-gram, 300 dimensions, 5 epochs,
#: min count 10, window 5, 10 negative samples
WORD2VEC: dict[str, Any] = {"sg": 1, "hs": 0, "vector_size": 300, "epochs": 5, "min_count": 10, "window": 5,
                            "negative": 10}


def reported_bli() -> pd.Series:
    """The paper's §4.2 numbers (``reported/cultural_recipes/bli.csv``) by quantity: P@5 over
    the queries, and the split of the misses into cultural equivalents and errors.

    >>> reported_bli()[["queries", "P@5"]].tolist()
    [100.0, 0.68]
    """
    return load_reported("cultural_recipes", "bli").set_index("quantity")["value"]


def embed_corpus(recipes: Recipes, lang: str, *, name: str, max_recipes: int | None = None, scope: str = "full",
                 seed: int = 0, workers: int = 1, progress: bool = True, **w2v: Any
                 ) -> tuple[Embeddings, dict[str, int]]:
    """Tokenise a corpus (file or recipe factory) once and train word2vec on it with
    :data:`WORD2VEC` (``w2v`` overrides any of them).

    Returns the embeddings (most frequent first; ``Embeddings.name`` records the corpus) and
    the word counts of its vocabulary. The tokenised file is cached under
    ``<cache>/corpora/<name>-<hash>.txt`` keyed by the source, language and size.
    """
    key = json.dumps({"src": str(recipes) if not callable(recipes) else name, "lang": lang, "max": max_recipes,
                      "scope": scope}, sort_keys=True)
    if not callable(recipes):
        stat = Path(recipes).stat()
        key += f"{stat.st_size}-{stat.st_mtime_ns}"
    tokenized = config.cache_dir() / "corpora" / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.txt"
    if not tokenized.is_file() or callable(recipes):
        tmp = tokenized.with_suffix(".part")
        write_tokenized(corpus_mod.sentences(recipes, lang, max_recipes=max_recipes, scope=scope), tmp)
        tmp.replace(tokenized)
    kv = train_word2vec(corpus_file=tokenized, seed=seed, workers=workers, progress=progress, **{**WORD2VEC, **w2v})
    counts = {w: int(kv.get_vecattr(w, "count")) for w in kv.index_to_key}
    return Embeddings.from_keyed_vectors(kv, lang, name), counts


def embed_corpora(corpora: Corpora, **kw: Any) -> tuple[Embeddings, Embeddings, dict[str, int]]:
    """:func:`embed_corpus` on both corpora of a run: the Chinese and English embeddings and
    the Chinese word counts (the queries are chosen from them)."""
    zh, zh_counts = embed_corpus(corpora.zh, "zh", name=f"{corpora.name}-zh", max_recipes=corpora.max_recipes, **kw)
    en, _ = embed_corpus(corpora.en, "en", name=f"{corpora.name}-en", max_recipes=corpora.max_recipes, **kw)
    return zh, en, zh_counts


def select_queries(counts: dict[str, int], *, n: int = 100, seed_variant: str = "paper") -> list[str]:
    """The paper's queries: the ``n`` most frequent Chinese content words (``0``: all), seed words
    excluded."""
    return corpus_mod.content_words(counts, n=n, exclude={zh for zh, _ in lexicon.seed_pairs(seed_variant)})


def relations(corpora: Corpora, queries: list[str], *, seed_variant: str = "paper"
              ) -> tuple[dict[str, set[str]], dict[str, dict[str, str]]]:
    """What labels the neighbours of ``queries``: their literal translations and their related
    English words (:func:`culturelab.cultural_recipes.lexicon.related_words`) — the corpora's own
    gold lexicon (our toy sample), else CC-CEDICT glosses (and the seed pairs) and our taxonomy.

    >>> literal, related = relations(corpus_mod.corpora(max_recipes=1), ["蒸"])
    >>> "steam" in literal["蒸"], related["蒸"]["bake"]
    (True, 'cultural')
    """
    if corpora.literal is not None:
        return corpora.literal, corpora.related
    literal = lexicon.literal_translations(queries, seed_variant=seed_variant)
    return literal, lexicon.related_words(queries, literal)


def align_and_translate(zh: Embeddings, en: Embeddings, queries: list[str], *, mode: str = "acl2017_seed",
                        seed_variant: str = "paper", k: int = 5, retrieval: str = "nn", device: str = "auto",
                        seed: int = 0, progress: bool = True, literal: dict[str, set[str]] | None = None,
                        related: dict[str, dict[str, str]] | None = None, budget_mb: int = 512,
                        stochastic_interval: int = 0, **overrides: Any
                        ) -> tuple[AlignmentResult, pd.DataFrame, pd.DataFrame]:
    """Map zh → en (Chinese is the query side, as in the paper) and list each query's top-``k``
    English neighbours. Returns the fit, the long neighbour table and the Table 2 view.
    ``stochastic_interval`` 0 keeps the mode's VecMap preset (:func:`preset_unless`); ``overrides``
    set any other field of :class:`~culturelab.embeddings.presets.MappingConfig`.

    ``literal``/``related`` (:func:`culturelab.embeddings.bli.table2_view`) default to CC-CEDICT
    glosses and our taxonomy (:func:`culturelab.cultural_recipes.lexicon.related_words`). Every similarity
    matrix (dictionary induction, CSLS, retrieval) is computed in row blocks of at most
    ``budget_mb`` MiB, so memory does not grow with the vocabularies. The fit is read from the
    on-disk cache when these vectors, seeds and settings were mapped before
    (:func:`culturelab.embeddings.fit_cache.cached_fit`).
    """
    seeds = lexicon.seed_pairs(seed_variant) if mode not in {"identical", "unsupervised"} else None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # OOV seed pairs are reported in the summary
        mapper = VecMap(mode, device=device, seed=seed, progress=progress, budget_mb=budget_mb,
                        **preset_unless(stochastic_interval=stochastic_interval), **overrides)
        result = cached_fit(mapper, zh.vectors, en.vectors, seeds, src_words=zh.words, trg_words=en.words)
    table = bli.neighbours(queries, result.xw, result.zw, zh.words, en.words, k=k, retrieval=retrieval,
                           device=device, budget_mb=budget_mb)
    literal = literal if literal is not None else lexicon.literal_translations(queries, seed_variant=seed_variant)
    related = related if related is not None else lexicon.related_words(queries, literal)
    view = bli.table2_view(table, literal, related, k=k)
    return result, table, view


def preset_unless(**settings: int) -> dict[str, int]:
    """The mapping settings a notebook parameter overrides: those not 0 (0 keeps the mode's VecMap
    preset, e.g. ``stochastic_interval`` 50, or 1 for ``acl2017_seed``).

    >>> preset_unless(stochastic_interval=0), preset_unless(stochastic_interval=8)
    ({}, {'stochastic_interval': 8})
    """
    return {key: value for key, value in settings.items() if value}


#: what our labels are, beside every number they give (the paper's were the authors' judgement)
AUTOMATIC_LABELS = "automatic labels (CC-CEDICT glosses + our taxonomy, its class splits drawn with Table 2 in view)"
#: the same for our toy sample, whose labels come from the lexicon it was generated from
TOY_LABELS = "automatic labels (the toy sample's gold lexicon)"


def labels_of(corpora: Corpora) -> str:
    """What labels a run's neighbours: the corpora's own gold lexicon, else CC-CEDICT and our taxonomy.

    >>> labels_of(corpus_mod.corpora(max_recipes=1)) == TOY_LABELS
    True
    """
    return AUTOMATIC_LABELS if corpora.literal is None else TOY_LABELS


def label_counts(view: pd.DataFrame) -> pd.Series:
    """Queries per automatic label (:data:`culturelab.embeddings.bli.LABELS`, all of them, zeros
    included) of a Table 2 view.

    >>> label_counts(pd.DataFrame({"label": ["literal", "error", "literal"]})).to_dict()
    {'literal': 2, 'near-literal': 0, 'cultural': 0, 'error': 1, 'unlabelled': 0}
    """
    return view["label"].value_counts().reindex(list(bli.LABELS), fill_value=0).astype(int)


def bli_summary(view: pd.DataFrame, deviations: Deviations, *, k: int = 5, labels: str = AUTOMATIC_LABELS
                ) -> pd.DataFrame:
    """P@k and the split of the misses by automatic label (:func:`label_counts`), beside the
    paper's hand-judged numbers, labelled by ``deviations`` (the run's comparison with the paper,
    ``run.deviations(labels=labels)``; :func:`culturelab.reported.compare`: ``delta``
    only where data and protocol are the paper's). P@k is the paper's N@k / N over **every**
    query (§4.2: "N is the total number of pairs"), as in the label figure; ``P@k (glossed queries
    only)`` — ours, the paper has none — leaves out the queries no dictionary glosses (no literal
    translation known to our labeller). ``unlabelled`` queries (no gloss, or a miss without a
    taxonomy class) are counted apart; the paper has no ``near-literal`` or ``unlabelled``.
    ``labels`` names ours as automatic (:func:`labels_of`).

    >>> from culturelab.protocol import DataUsed, compare
    >>> v = pd.DataFrame({"label": ["literal"] * 3 + ["cultural", "error", "unlabelled"],
    ...                   "label_note": [""] * 5 + ["no literal translation known (no dictionary gloss)"]})
    >>> t = bli_summary(v, compare(None, {}, DataUsed("sample"))).set_index("quantity")
    >>> t.loc[["P@5", "P@5 (glossed queries only)"], ["ours", "n"]].values.tolist(), bool(t["delta"].isna().all())
    ([[0.5, 6.0], [0.6, 5.0]], True)
    >>> t.loc[["cultural (of misses)", "near-literal (of misses)"], ["ours", "reported"]].values.tolist()
    [[1.0, 26.0], [0.0, nan]]
    """
    ref = reported_bli()
    n = len(view)
    counts = label_counts(view)
    notes = view["label_note"] if "label_note" in view else pd.Series("", index=view.index)
    judged = n - int(((view["label"] == "unlabelled") & notes.str.contains("gloss")).sum())
    p_name = f"P@{k}"
    quantities = {p_name: (counts["literal"] / n if n else np.nan, n),
                  f"{p_name} (glossed queries only)": (counts["literal"] / judged if judged else np.nan, judged),
                  "queries": (n, n)}
    quantities |= {f"{label} (of misses)": (counts[label], n) for label in bli.LABELS[1:-1]}
    quantities["unlabelled"] = (counts["unlabelled"], n)
    ours = pd.DataFrame({"quantity": list(quantities), "value": [float(v) for v, _ in quantities.values()]})
    rows = [r for r in ("P@5", "queries", "cultural (of misses)", "error (of misses)") if r in quantities]
    paper = pd.DataFrame({"quantity": rows, "value": [float(ref[r]) for r in rows]})
    table = compare_reported(paper, ours, on=["quantity"], deviations=deviations)
    table = table.set_index("quantity").loc[ours["quantity"]].reset_index()
    table["n"] = [m for _, m in quantities.values()]
    table["labels"] = labels
    return table[["quantity", "ours", "n", "labels", "reported", "delta", "data", "protocol", "model_status",
                  "comparable"]]


def label_shares(view: pd.DataFrame, ours: str, *, chance: float = float("nan")) -> pd.DataFrame:
    """Share of queries per automatic label (:func:`label_counts`) in a Table 2 view (``source =
    ours``) and in the paper (its hand-judged §4.2 counts: literal, cultural, error), each with
    ``n`` (queries) and a 95 % Wilson interval; ``chance`` (P@k of random retrieval, e.g.
    :func:`culturelab.embeddings.bli.chance_precision`) is carried along for the figure.

    >>> t = label_shares(pd.DataFrame({"label": ["literal", "literal", "error", "literal"]}), "ours")
    >>> t.pivot(index="label", columns="source", values="share").round(2).to_dict("index")["error"]
    {'ours': 0.25, 'paper (by hand, 100 queries)': 0.06}
    >>> t.groupby("source")["n"].first().to_dict()
    {'ours': 4, 'paper (by hand, 100 queries)': 100}
    """
    ref = reported_bli()
    n_paper = int(ref["queries"])
    paper = {"literal": ref["P@5"] * n_paper, "cultural": ref["cultural (of misses)"],
             "error": ref["error (of misses)"]}
    rows = []
    for source, hits, n in ((ours, label_counts(view).to_dict(), len(view)),
                            (f"paper (by hand, {n_paper} queries)", paper, n_paper)):
        for label, k in hits.items():
            low, high = proportion_ci(round(k), n)
            rows.append({"label": label, "share": k / n if n else np.nan, "ci_low": low, "ci_high": high, "n": n,
                         "source": source})
    return pd.DataFrame(rows).assign(chance=chance)


def literal_chance(view: pd.DataFrame, target_words: Sequence[str], *, k: int = 5) -> float:
    """P@k of random retrieval for a Table 2 view: the chance that ``k`` English words drawn at
    random include one of a query's literal translations (those in ``target_words``), averaged
    over the queries (:func:`culturelab.embeddings.bli.chance_precision`).

    >>> v = pd.DataFrame({"literal_translations": [["fruit", "fruits"], ["tofu"]]})
    >>> round(literal_chance(v, ["fruit", "fruits", "ham", "bake"], k=1), 3)
    0.25
    """
    vocab = set(target_words)
    sizes = [sum(w in vocab for w in words) for words in view["literal_translations"]]
    return bli.chance_precision(sizes, len(vocab), k)


def in_domain(view: pd.DataFrame, related: dict[str, dict[str, str]], target_words: Sequence[str], *, k: int = 5
              ) -> dict[str, float]:
    """How often a query's top ``k`` holds a word of its domain other than its literal translations
    (a word of ``related``: what makes a miss *near-literal* or *cultural*), beside how often ``k``
    English words drawn at random would (:func:`culturelab.embeddings.bli.chance_precision` over the
    domain words in ``target_words``), over the queries that have a class (a related word in
    ``related``: the toy sample's gold lexicon lists every word, most with none).

    >>> v = pd.DataFrame({"query": ["蒸", "盐"], "neighbours": [["bake", "350"], ["salt"]]})
    >>> r = in_domain(v, {"蒸": {"bake": "cultural", "boil": "near-literal"}, "盐": {}}, ["bake", "boil", "350", "pan"],
    ...               k=1)
    >>> r["queries"], r["observed"], r["chance"]
    (1, 1.0, 0.5)
    """
    vocab = set(target_words)
    rows = view[view["query"].map(lambda q: bool(related.get(q)))]
    sizes = [len(set(related[q]) & vocab) for q in rows["query"]]
    hits = [bool(set(top[:k]) & set(related[q])) for q, top in zip(rows["query"], rows["neighbours"])]
    return {"queries": len(rows), "observed": float(np.mean(hits)) if hits else float("nan"),
            "chance": bli.chance_precision(sizes, len(vocab), k)}


def in_domain_findings(found: dict[str, float], *, k: int = 5) -> str:
    """:func:`in_domain` as a Markdown sentence (every number from ``found``): the share of queries
    whose top ``k`` holds another word of their domain, beside a random top ``k``'s.

    >>> print(in_domain_findings({"queries": 20, "observed": 0.6, "chance": 0.35}))  # doctest: +NORMALIZE_WHITESPACE
    **In-domain neighbours**: for 0.60 of the 20 queries with a class, the top 5 holds a word of the query's domain
    other than a literal translation (what a *near-literal* or *cultural* label rests on); a random top 5 would
    for 0.35, so the labels rest on 1.7 times chance.
    """
    n, observed, chance = int(found["queries"]), found["observed"], found["chance"]
    if not n:
        return "**In-domain neighbours**: no query has a class in our taxonomy."
    ratio = (f"{observed / chance:.1f} times chance" if chance > 0 else "a chance of 0")
    return (f"**In-domain neighbours**: for {observed:.2f} of the {n} queries with a class, the top {k} holds a word "
            f"of the query's domain other than a literal translation (what a *near-literal* or *cultural* label "
            f"rests on); a random top {k} would for {chance:.2f}, so the labels rest on {ratio}.")


#: why the labeller's agreement with Table 2 is no validation: its class splits were drawn knowing it
TABLE2_IN_VIEW = ("the taxonomy's class splits — steaming (moist heat) apart from baking (dry heat), soy apart from "
                  "meat, starch apart from flour, eating apart from cooking utensils — were chosen with Table 2 in "
                  "view")


def table2_agreement(beside: pd.DataFrame) -> str:
    """How often our automatic label of the paper's own Table 2 lists (:func:`table2_beside_paper`)
    is the authors' reading, as a Markdown sentence (every number from ``beside``), and why that is
    a consistency check and not a validation (:data:`TABLE2_IN_VIEW`).

    >>> t = pd.DataFrame({"query": ["蒸", "筷子"], "paper_reading": ["cultural", "cultural"],
    ...                   "automatic_label_of_paper_list": ["cultural", "near-literal"]})
    >>> print(table2_agreement(t))  # doctest: +NORMALIZE_WHITESPACE
    **Labeller vs the authors**: our automatic label of Table 2's own lists is the authors' reading for 1 of 2
    queries (not for 筷子: near-literal, theirs cultural). Not a validation: the taxonomy's class splits —
    steaming (moist heat) apart from baking (dry heat), soy apart from meat, starch apart from flour, eating
    apart from cooking utensils — were chosen with Table 2 in view, so this agreement only checks that the
    labeller is consistent with the readings it was drawn from.
    """
    agree = beside["paper_reading"] == beside["automatic_label_of_paper_list"]
    differ = ", ".join(f"{r['query']}: {r['automatic_label_of_paper_list']}, theirs {r['paper_reading']}"
                       for _, r in beside[~agree].iterrows())
    return (f"**Labeller vs the authors**: our automatic label of Table 2's own lists is the authors' reading for "
            f"{int(agree.sum())} of {len(beside)} queries" + (f" (not for {differ})" if differ else "")
            + f". Not a validation: {TABLE2_IN_VIEW}, so this agreement only checks that the labeller is consistent "
              "with the readings it was drawn from.")


def labels_figure(view: pd.DataFrame, ours: str, target_words: Sequence[str], *, k: int = 5,
                  labels: str = AUTOMATIC_LABELS, method: str = "word2vec + VecMap", caption: str = "") -> Any:
    """Share of queries per label, ours (automatic: ``labels``) beside the paper's (by hand)
    (:func:`label_shares`: n and 95 % intervals), with the P@k of random retrieval
    (:func:`literal_chance`) as the chance of *literal* (:func:`label_bars` draws it)."""
    chance = literal_chance(view, target_words, k=k)
    return label_bars(label_shares(view, ours, chance=chance), chance=chance, k=k, labels=labels, method=method,
                      caption=caption)


@drawing
def label_bars(shares: pd.DataFrame, *, chance: float, k: int = 5, labels: str = AUTOMATIC_LABELS,
               method: str = "word2vec + VecMap", caption: str = "") -> Any:
    """Bars of :func:`label_shares` (share of queries per label, ours beside the paper's) on a share
    axis, with the chance of a *literal* label (a random top ``k``) drawn over that label only (the
    other labels have no such level); ``method`` (how the neighbours were found) in the title,
    ``labels`` (who labelled ours) under the axis, ``caption`` (the run's comparison with the paper,
    :meth:`culturelab.protocol.Deviations.caption`) under the figure.

    >>> import matplotlib.pyplot as plt
    >>> shares = label_shares(pd.DataFrame({"label": ["literal"] * 8 + ["error"] * 4}), "ours")
    >>> ax = label_bars(shares, chance=0.1).axes[0]
    >>> float(ax.get_ylim()[1]), [c.get_label() for c in ax.collections if not c.get_label().startswith("_")]
    (1.0, ['chance of literal (a random top 5: 0.1)'])
    >>> plt.close("all")
    """
    from culturelab.plots import caption as add_caption
    from culturelab.plots import claim, grouped_bars, place_legend

    fig = grouped_bars(shares, x="label", y="share", hue="source", err_low="ci_low", err_high="ci_high", n="n",
                       ylabel="share of queries", ylim=(0, 1), legend=False,
                       reported=[s for s in shares["source"].unique() if s.startswith("paper")],
                       title=f"Top-{k} neighbours ({method}) by label")
    ax = fig.axes[0]
    at = list(dict.fromkeys(shares["label"].astype(str))).index("literal")
    ax.hlines(chance, at - 0.45, at + 0.45, colors="#555555", linestyles=":", linewidth=1.1, zorder=4.5,  # over n
              label=f"chance of literal (a random top {k}: {chance:.2g})")
    ax.set_xlabel(f"ours: {labels}; the paper's: by hand", fontsize=7)
    place_legend(ax)
    claim(fig, kind="score", model=[], method=method, chance=chance)
    return add_caption(fig, caption) if caption else fig


def _ended(stop: str, iterations: int) -> str:
    """A short note of how a fit's self-learning ended (:func:`convergence`).

    >>> _ended("converged", 120), _ended("max_iter", 11), _ended("other criterion", 40), _ended("no self-learning", 0)
    ('converged, 120 it.', 'capped, 11 it.', "not VecMap's stop, 40 it.", 'no self-learning')
    """
    return {"converged": f"converged, {iterations} it.", "max_iter": f"capped, {iterations} it.",
            "other criterion": f"not VecMap's stop, {iterations} it."}.get(stop, stop)


@drawing
def real_vectors_figure(scores: pd.DataFrame, *, k: int = 1, caption: str = "") -> Any:
    """P@k of the fr → en check per mode and retrieval (:func:`real_vectors_check`), with 95 %
    intervals, n (test words) and the P@k of random retrieval as chance; each mode's label says
    how its self-learning ended (converged or capped, iterations). The title says it is a check on
    other data than the paper's; ``caption`` (:func:`culturelab.cultural_recipes.protocol.real_vectors`)
    goes under it."""
    from culturelab.plots import caption as add_caption
    from culturelab.plots import claim, grouped_bars, place_legend
    from culturelab.plots.bars import fit_ticklabels

    at_k = scores[scores["k"] == k]
    chance = float(at_k["chance"].mean())
    fig = grouped_bars(at_k, x="mode", y="precision", hue="retrieval", err_low="ci_low", err_high="ci_high",
                       n="n_queries", chance=chance, ylabel=f"P@{k} (CLDR test pairs)",
                       title="Our VecMap mapping on other data (not the paper's): fr (spaCy) → en (GloVe)")
    ax = fig.axes[0]
    ended = at_k.groupby("mode", sort=False).first()
    ax.set_xticklabels([f"{m}\n({_ended(ended.loc[m, 'stop'], int(ended.loc[m, 'iterations']))})"
                        for m in ended.index], fontsize=7)
    fit_ticklabels(ax)
    place_legend(ax, ncols=3)
    claim(fig, kind="score", model=[], method=["VecMap"], chance=chance)
    return add_caption(fig, caption) if caption else fig


def convergence(fit: AlignmentResult) -> dict[str, Any]:
    """How a fit's self-learning ended, for results tables: ``iterations``, ``stop`` (``converged``,
    ``other criterion``, ``max_iter`` or ``no self-learning``), ``converged`` (by VecMap's criterion),
    ``criterion`` (the stopping rule's settings: the mode's preset, or what differs from it),
    ``keep_prob_reached`` (of the last scheduled
    induction), ``final_keep_prob`` (of the dictionary the final mapping learned from), ``objective``
    and ``seconds``.

    >>> import numpy as np
    >>> from culturelab.embeddings.align import VecMap
    >>> x = np.random.default_rng(0).normal(size=(40, 4))
    >>> fit = VecMap("semi_supervised", progress=False, max_iter=2).fit(x, x, [(i, i) for i in range(10)])
    >>> c = convergence(fit); c["stop"], c["converged"], c["keep_prob_reached"], c["final_keep_prob"]
    ('max_iter', False, 0.1, 1.0)
    """
    s = fit.summary()
    return {key: s[key] for key in ("iterations", "stop", "converged", "criterion", "keep_prob_reached",
                                    "final_keep_prob", "objective")} | {"seconds": round(fit.seconds, 1)}


def real_vectors_check(modes: Sequence[str], *, vocab: int = 3000, max_iter: int = 10, stochastic_interval: int = 0,
                       show_mode: str = "acl2017_seed", seed: int = 0, device: str = "auto",
                       budget_mb: int = 512) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The mapping checked on real, independently trained vectors: French spaCy
    (``fr_core_news_md``) onto English GloVe 6B-50d, ``vocab`` words each (``0``: the full
    vocabularies), seeded and scored with single-word CLDR name pairs split by source word.

    Returns P@1/5/10 per mode and retrieval (:func:`culturelab.embeddings.bli.evaluate`, with
    ``mode``, how its self-learning ended and its time (:func:`convergence`), ``train_pairs``, the pairs of its
    initial dictionary (``initial_pairs``) and those removed because their source is a test word
    (``held_out_pairs``: the identical strings france, train … of the test pairs never seed it); ``max_iter``
    0 runs each mode until VecMap's rule stops it, ``stochastic_interval`` 0 keeps each mode's preset, so
    that the rule is VecMap's criterion) and the top-5 English neighbours of up to eight French
    food words under ``show_mode`` (else the first mode).
    """
    from culturelab.embeddings import dictionaries, vectors
    from culturelab.embeddings.presets import config_for

    fr = vectors.load_spacy_vectors(max_words=vocab)
    glove = vectors.load_glove(max_words=vocab)
    cldr = dictionaries.cldr_pairs("fr", "en")
    pairs = [(s, t) for s, t in zip(cldr["source"], cldr["target"]) if s in fr and t in glove]
    train, test = dictionaries.split_pairs(pairs, n_train=max(15, len(pairs) // 3), seed=seed)
    held_out = {s for s, _ in test}  # no initial dictionary (identical strings: france, train …) holds a test word
    rows, food = [], pd.DataFrame()
    for mode in modes:
        mapper = VecMap(mode, device=device, seed=seed, progress=False, max_iter=max_iter, budget_mb=budget_mb,
                        **preset_unless(stochastic_interval=stochastic_interval))
        fit = cached_fit(mapper, fr.vectors, glove.vectors, train if config_for(mode).init == "seed" else None,
                         src_words=fr.words, trg_words=glove.words, held_out=held_out)
        scores = bli.evaluate(fit.xw, fit.zw, test, fr.words, glove.words, device=device, budget_mb=budget_mb)
        rows.append(scores.assign(mode=mode, **convergence(fit), train_pairs=len(train),
                                  initial_pairs=fit.n_seed_pairs, held_out_pairs=fit.seed_pairs_held_out,
                                  vectors="real: spaCy fr_core_news_md -> GloVe 6B-50d, CLDR pairs"))
        if mode == show_mode or food.empty:
            foods = [s for s, d in zip(cldr["source"], cldr["domain"]) if d == "food" and s in fr][:8]
            food = bli.neighbours(foods, fit.xw, fit.zw, fr.words, glove.words, k=5, device=device,
                                  budget_mb=budget_mb).assign(mode=mode)
    return pd.concat(rows, ignore_index=True), food


def automatic_labels(neighbour_table: pd.DataFrame, *, k: int = 5, seed_variant: str = "paper") -> pd.DataFrame:
    """Our automatic Table 2 view (:func:`culturelab.embeddings.bli.table2_view`) of any neighbour
    lists (``query, rank, neighbour``): CC-CEDICT glosses and the seed pairs for ``literal``, our
    taxonomy (:func:`culturelab.cultural_recipes.lexicon.related_words`) for the rest.

    >>> nb = pd.DataFrame({"query": ["炒"] * 3 + ["牛肉"] * 2, "rank": [1, 2, 3, 1, 2],
    ...                    "neighbour": ["onions", "saute", "bake", "pork", "lamb"]})
    >>> automatic_labels(nb)[["query", "label", "decided_by"]].values.tolist()
    [['炒', 'literal', 'saute'], ['牛肉', 'near-literal', 'pork']]
    """
    queries = list(dict.fromkeys(neighbour_table["query"]))
    literal = lexicon.literal_translations(queries, seed_variant=seed_variant)
    return bli.table2_view(neighbour_table, literal, lexicon.related_words(queries, literal), k=k)


def table2_beside_paper(view: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2 (six queries, their top-5 English neighbours and the paper's reading, by
    hand) beside our automatic label of the paper's own lists (:func:`automatic_labels`: how far the
    labeller agrees with the authors) and our top-5 for the same queries with its automatic label
    (``—`` when a query is not in our vocabulary).

    >>> t = table2_beside_paper(pd.DataFrame({"query": ["蒸"], "neighbours": [["bake", "350"]], "label": ["cultural"]}))
    >>> t.set_index("query").loc["蒸", ["paper_neighbours", "paper_reading", "automatic_label_of_paper_list"]].tolist()
    ['bake, 350, pans, boil, oblong', 'cultural', 'cultural']
    >>> t.set_index("query").loc["蒸", ["ours", "our_automatic_label"]].tolist()
    ['bake, 350', 'cultural']
    """
    table2 = load_reported("cultural_recipes", "table2")
    paper = table2.sort_values(["query", "rank"], kind="stable")
    wide = paper.groupby("query", sort=False).agg(literal=("literal", "first"),
                                                  paper_neighbours=("neighbour", ", ".join),
                                                  paper_reading=("category", "first")).reset_index()
    auto = automatic_labels(paper[["query", "rank", "neighbour"]]).set_index("query")
    wide["automatic_label_of_paper_list"] = wide["query"].map(auto["label"])
    mine = view.set_index("query")
    wide["ours"] = [", ".join(mine.loc[q, "neighbours"]) if q in mine.index else "—" for q in wide["query"]]
    wide["our_automatic_label"] = [mine.loc[q, "label"] if q in mine.index else "—" for q in wide["query"]]
    order = list(dict.fromkeys(table2["query"]))
    return wide.set_index("query").loc[order].reset_index()


# --------------------------------------------------------------------------- prose rendered from results
def _share(count: int, n: int) -> str:
    return f"{count} of {n}"


def label_findings(view: pd.DataFrame, *, title: str = "Our top-5 lists", labels: str = AUTOMATIC_LABELS,
                   chance: float = float("nan"), k: int = 5) -> str:
    """The label counts of a Table 2 view as a Markdown sentence (every number from ``view``):
    queries with their literal translation in the top ``k`` (the paper's rule for *literal*), and
    how the others are labelled, named as ``labels``.

    >>> v = pd.DataFrame({"label": ["literal", "cultural", "unlabelled"]})
    >>> print(label_findings(v, chance=0.1))  # doctest: +NORMALIZE_WHITESPACE
    **Our top-5 lists**, automatic labels (CC-CEDICT glosses + our taxonomy, its class splits drawn with Table 2 in
    view): 1 of 3 queries have their literal translation among their top 5 (a random top 5: 0.10), so by the
    paper's rule 1 of 3 are *literal*; the others: 1 cultural, 1 unlabelled.
    """
    n = len(view)
    counts = label_counts(view)
    n_literal = int(counts["literal"])
    verdict = "every one is" if n_literal == n else f"{_share(n_literal, n)} are"
    text = (f"**{title}**, {labels}: {_share(n_literal, n)} queries have their literal translation among their top "
            f"{k} (a random top {k}: {chance:.2f}), so by the paper's rule {verdict} *literal*")
    others = ", ".join(f"{int(c)} {label}" for label, c in counts.items() if label != "literal" and c)
    return text + (f"; the others: {others}." if others else ".")


def toy_findings(view: pd.DataFrame, planted: Sequence[str], related: dict[str, dict[str, str]], *,
                 chance: float = float("nan"), k: int = 5) -> str:
    """What the toy run shows, as Markdown written from its Table 2 view: :func:`label_findings`,
    then for the ``planted`` culture-typical words where their planted counterpart (``related``)
    and their literal translation rank. Every number comes from ``view``.

    >>> v = pd.DataFrame({"query": ["蒸", "盐"], "neighbours": [["bake", "steam"], ["salt"]],
    ...                   "literal_translations": [["steam"], ["salt"]], "label": ["literal", "literal"],
    ...                   "first_literal_rank": [2, 1], "label_at_1": ["cultural", "literal"]})
    >>> print(toy_findings(v, ["蒸"], {"蒸": {"bake": "cultural"}}, chance=0.1))  # doctest: +NORMALIZE_WHITESPACE
    **Toy sample**, automatic labels (the toy sample's gold lexicon): 2 of 2 queries have their literal
    translation among their top 5 (a random top 5: 0.10), so by the paper's rule every one is *literal*.
    Of the 1 planted culture-typical words in the queries, 1 have their planted counterpart as the first
    neighbour (蒸 → bake) and 1 among the top 5; 1 of them also have their literal translation in the
    top 5, which is what the top-5 label counts: the planted effect shows in the ranking, not in the label.
    """
    rows = view.set_index("query")
    words = [w for w in planted if w in rows.index]
    first = [w for w in words if rows.loc[w, "neighbours"][:1] and rows.loc[w, "neighbours"][0] in related.get(w, {})]
    in_top = [w for w in words if set(rows.loc[w, "neighbours"][:k]) & set(related.get(w, {}))]
    lit_too = [w for w in in_top if pd.notna(rows.loc[w, "first_literal_rank"])]
    text = label_findings(view, title="Toy sample", labels=TOY_LABELS, chance=chance, k=k) + " "
    if not words:
        return text + "None of the planted culture-typical words is among the queries."
    examples = ", ".join(f"{w} → {rows.loc[w, 'neighbours'][0]}" for w in first)
    text += (f"Of the {len(words)} planted culture-typical words in the queries, {len(first)} have their planted "
             f"counterpart as the first neighbour{f' ({examples})' if examples else ''} and {len(in_top)} among the "
             f"top {k}; {len(lit_too)} of them also have their literal translation in the top {k}")
    if lit_too and len(lit_too) == len(in_top):
        return text + f", which is what the top-{k} label counts: the planted effect shows in the ranking, not in the label."
    return text + "; the others are labelled by their counterpart."


def real_vectors_findings(scores: pd.DataFrame, *, k: int = 1, retrieval: str = "csls") -> str:
    """What the fr → en check shows, as Markdown written from :func:`real_vectors_check`'s table:
    P@``k`` per mode (``retrieval``) with its 95 % interval, how each fit's self-learning ended
    (:func:`convergence`) and its time, the best mode and which modes its interval does not
    separate from it. Every number comes from ``scores``.

    >>> s = pd.DataFrame({"mode": ["identical", "unsupervised", "acl2017_seed"], "retrieval": "csls", "k": 1,
    ...                   "precision": [0.6, 0.5, 0.3], "ci_low": [0.47, 0.38, 0.2], "ci_high": [0.71, 0.62, 0.4],
    ...                   "chance": 0.0004, "n_queries": 63, "stop": ["converged", "max_iter", "other criterion"],
    ...                   "criterion": ["VecMap's", "VecMap's", "stochastic_interval 8 (VecMap's acl2017_seed: 1)"],
    ...                   "iterations": [120, 11, 40], "seconds": [90.0, 8.0, 3.0]})
    >>> print(real_vectors_findings(s))  # doctest: +NORMALIZE_WHITESPACE
    **fr → en, P@1 with csls retrieval** over 63 test words (a random guess: 0.0004): identical 0.60 [0.47, 0.71]
    (converged after 120 iterations, 90 s), unsupervised 0.50 [0.38, 0.62] (stopped by max_iter after 11
    iterations, 8 s), acl2017_seed 0.30 [0.20, 0.40] (stopped after 40 iterations by VecMap's rule with
    stochastic_interval 8 (VecMap's acl2017_seed: 1), 3 s). Best: identical; its interval overlaps that of
    unsupervised, so these are not separated at n = 63.
    Not converged by VecMap's criterion (the numbers of another run than the method's): unsupervised, acl2017_seed.
    """
    part = scores[(scores["k"] == k) & (scores["retrieval"] == retrieval)].sort_values("precision", ascending=False)
    if part.empty:
        return ""
    n = int(part["n_queries"].iloc[0])

    def ended(row: pd.Series) -> str:
        iterations = int(row["iterations"])
        how = {"converged": f"converged after {iterations} iterations",
               "max_iter": f"stopped by max_iter after {iterations} iterations",
               "other criterion": f"stopped after {iterations} iterations by VecMap's rule with {row.get('criterion')}"}
        return how.get(row["stop"], "no self-learning") + f", {row['seconds']:.0f} s"

    listed = ", ".join(f"{r['mode']} {r['precision']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}] ({ended(r)})"
                       for _, r in part.iterrows())
    best = part.iloc[0]
    tied = [r["mode"] for _, r in part.iloc[1:].iterrows() if r["ci_high"] >= best["ci_low"]]
    text = (f"**fr → en, P@{k} with {retrieval} retrieval** over {n} test words (a random guess: "
            f"{float(part['chance'].iloc[0]):.4f}): {listed}.")
    if len(part) > 1:
        text += f" Best: {best['mode']}; " + (
            f"its interval overlaps that of {' and '.join(tied)}, so these are not separated at n = {n}." if tied
            else f"its interval overlaps no other mode's at n = {n}.")
    short = part.loc[part["stop"].isin(["max_iter", "other criterion"]), "mode"].tolist()
    if short:
        text += (f" Not converged by VecMap's criterion (the numbers of another run than the method's): "
                 f"{', '.join(short)}.")
    return text
