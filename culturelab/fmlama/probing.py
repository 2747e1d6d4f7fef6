"""Probing: rank every candidate ingredient in every (dish, template) cloze query, then score.

* **Masked LMs** (``masked:<model>``): the paper's ranking (§4.1, eq. 1–2), via the core backend
  (:class:`culturelab.models.masked.MaskedLM`): d = 1..10 mask tokens, mean log-probability
  over the candidate's sub-tokens, one forward pass per (query, mask count), all candidates of
  one length scored in one vectorised step.
* **T5 / mT5** (``seq2seq:<model>``): the paper's span scoring (the authors' ``get_T5_ranking``):
  the slot becomes ``<extra_id_0>``, each candidate the target ``<extra_id_0> c <extra_id_1>``,
  scored by the mean log-probability of the candidate's own tokens.
* **Causal LMs** (beyond the paper, which probes decoder models by generation only):
  ``scoring="sentence"`` ranks candidates by the filled-in sentence, so templates whose slot
  comes first ("[Y] is part of the food [X]") still see the dish; ``scoring="prefix"`` by the
  candidate after the text before the slot (template 4 then never sees the dish).
* **Normalisation** (``normalise``): ``eq2`` (the paper's eq. 2) averages the log-probability
  over the **candidate's own sub-tokens** — for sentence scoring that mean plus the
  log-probability of the rest of the sentence given the candidate (the same text for every
  candidate, so not divided by anything); ``continuation`` (this project's earlier rule) divides
  the log-probability of candidate *and* rest of the sentence by their token count; ``sum``
  keeps the summed log-probability of the candidate (and, for sentence scoring, the rest).
  Sentence scoring sends each query with a chunk of candidates as one group
  (:meth:`~culturelab.models.base.LanguageModel.loglikelihood_groups`): the backend encodes the
  query prefix once, and the response cache stores one row per group, so a killed full-size run
  resumes.
* **Frequency baseline** (beyond the paper): ranks candidates by how many *other* dishes of the
  sub-dataset list them (leave-one-out), ignoring the dish: how much of mAP is the prior.
* **Random ranking** (the chance line): the exact expected AP (and, with vectors, WS) of a
  random ranking of the pool actually used (:func:`~culturelab.fmlama.metrics.random_ranking_ap`,
  :func:`~culturelab.fmlama.metrics.random_ranking_ws`), in every table beside the model and the
  baseline.
* **Runs**: :func:`probe_jobs` turns named sub-datasets (a language's FMLAMA-*la*, a
  code-switching setting) into :class:`ProbeJob` s — a seeded sample of dishes and its candidate
  pool — and :func:`probe_grid` probes a model on all of them, in every context, with the baseline
  and the chance line.

>>> q = ["The food pho has the ingredients of [Y] .", "[Y] is part of the food pho ."]
>>> sentence_pairs(q, ["rice", "beef"])[:2]
[('The food pho has the ingredients of ', 'rice .'), ('The food pho has the ingredients of ', 'beef .')]
>>> sentence_pairs(q, ["rice"])[1]
('', 'rice is part of the food pho .')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from culturelab.fmlama.metrics import (
    TIES,
    candidate_set,
    gold_matrix,
    order_ties,
    random_ranking_ap,
    random_ranking_ws,
    rank_metrics,
    top_k,
    word_similarity,
)
from culturelab.fmlama.templates import SLOT, build_queries
from culturelab.models.base import split_template

SCORINGS = ("auto", "sentence", "prefix")
#: how the dish enters the template: ``literal`` (ours) or ``paper`` (as the paper-era code filled the
#: model's backend: T5/mT5 by ``re.sub`` character classes, masked LMs literally)
SLOT_FILLS = ("literal", "paper")
#: how a causal or masked LM answers FMLAMA here: it ranks the candidate ingredients by log-likelihood
METHOD = "log-likelihood ranking"
#: ``eq2`` the paper's mean over the candidate's sub-tokens; ``continuation`` the mean over
#: candidate + rest of the sentence (causal sentence scoring only); ``sum`` no normalisation
NORMALISES = ("eq2", "continuation", "sum")
#: the ``model`` of the rows of the two rankers that ignore the dish
BASELINE = "frequency baseline"
RANDOM = "random ranking (expected)"


def sentence_pairs(queries: Sequence[str], candidates: Sequence[str]) -> list[tuple[str, str]]:
    """(context, continuation) pairs that score each candidate with the rest of its sentence."""
    pairs = []
    for query in queries:
        prefix, suffix = split_template(query, SLOT)
        pairs.extend((prefix, c + suffix) for c in candidates)
    return pairs


def backend_of(spec: str | None) -> str:
    """The ranking path a model spec takes: ``masked`` (mask filling, eq. 1–2), ``seq2seq``
    (T5/mT5 span scoring), ``causal`` (log-likelihood ranking, beyond the paper) or ``""`` (no model).

    >>> backend_of("masked:bert-base-cased"), backend_of("seq2seq:google/mt5-base"), backend_of("bundled:gemma3-270m")
    ('masked', 'seq2seq', 'causal')
    >>> backend_of("ray:4:masked:bert-base-multilingual-cased")  # sharded over Ray actors: the model it shards
    'masked'
    """
    if not spec:
        return ""
    from culturelab.models.ray_backend import unwrap

    backend = unwrap(str(spec)).split(":", 1)[0]
    return backend if backend in {"masked", "seq2seq"} else "causal"


def score_queries(model: Any, queries: Sequence[str], candidates: Sequence[str], *,
                  scoring: str = "auto", normalise: str = "eq2", chunk: int = 100_000) -> np.ndarray:
    """Score matrix (queries × candidates), higher is better; ``-inf`` = candidate not rankable
    (e.g. longer than the masked LM's mask cap).

    Masked LMs and T5/mT5 score the candidate's own sub-tokens in the full query; causal LMs
    (``sentence``, the default for them) score the candidate *with the rest of the sentence*, so
    every template sees the dish. ``normalise`` (module docstring): ``eq2`` the mean over the
    candidate's sub-tokens (eq. 2), ``continuation`` the mean over candidate and rest of the
    sentence (causal sentence scoring only), ``sum`` the summed log-probability. The (query,
    candidate) pairs go to the model in blocks of about ``chunk`` pairs (whole queries × a slice
    of the candidates), so memory beyond the score matrix does not grow with the number of pairs
    (the full English set is ~16.6M), and a killed run resumes from the model's response cache.

    >>> score_queries(None, [], ["rice"]).shape
    (0, 1)
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}, not {scoring!r}")
    if normalise not in NORMALISES:
        raise ValueError(f"normalise must be one of {NORMALISES}, not {normalise!r}")
    queries, candidates = list(queries), list(candidates)
    if not queries:
        return np.zeros((0, len(candidates)), dtype=np.float32)
    if chunk < 1:
        raise ValueError(f"chunk must be a positive number of (query, candidate) pairs, not {chunk}")
    if normalise == "continuation" and not _sentence_scoring(model, scoring):
        raise ValueError("normalise 'continuation' (the mean over candidate and rest of the sentence) applies to "
                         "causal sentence scoring only; masked, T5 and prefix scoring score the candidate alone: "
                         "use 'eq2'")
    out = np.empty((len(queries), len(candidates)), dtype=np.float32)
    step_c = max(1, min(len(candidates), chunk))
    step_q = max(1, chunk // step_c)
    for q0 in range(0, len(queries), step_q):
        block = queries[q0 : q0 + step_q]
        for c0 in range(0, len(candidates), step_c):
            cands = candidates[c0 : c0 + step_c]
            out[q0 : q0 + len(block), c0 : c0 + len(cands)] = _score_block(model, block, cands, scoring, normalise)
    return out


def _sentence_scoring(model: Any, scoring: str) -> bool:
    return getattr(model, "backend", "") not in {"masked", "seq2seq"} and scoring != "prefix"


def _loglikelihoods(model: Any, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[Any]:
    """Log-likelihoods of every (context, continuation) of ``(context, continuations)`` groups, flat."""
    if hasattr(model, "loglikelihood_groups"):  # one cache row per (query, candidate chunk): resumable
        return [r for row in model.loglikelihood_groups(pairs) for r in row]
    return model.loglikelihood([(c, x) for c, xs in pairs for x in xs])  # a plain scorer (tests, adapters)


def _score_block(model: Any, queries: list[str], candidates: list[str], scoring: str, normalise: str) -> np.ndarray:
    """One chunk of :func:`score_queries` (queries × candidates)."""
    if not _sentence_scoring(model, scoring):
        return np.asarray(model.rank_candidates(queries, candidates, slot=SLOT,
                                                reduce="sum" if normalise == "sum" else "mean"), dtype=np.float32)
    splits = [split_template(q, SLOT) for q in queries]
    whole = _loglikelihoods(model, [(prefix, [c + suffix for c in candidates]) for prefix, suffix in splits])
    if normalise == "continuation":
        values = [r.logprob / max(r.n_tokens, 1) for r in whole]
    elif normalise == "sum":
        values = [r.logprob for r in whole]
    else:  # eq. 2: the candidate's own sub-tokens averaged, plus the rest of the sentence given the candidate
        own = _loglikelihoods(model, [(prefix, candidates) for prefix, _ in splits])
        values = [c.logprob / max(c.n_tokens, 1) + (w.logprob - c.logprob) for w, c in zip(whole, own)]
    return np.array(values, dtype=np.float32).reshape(len(queries), len(candidates))


def frequency_scores(reference_gold: np.ndarray, own_gold: np.ndarray | None = None, *, seed: int = 0) -> np.ndarray:
    """Frequency-only ranking: how many dishes of the reference list each candidate, minus the
    dish's own gold (leave-one-out: ``own_gold`` defaults to ``reference_gold``, i.e. scoring
    the reference dishes themselves); ties broken by a seeded random jitter in [0, 0.5).

    >>> g = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 0]], bool)
    >>> frequency_scores(g).round().tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]
    """
    reference_gold = np.asarray(reference_gold, bool)
    own = reference_gold if own_gold is None else np.asarray(own_gold, bool)
    counts = reference_gold.sum(axis=0, dtype=float)
    jitter = np.random.default_rng(seed).uniform(0, 0.5, size=reference_gold.shape[1])
    return counts[None, :] - own + jitter[None, :]


def sample_dishes(table: pd.DataFrame, per_group: int, *, seed: int = 0, group: str = "group") -> pd.DataFrame:
    """Up to ``per_group`` dishes of each group (seeded), in the table's order; 0 = all.

    >>> t = pd.DataFrame({"group": ["a", "a", "a", "b"], "url": list("wxyz")})
    >>> sample_dishes(t, 1)["url"].tolist()
    ['y', 'z']
    """
    if per_group <= 0:
        return table.reset_index(drop=True)
    rng = np.random.default_rng(seed)
    keep = []
    for _, part in table.groupby(group, sort=True, observed=True):
        idx = part.index.to_numpy()
        keep.extend(rng.choice(idx, size=min(per_group, len(idx)), replace=False).tolist())
    return table.loc[sorted(keep)].reset_index(drop=True)


def candidate_pool(table: pd.DataFrame, sampled: pd.DataFrame, size: int, *, seed: int = 0) -> list[str]:
    """Candidates to rank: all ingredients of ``table`` (the paper's set) when ``size`` is 0;
    otherwise the gold ingredients of the ``sampled`` dishes plus seeded random distractors from
    the full set, ``size`` in all but always at least as many distractors as gold items (while
    the full set has them), so the pool never collapses to gold only (a cheaper, **not
    comparable** setting for small CPU runs; the pool size is each row's ``n_candidates``).

    >>> t = pd.DataFrame({"ingredients": [["egg"], ["rice"], ["salt"], ["tea"]]})
    >>> candidate_pool(t, t.head(1), 2, seed=0)[0], len(candidate_pool(t, t.head(1), 2)), len(candidate_pool(t, t, 0))
    ('egg', 2, 4)
    """
    full = candidate_set(table["ingredients"])
    if size <= 0 or size >= len(full):
        return full
    gold = candidate_set(sampled["ingredients"])
    gold_set = set(gold)
    rest = [c for c in full if c not in gold_set]
    n_extra = max(size - len(gold), len(gold))
    extra = np.random.default_rng(seed).choice(len(rest), size=min(n_extra, len(rest)), replace=False)
    return sorted([*gold, *(rest[i] for i in extra)])


def probe(model: Any, table: pd.DataFrame, lang: str, candidates: Sequence[str], *, context: bool = False,
          template_ids: Sequence[int] = (1, 2, 3, 4, 5), version: str = "v1", scoring: str = "auto",
          normalise: str = "eq2", vectors: np.ndarray | None = None, model_name: str | None = None,
          n_top: int = 5, ties: str = "expected", slot_fill: str = "literal",
          country_names: str = "cldr") -> pd.DataFrame:
    """Probe one model on a table of dishes: one tidy row per (dish, template) with ``ap, p1, p5,
    n_gold`` (fractions), ``ws`` when candidate ``vectors`` are given, and the top predictions.

    ``table`` needs ``url, dish, origin, group, ingredients`` (the dish name may be in another
    language than ``lang`` — code-switching); all queries go to the model in one call. The
    paper's options: ``ties="candidate_order"`` (equal scores in candidate order,
    :func:`~culturelab.fmlama.metrics.order_ties`; ours: ``expected``), ``slot_fill="paper"`` (the
    paper-era fill of the model's backend: the ``re.sub`` fill for T5/mT5,
    :func:`~culturelab.fmlama.templates.regex_fill`; literal otherwise) and ``country_names``
    (:data:`~culturelab.fmlama.templates.NAMES`).

    >>> from culturelab.models.base import LogLikelihood
    >>> class Fake:  # a stand-in model: shorter continuations are likelier
    ...     spec = "fake"
    ...     def loglikelihood(self, pairs):
    ...         return [LogLikelihood(-len(c), 1, False) for _, c in pairs]
    >>> t = pd.DataFrame({"url": ["u"], "dish": ["pho"], "origin": ["Vietnam"], "group": "Others",
    ...                   "ingredients": [["rice noodle"]]})
    >>> probe(Fake(), t, "en", ["beef", "rice noodle"], template_ids=[1])[["query", "ap", "top"]].to_dict("records")
    [{'query': 'The food pho has the ingredients of [Y] .', 'ap': 0.5, 'top': ['beef', 'rice noodle']}]
    """
    if ties not in TIES or slot_fill not in SLOT_FILLS:
        raise ValueError(f"ties must be one of {TIES} and slot_fill one of {SLOT_FILLS}, not {ties!r}, {slot_fill!r}")
    candidates = list(candidates)
    regex = slot_fill == "paper" and getattr(model, "backend", backend_of(getattr(model, "spec", ""))) == "seq2seq"
    queries = build_queries(table, lang, context=context, version=version, template_ids=template_ids,
                            fill_rule="regex" if regex else "literal", names=country_names)
    scores = score_queries(model, queries["query"].tolist(), candidates, scoring=scoring, normalise=normalise)
    if ties == "candidate_order":
        scores = order_ties(scores)
    by_url = table.set_index("url")
    gold_lists = [by_url.at[u, "ingredients"] for u in queries["url"]]
    out = queries.assign(model=model_name or getattr(model, "spec", str(model)), lang=lang, context=context,
                         group=[by_url.at[u, "group"] for u in queries["url"]],
                         dish=[by_url.at[u, "dish"] for u in queries["url"]], gold=gold_lists)
    out = pd.concat([out, rank_metrics(scores, gold_matrix(gold_lists, candidates))], axis=1)
    if vectors is not None:
        out["ws"] = word_similarity(scores, gold_lists, candidates, vectors)
    out["top"] = top_k(scores, candidates, n_top)
    out["n_candidates"] = len(candidates)
    return out


def _ranker_rows(table: pd.DataFrame, lang: str, name: str, candidates: Sequence[str]) -> pd.DataFrame:
    """The identifying columns of a dish-level ranker's rows (``template`` 0, no query)."""
    return pd.DataFrame({"url": table["url"], "template": 0, "query": "", "model": name, "lang": lang,
                         "context": False, "group": table["group"], "dish": table["dish"],
                         "gold": list(table["ingredients"]), "n_candidates": len(candidates)}).reset_index(drop=True)


def probe_frequency(table: pd.DataFrame, lang: str, candidates: Sequence[str], *, reference: pd.DataFrame,
                    vectors: np.ndarray | None = None, seed: int = 0, n_top: int = 5) -> pd.DataFrame:
    """The frequency baseline in :func:`probe`'s format (one row per dish, ``template`` 0).
    Counts come from ``reference`` (the whole sub-dataset), leaving each dish itself out.

    >>> t = pd.DataFrame({"url": ["u1", "u2"], "dish": ["a", "b"], "group": "G", "ingredients": [["egg"], ["egg"]]})
    >>> probe_frequency(t, "en", ["egg", "tea"], reference=t)["ap"].tolist()
    [1.0, 1.0]
    """
    candidates = list(candidates)
    in_ref = table["url"].isin(set(reference["url"])).to_numpy()[:, None]
    own = gold_matrix(list(table["ingredients"]), candidates) & in_ref
    scores = frequency_scores(gold_matrix(list(reference["ingredients"]), candidates), own, seed=seed)
    gold_lists = list(table["ingredients"])
    out = pd.concat([_ranker_rows(table, lang, BASELINE, candidates),
                     rank_metrics(scores, gold_matrix(gold_lists, candidates))], axis=1)
    if vectors is not None:
        out["ws"] = word_similarity(scores, gold_lists, candidates, vectors)
    out["top"] = top_k(scores, candidates, n_top)
    return out


def probe_chance(table: pd.DataFrame, lang: str, candidates: Sequence[str], *,
                 vectors: np.ndarray | None = None) -> pd.DataFrame:
    """The chance line in :func:`probe`'s format: per dish the **expected** AP, P@1 and P@5 of a
    uniformly random ranking of ``candidates`` (exact: :func:`~culturelab.fmlama.metrics.random_ranking_ap`,
    and E[P@k] = R/n for R gold among n, k ≤ n), and with candidate ``vectors`` its expected WS
    (:func:`~culturelab.fmlama.metrics.random_ranking_ws`). Averaged like any model's rows, it is
    the random-ranking score of the pool actually used.

    The pool is the whole candidate list: a masked LM cannot rank a candidate of more than 10
    sub-tokens (its score is ``-inf``, §2.5 of the spec), so for such a model the rankable pool
    is smaller and its own chance level slightly higher than this line.

    >>> t = pd.DataFrame({"url": ["u"], "dish": ["a"], "group": "G", "ingredients": [["egg"]]})
    >>> probe_chance(t, "en", ["egg", "tea", "rice", "salt"])[["model", "ap", "p1"]].round(4).to_dict("records")
    [{'model': 'random ranking (expected)', 'ap': 0.5208, 'p1': 0.25}]
    """
    candidates = list(candidates)
    n_gold = gold_matrix(list(table["ingredients"]), candidates).sum(axis=1)
    n = len(candidates)
    hit_rate = np.where(n_gold > 0, n_gold / max(n, 1), np.nan)
    p5 = hit_rate if n >= 5 else np.where(n_gold > 0, n_gold / 5, np.nan)  # fewer than 5: every gold is in the top 5
    out = _ranker_rows(table, lang, RANDOM, candidates)
    out = out.assign(ap=random_ranking_ap(n, n_gold), p1=hit_rate, p5=p5, n_gold=n_gold,
                     top=[[] for _ in range(len(out))])
    if vectors is not None:
        out["ws"] = random_ranking_ws(list(table["ingredients"]), candidates, vectors)
    return out


def full_pool_chance(job: ProbeJob) -> pd.DataFrame:
    """The chance rows (:func:`probe_chance`) of every dish of the job's whole sub-dataset on its
    full candidate set: the random-ranking score of the paper's pool, beside the paper's numbers.

    >>> t = pd.DataFrame({"url": list("uv"), "dish": list("ab"), "group": "G", "ingredients": [["egg"], ["tea"]]})
    >>> full_pool_chance(ProbeJob(t.head(1), "en", ["egg"], t, {"setting": "EN_en"}))[["url", "ap", "setting"]].to_dict("records")
    [{'url': 'u', 'ap': 0.75, 'setting': 'EN_en'}, {'url': 'v', 'ap': 0.75, 'setting': 'EN_en'}]
    """
    return probe_chance(job.reference, job.lang, candidate_set(job.reference["ingredients"])).assign(**job.extra)


def limit(table: pd.DataFrame, per_group: int, max_total: int, *, seed: int = 0, group: str = "group") -> pd.DataFrame:
    """Seeded sample of up to ``per_group`` dishes per group (0 = all), then at most
    ``max_total`` of them (0 = no cap).

    >>> t = pd.DataFrame({"group": list("aab"), "url": list("xyz")})
    >>> limit(t, 1, 0, seed=0)["group"].tolist()
    ['a', 'b']
    """
    sampled = sample_dishes(table, per_group, seed=seed, group=group)
    if max_total and len(sampled) > max_total:
        sampled = sampled.sample(n=max_total, random_state=seed).sort_index().reset_index(drop=True)
    return sampled


@dataclass(frozen=True)
class ProbeJob:
    """One sub-dataset to probe: the sampled dishes (``table``), the template language, the
    candidates to rank, the whole sub-dataset (``reference``: frequency counts, the full
    candidate set) and the columns to stamp on the results (``extra``, e.g. ``{"setting": "EN_zh"}``)."""

    table: pd.DataFrame
    lang: str
    candidates: list[str]
    reference: pd.DataFrame
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pool(self) -> int | str:
        """The candidate pool as a protocol value: ``0`` when it is every ingredient of the
        sub-dataset (the paper's, §4.1), else ``"n of N"`` (:data:`culturelab.fmlama.protocol.POOL`).

        >>> t = pd.DataFrame({"ingredients": [["egg"], ["rice"], ["tea"]]})
        >>> ProbeJob(t, "en", ["egg", "rice", "tea"], t).pool, ProbeJob(t.head(1), "en", ["egg", "tea"], t).pool
        (0, '2 of 3')
        """
        full = len(candidate_set(self.reference["ingredients"]))
        return 0 if len(self.candidates) >= full else f"{len(self.candidates):,} of {full:,}"


def probe_jobs(references: Mapping[str, pd.DataFrame], *, per_group: int, max_total: int, max_candidates: int,
               seed: int = 0, group: str = "group", key: str | None = None) -> list[ProbeJob]:
    """One :class:`ProbeJob` per named sub-dataset (FMLAMA-*la* by language, or a code-switching
    :func:`~culturelab.fmlama.data.setting_view` by setting): the dishes :func:`limit` keeps
    (``per_group`` per ``group``, at most ``max_total``) and their :func:`candidate_pool` of
    ``max_candidates`` (0 = the paper's full set). The template language is the table's ``lang``;
    ``key`` names the column that records each job's name (none by default).

    Views of one table (same rows, same groups) get the same dishes in every job.

    >>> t = pd.DataFrame({"url": list("uvw"), "group": list("aab"), "lang": "en",
    ...                   "ingredients": [["egg"], ["rice"], ["tea", "egg"]]})
    >>> jobs = probe_jobs({"EN_en": t}, per_group=1, max_total=0, max_candidates=2, key="setting")
    >>> jobs[0].lang, jobs[0].table["url"].tolist(), jobs[0].candidates, jobs[0].extra
    ('en', ['v', 'w'], ['egg', 'rice', 'tea'], {'setting': 'EN_en'})
    """
    jobs = []
    for name, reference in references.items():
        langs = set(reference["lang"])
        if len(langs) != 1:
            raise ValueError(f"{name}: a probing table needs one template language, found {sorted(langs)}")
        sampled = limit(reference, per_group, max_total, seed=seed, group=group)
        pool = candidate_pool(reference, sampled, max_candidates, seed=seed)
        jobs.append(ProbeJob(sampled, langs.pop(), pool, reference, {key: name} if key else {}))
    return jobs


def encoder_spec(spec: str, lang: str) -> str:
    """The encoder spec for one probed language: ``{lang}`` in ``spec`` stands for it (e.g.
    ``fasttext:/vectors/cc.{lang}.300.bin``, one fastText file per language as in the paper).

    >>> encoder_spec("fasttext:/v/cc.{lang}.300.bin", "ar"), encoder_spec("bundled:e5-small", "ar")
    ('fasttext:/v/cc.ar.300.bin', 'bundled:e5-small')
    """
    return spec.replace("{lang}", lang)


def probe_grid(model: Any, jobs: Iterable[ProbeJob], *, template_ids: Sequence[int], contexts: Sequence[bool],
               version: str = "v1", scoring: str = "auto", normalise: str = "eq2",
               encoder: Any = None, baseline: bool = True, seed: int = 0, ties: str = "expected",
               slot_fill: str = "literal", country_names: str = "cldr") -> pd.DataFrame:
    """Probe ``model`` on several jobs in every context, plus the frequency baseline and the
    chance line (:func:`probe_chance`) once per job (``baseline``); mWS when an ``encoder`` is
    given (an encoder, or a function of the template language returning one). One tidy
    per-(dish, template) table, with each job's ``extra`` columns. ``model=None`` (a backend that
    cannot rank, e.g. a replay file of generations) gives the baseline's and the chance rows only.
    ``ties``, ``slot_fill`` and ``country_names``: the model's rows as :func:`probe`.

    >>> t = pd.DataFrame({"url": ["u1", "u2"], "dish": ["a", "b"], "group": "G", "origin": "Italy",
    ...                   "ingredients": [["egg"], ["egg"]]})
    >>> job = ProbeJob(t, "en", ["egg", "tea"], t, {"setting": "EN_en"})
    >>> from culturelab.models.base import LogLikelihood
    >>> class Fake:  # a stand-in model: shorter continuations are likelier
    ...     spec = "fake"
    ...     def loglikelihood(self, pairs):
    ...         return [LogLikelihood(-len(c), 1, False) for _, c in pairs]
    >>> out = probe_grid(Fake(), [job], template_ids=[1], contexts=[False])
    >>> out[["model", "setting", "ap"]].drop_duplicates().round(2).to_dict("records")  # "egg" and "tea" tie for Fake
    [{'model': 'fake', 'setting': 'EN_en', 'ap': 0.75}, {'model': 'frequency baseline', 'setting': 'EN_en', 'ap': 1.0}, {'model': 'random ranking (expected)', 'setting': 'EN_en', 'ap': 0.75}]
    """
    if model is None and not baseline:
        raise ValueError("probe_grid: no model and no baseline: nothing to probe")
    parts = []
    for job in jobs:
        enc = encoder(job.lang) if callable(encoder) else encoder
        vectors = None if enc is None else enc.encode(list(job.candidates), role="query")
        for context in contexts if model is not None else ():
            out = probe(model, job.table, job.lang, job.candidates, context=context, template_ids=template_ids,
                        version=version, scoring=scoring, normalise=normalise, vectors=vectors, ties=ties,
                        slot_fill=slot_fill, country_names=country_names)
            parts.append(out.assign(**job.extra))
        if baseline:
            base = probe_frequency(job.table, job.lang, job.candidates, reference=job.reference, vectors=vectors,
                                   seed=seed)
            chance = probe_chance(job.table, job.lang, job.candidates, vectors=vectors)
            parts.extend(rows.assign(context=c, **job.extra) for rows in (base, chance) for c in contexts)
    return pd.concat(parts, ignore_index=True)
