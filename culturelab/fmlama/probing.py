"""Probing: rank every candidate ingredient in every (dish, template) cloze query, then score.

* **Masked LMs** (``masked:<model>``): the paper's ranking, via the core backend
  (:class:`culturelab.models.masked.MaskedLM`): d = 1..10 mask tokens, mean log-probability
  over the candidate's sub-tokens, one forward pass per (query, mask count), all candidates of
  one length scored in one vectorised step.
* **Causal LMs** (beyond the paper): ``scoring="sentence"`` ranks candidates by
  log P(candidate + rest of the sentence | text before the slot), i.e. by the probability of the
  whole filled-in sentence, so templates whose slot comes first ("[Y] is part of the food [X]")
  still see the dish; ``normalise="mean"`` (default) divides by the number of scored tokens, the
  paper's mean pooling (eq. 2), ``"sum"`` keeps the sum (which favours short candidates).
  ``scoring="prefix"`` is the core's mean log-prob of the candidate after the prefix (ignores
  what follows the slot, so template 4 never sees the dish — kept only for comparison). Sentence
  scoring sends each query with a chunk of candidates as one group
  (:meth:`~culturelab.models.base.LanguageModel.loglikelihood_groups`): the backend encodes the query
  prefix once, and the response cache stores one row per group, so a killed full-size run resumes.
* **Frequency baseline** (beyond the paper): ranks candidates by how many *other* dishes of the
  sub-dataset list them (leave-one-out), ignoring the dish: how much of mAP is the prior.
* **Runs**: :func:`probe_jobs` turns named sub-datasets (a language's FMLAMA-*la*, a
  code-switching setting) into :class:`ProbeJob` s — a seeded sample of dishes and its candidate
  pool — and :func:`probe_grid` probes a model on all of them, in every context, with the baseline.

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

from culturelab.fmlama.metrics import candidate_set, gold_matrix, rank_metrics, top_k, word_similarity
from culturelab.fmlama.templates import SLOT, build_queries
from culturelab.models.base import split_template

SCORINGS = ("auto", "sentence", "prefix")
NORMALISES = ("mean", "sum")


def sentence_pairs(queries: Sequence[str], candidates: Sequence[str]) -> list[tuple[str, str]]:
    """(context, continuation) pairs that score each candidate with the rest of its sentence."""
    pairs = []
    for query in queries:
        prefix, suffix = split_template(query, SLOT)
        pairs.extend((prefix, c + suffix) for c in candidates)
    return pairs


def score_queries(model: Any, queries: Sequence[str], candidates: Sequence[str], *,
                  scoring: str = "auto", normalise: str = "mean", chunk: int = 100_000) -> np.ndarray:
    """Score matrix (queries × candidates), higher is better; ``-inf`` = candidate not rankable
    (e.g. longer than the masked LM's mask cap).

    Causal LMs (``sentence``, the default for them) score the candidate *with the rest of the
    sentence*, so every template sees the dish; ``normalise="mean"`` divides by the number of
    scored tokens (the paper's mean pooling, eq. 2 — a sum favours short candidates),
    ``"sum"`` keeps the summed log-probability. The (query, candidate) pairs go to the model in
    blocks of about ``chunk`` pairs (whole queries × a slice of the candidates), so memory beyond
    the score matrix does not grow with the number of pairs (the full English set is ~16.6M), and
    a killed run resumes from the model's response cache.

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
    out = np.empty((len(queries), len(candidates)), dtype=np.float32)
    step_c = max(1, min(len(candidates), chunk))
    step_q = max(1, chunk // step_c)
    for q0 in range(0, len(queries), step_q):
        block = queries[q0 : q0 + step_q]
        for c0 in range(0, len(candidates), step_c):
            cands = candidates[c0 : c0 + step_c]
            out[q0 : q0 + len(block), c0 : c0 + len(cands)] = _score_block(model, block, cands, scoring, normalise)
    return out


def _score_block(model: Any, queries: list[str], candidates: list[str], scoring: str, normalise: str) -> np.ndarray:
    """One chunk of :func:`score_queries` (queries × candidates)."""
    if getattr(model, "backend", "") in {"masked", "seq2seq"} or scoring == "prefix":
        return np.asarray(model.rank_candidates(queries, candidates, slot=SLOT, reduce="mean"), dtype=np.float32)
    if hasattr(model, "loglikelihood_groups"):  # one cache row per (query, candidate chunk): resumable
        groups = [(prefix, [c + suffix for c in candidates])
                  for prefix, suffix in (split_template(q, SLOT) for q in queries)]
        results = [r for row in model.loglikelihood_groups(groups) for r in row]
    else:  # a plain scorer (tests, adapters) with only loglikelihood(pairs)
        results = model.loglikelihood(sentence_pairs(queries, candidates))
    values = [r.logprob / max(r.n_tokens, 1) if normalise == "mean" else r.logprob for r in results]
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
          normalise: str = "mean", vectors: np.ndarray | None = None, model_name: str | None = None, n_top: int = 5) -> pd.DataFrame:
    """Probe one model on a table of dishes: one tidy row per (dish, template) with ``ap, p1, p5,
    n_gold`` (fractions), ``ws`` when candidate ``vectors`` are given, and the top predictions.

    ``table`` needs ``url, dish, origin, group, ingredients`` (the dish name may be in another
    language than ``lang`` — code-switching); all queries go to the model in one call.

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
    candidates = list(candidates)
    queries = build_queries(table, lang, context=context, version=version, template_ids=template_ids)
    scores = score_queries(model, queries["query"].tolist(), candidates, scoring=scoring, normalise=normalise)
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
    out = pd.DataFrame({"url": table["url"], "template": 0, "query": "", "model": "frequency baseline",
                        "lang": lang, "context": False, "group": table["group"], "dish": table["dish"],
                        "gold": gold_lists})
    out = pd.concat([out.reset_index(drop=True), rank_metrics(scores, gold_matrix(gold_lists, candidates))], axis=1)
    if vectors is not None:
        out["ws"] = word_similarity(scores, gold_lists, candidates, vectors)
    out["top"] = top_k(scores, candidates, n_top)
    out["n_candidates"] = len(candidates)
    return out


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


def comparability(job: ProbeJob, *, data_source: str | None, model_spec: str,
                  template_ids: Sequence[int], metric: str = "mAP",
                  encoder_spec: str | None = None) -> tuple[str, str]:
    """The ``(data, protocol)`` comparability of one job's scores with the paper's table
    (:func:`culturelab.reported.compare`): ``data`` is ``"same"`` only for the released data with
    every dish of the sub-dataset probed; ``protocol`` lists how the run differs from the paper's
    (masked LMs, all five templates, the full candidate set). For ``metric="mWS"`` the vectors
    must be fastText's as in the paper (``encoder_spec="fasttext:…"``); other encoders' word
    similarities are a different scale, so the protocol says so and no Δ is drawn.

    >>> t = pd.DataFrame({"url": list("uv"), "group": "a", "lang": "en", "ingredients": [["egg"], ["rice"]]})
    >>> job = probe_jobs({"en": t}, per_group=0, max_total=0, max_candidates=0)[0]
    >>> comparability(job, data_source="released", model_spec="masked:bert-base-cased", template_ids=[1, 2, 3, 4, 5])
    ('same', 'same')
    >>> comparability(job, data_source="sample", model_spec="bundled:gemma3-270m", template_ids=[1])[1]
    'causal LM sentence scoring (paper: masked LMs); templates [1] of 1-5'
    >>> comparability(job, data_source="released", model_spec="masked:bert-base-cased", template_ids=[1, 2, 3, 4, 5],
    ...               metric="mWS", encoder_spec="bundled:e5-small")[1]
    'mWS from bundled:e5-small vectors (paper: fastText)'
    """
    from culturelab.reported import SAME, data_of

    n, total = len(job.table), len(job.reference)
    data = data_of(data_source)
    if data == SAME and n < total:
        data = f"{n} of {total} dishes"
    differs = []
    model_kind = {"masked": "masked", "seq2seq": "seq2seq"}.get(model_spec.split(":", 1)[0], "causal")
    if model_kind != "masked":
        differs.append(f"{model_kind} LM sentence scoring (paper: masked LMs)")
    if sorted(template_ids) != [1, 2, 3, 4, 5]:
        differs.append(f"templates {list(template_ids)} of 1-5")
    if metric == "mWS" and not str(encoder_spec or "").startswith("fasttext:"):
        differs.append(f"mWS from {encoder_spec} vectors (paper: fastText)")
    full = len(candidate_set(job.reference["ingredients"]))
    if len(job.candidates) < full:
        differs.append(f"{len(job.candidates)} of {full} candidates")
    return data, "; ".join(differs) or SAME


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


def probe_grid(model: Any, jobs: Iterable[ProbeJob], *, template_ids: Sequence[int], contexts: Sequence[bool],
               version: str = "v1", scoring: str = "auto", normalise: str = "mean", encoder: Any = None,
               baseline: bool = True, seed: int = 0) -> pd.DataFrame:
    """Probe ``model`` on several jobs in every context, plus the frequency baseline once per job
    (``baseline``); mWS when an ``encoder`` is given. One tidy per-(dish, template) table, with
    each job's ``extra`` columns. ``model=None`` (a backend that cannot rank, e.g. a replay file
    of generations) gives the baseline's rows only.

    >>> t = pd.DataFrame({"url": ["u1", "u2"], "dish": ["a", "b"], "group": "G", "origin": "Italy",
    ...                   "ingredients": [["egg"], ["egg"]]})
    >>> job = ProbeJob(t, "en", ["egg", "tea"], t, {"setting": "EN_en"})
    >>> from culturelab.models.base import LogLikelihood
    >>> class Fake:  # a stand-in model: shorter continuations are likelier
    ...     spec = "fake"
    ...     def loglikelihood(self, pairs):
    ...         return [LogLikelihood(-len(c), 1, False) for _, c in pairs]
    >>> out = probe_grid(Fake(), [job], template_ids=[1], contexts=[False])
    >>> out[["model", "setting", "ap"]].drop_duplicates().to_dict("records")  # "egg" and "tea" tie for Fake
    [{'model': 'fake', 'setting': 'EN_en', 'ap': 0.75}, {'model': 'frequency baseline', 'setting': 'EN_en', 'ap': 1.0}]
    """
    if model is None and not baseline:
        raise ValueError("probe_grid: no model and no baseline: nothing to probe")
    parts = []
    for job in jobs:
        vectors = None if encoder is None else encoder.encode(list(job.candidates), role="query")
        for context in contexts if model is not None else ():
            out = probe(model, job.table, job.lang, job.candidates, context=context, template_ids=template_ids,
                        version=version, scoring=scoring, normalise=normalise, vectors=vectors)
            parts.append(out.assign(**job.extra))
        if baseline:
            base = probe_frequency(job.table, job.lang, job.candidates, reference=job.reference, vectors=vectors,
                                   seed=seed)
            parts.extend(base.assign(context=c, **job.extra) for c in contexts)
    return pd.concat(parts, ignore_index=True)
