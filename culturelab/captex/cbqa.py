"""Task 4 — CB-QA: the model writes Person B's missing reply; scored against the human-
verified fourth utterance with ROUGE-L F1, BERTScore F1 and embedding similarity (SS).

The paper names neither implementation nor backbone (spec §2, Task 4). Ours, all parameters:
``rouge-score`` ROUGE-L (Porter stemmer on/off), BERTScore with a local backbone
(``bundled:minilm`` = all-MiniLM-L6-v2, or any BERT-like folder / hub id), optionally
rescaled by a **dataset baseline** (the mean F1 of mismatched reference pairs, BERTScore's own
recipe applied to this data, because ``bert-score`` ships no baseline for local backbones),
and cosine similarity of sentence embeddings (``bundled:minilm``, ``bundled:e5-small``, ``st:…``).
The ``Next step: N`` marker is stripped from references (the loader already does it), and
speaker labels and any continued dialogue from the model's reply.

>>> clean_reply("Person B: They boil it.\\nPerson A: Thanks!")
'They boil it.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from culturelab.metrics.generation import bertscore, embedding_similarity, rouge_l
from culturelab.models.base import LanguageModel
from culturelab.parsing import INVALID, REFUSAL, STRICT, Parse, find_refusal, strip_think

METRICS = ("rouge_l", "bertscore", "ss")
#: why a CB-QA figure has no chance line: its model-free calibration replies are the reference
NO_CHANCE = "ROUGE-L, BERTScore and SS have no chance level; the calibration replies are the reference"
_SPEAKER = re.compile(r"^\s*\**\s*(?:person\s*b|b)\s*\**\s*:\s*\**\s*", re.I)
_NEXT = re.compile(r"\**\s*next\s+step\s*\**\s*[:：]?\s*\(?\d+\)?\.?", re.I)
_TURN = re.compile(r"\n\s*\**\s*person\s*[ab]\s*\**\s*:|\bPerson A\s*:", re.I)


def clean_reply(text: str) -> str:
    """Strip reasoning, a leading ``Person B:``, a ``Next step: N`` marker and whatever comes
    after the model starts another turn."""
    text = strip_think(text)
    text = _SPEAKER.sub("", text.strip())
    cut = _TURN.search(text)
    if cut:
        text = text[: cut.start()]
    return _NEXT.sub("", text).strip()


def parse_reply(text: str) -> Parse:
    """A reply under the parser contract of :mod:`culturelab.parsing`: the cleaned reply
    (:func:`clean_reply`), ``strict`` when anything is left, ``refusal`` when the model declines,
    ``invalid`` when empty.

    >>> [parse_reply(t).verdict for t in ["Person B: Boil it.", "I'm sorry, I can't help.", "</think>"]]
    ['strict', 'refusal', 'invalid']
    """
    reply = clean_reply(text)
    if not reply:
        return Parse(None, INVALID, "empty")
    if find_refusal(reply):
        return Parse(None, REFUSAL, REFUSAL)
    return Parse(reply, STRICT, "reply")


def valid_share(replies: pd.DataFrame) -> float:
    """The share of ``replies`` (``parse_verdict``, :func:`generate_replies`) that are an answer: not
    empty, not a refusal — the free-generation validity a CB-QA figure shows beside its scores.

    >>> valid_share(pd.DataFrame({"parse_verdict": ["strict", "refusal", "invalid", "strict"]}))
    0.5
    """
    return float((replies["parse_verdict"] == STRICT).mean()) if len(replies) else float("nan")


def cbqa_frame(conversations: pd.DataFrame, template: str) -> pd.DataFrame:
    """CB-QA instances with their prompt (utterances 1–3) and ``reference`` (utterance 4).

    >>> from culturelab.captex.data import load
    >>> f = cbqa_frame(load(data_source="sample").conversations, "{country}: {context}")
    >>> "Next step" in " ".join(f["reference"]), f["task"][0]
    (False, 'CB-QA')
    """
    out = conversations.copy()
    out["prompt"] = [template.format(country=c, context=ctx) for c, ctx in zip(out["country"], out["context"])]
    out["task"], out["language"], out["lang_group"] = "CB-QA", "en", "English"
    return out.reset_index(drop=True)


def generate_replies(model: LanguageModel, frame: pd.DataFrame, *, max_new_tokens: int = 64,
                     chat: bool = True) -> pd.DataFrame:
    """One batched generation call; adds ``raw_output``, ``reply`` (cleaned), ``empty``,
    ``parse_verdict`` (:func:`parse_reply`; a refusal is still scored as the reply it is), ``model``."""
    texts = model.generate(list(frame["prompt"]), max_new_tokens=max_new_tokens, chat=chat,
                           stop=["\nPerson A", "\n\n\n"])
    out = frame.copy()
    out["raw_output"] = texts
    out["reply"] = [clean_reply(t) for t in texts]
    out["empty"] = out["reply"].str.strip() == ""
    out["parse_verdict"] = [parse_reply(t).verdict for t in texts]
    out["model"] = model.spec
    return out


def dataset_baseline(references: list[str], *, backbone: str = "bundled:minilm", seed: int = 0) -> float:
    """BERTScore F1 expected between *unrelated* texts of this data: the mean F1 of each
    reference against another (a seeded derangement). Used to rescale ``(F1 − b) / (1 − b)``.

    >>> dataset_baseline(["one"])
    0.0
    """
    references = list(dict.fromkeys(references))  # a repeated reference must not be paired with itself
    if len(references) < 2:
        return 0.0
    rng = np.random.default_rng(seed)
    n = len(references)
    shift = rng.permutation(np.arange(1, n))[0]  # a cyclic shift ≠ 0 is a derangement
    others = [references[(i + shift) % n] for i in range(n)]
    return float(np.mean(bertscore(references, others, model=backbone)))


def score_replies(frame: pd.DataFrame, *, bertscore_backbone: str = "bundled:minilm", bertscore_rescale: bool = False,
                  ss_encoder: str = "bundled:minilm", rouge_stemmer: bool = True, seed: int = 0) -> pd.DataFrame:
    """Per-instance ``rouge_l``, ``bertscore`` and ``ss`` (vectorised over all replies); empty
    replies score 0 on every metric. Records the backbones used and the baseline."""
    out = frame.copy()
    replies = [r if r.strip() else "" for r in out["reply"]]
    refs = list(out["reference"])
    out["rouge_l"] = rouge_l(replies, refs, use_stemmer=rouge_stemmer)
    keep = [i for i, r in enumerate(replies) if r]
    bs = np.zeros(len(replies))
    ss = np.zeros(len(replies))
    if keep:
        bs[keep] = bertscore([replies[i] for i in keep], [refs[i] for i in keep], model=bertscore_backbone)
        ss[keep] = embedding_similarity([replies[i] for i in keep], [refs[i] for i in keep], encoder=ss_encoder)
    baseline = dataset_baseline(refs, backbone=bertscore_backbone, seed=seed) if bertscore_rescale else 0.0
    out["bertscore_raw"] = bs
    out["bertscore"] = np.where(bs > 0, (bs - baseline) / (1 - baseline), 0.0) if bertscore_rescale else bs
    out["ss"] = ss
    out["bertscore_backbone"], out["bertscore_baseline"], out["ss_encoder"] = bertscore_backbone, baseline, ss_encoder
    return out


def reference_baselines(frame: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """Model-free replies that calibrate the metrics: ``echo_question`` (Person A's third
    utterance), ``other_reference`` (the reply of another conversation, a seeded derangement)
    and ``reference`` itself (the ceiling). Same columns as :func:`generate_replies`.

    >>> f = pd.DataFrame({"utterances": [["a", "b", "c", "d"], ["e", "f", "g", "h"]], "reference": ["d", "h"]})
    >>> reference_baselines(f).groupby("system")["reply"].apply(list).to_dict()["other_reference"]
    ['h', 'd']
    """
    n = len(frame)
    shift = int(np.random.default_rng(seed).integers(1, n)) if n > 1 else 0
    refs = list(frame["reference"])
    systems = {"echo_question": [u[2] for u in frame["utterances"]],
               "other_reference": [refs[(i + shift) % n] for i in range(n)], "reference": refs}
    return pd.concat([frame.assign(system=name, reply=replies, empty=False) for name, replies in systems.items()],
                     ignore_index=True)


def summarise_metrics(frame: pd.DataFrame, by: Sequence[str] = ("system",), *, seed: int = 0,
                      metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """Mean and 95 % CI of each CB-QA metric per group of ``by``, in long form (``metric``, ``mean``,
    ``ci_low``, ``ci_high``, ``n``). The metrics are continuous scores, so the interval is a bootstrap
    one whatever the values — never a binomial interval, also where every reply scores 0 or 1 (the
    reference scored against itself).

    >>> t = pd.DataFrame({"system": "reference", "rouge_l": [1.0] * 4, "bertscore": [1.0] * 4, "ss": [1.0] * 4})
    >>> summarise_metrics(t)[["metric", "mean", "ci_low", "ci_high"]].to_dict("records")[0]
    {'metric': 'rouge_l', 'mean': 1.0, 'ci_low': 1.0, 'ci_high': 1.0}
    """
    from culturelab.stats import summarise

    return pd.concat([summarise(frame, m, list(by), seed=seed, binary=False).assign(metric=m) for m in metrics],
                     ignore_index=True)
