"""PERCUL prompts: the paper's benchmarking prompt (Figure 9) filled per story.

The template text lives in ``culturelab/prompts/percul.yaml`` (``v1`` = Figure 9 verbatim,
``v2`` = question on one line). ``{CAT}`` is the category's Persian word (only "هنجار اجتماعی"
for Appropriacy is attested; the rest are our proposal) — override it with ``cat_labels``.

>>> p = build_prompt("داستان", "Foods", ["الف", "ب", "پ", "ت"])
>>> p.splitlines()[:3]
['داستان', 'با توجه به متن بالا کدام', 'غذا']
>>> p.splitlines()[4]
'۱)الف'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from culturelab import prompts
from culturelab.percul.data import SPLITS

PAPER = "percul"
#: the template versions of culturelab/prompts/percul.yaml (v1 = Figure 9 verbatim, v2 = question on one line)
VERSIONS = tuple(prompts.versions(PAPER, "bench_fa"))
PERSIAN_DIGITS = ["۱", "۲", "۳", "۴"]
LATIN_DIGITS = ["1", "2", "3", "4"]


def category_labels(language: str = "fa", overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``{CAT}`` word per canonical category (``fa`` or ``en``), with optional overrides.

    >>> category_labels("fa")["Appropriacy"]
    'هنجار اجتماعی'
    """
    labels = dict(prompts.get(PAPER, f"category_{language}", "v1"))  # type: ignore[call-overload]
    unknown = set(overrides or {}) - set(labels)
    if unknown:
        raise ValueError(f"cat_labels: unknown categories {sorted(unknown)}; use {sorted(labels)}")
    labels.update(overrides or {})
    return labels


def language_of(split: str) -> str:
    """``fa`` for ``original_persian``, ``en`` for ``gpt_english_translation``."""
    return "en" if split == SPLITS[1] else "fa"


def build_prompt(story: str, category: str, options: Sequence[str], *, language: str = "fa",
                 version: str = "v1", with_response_format: bool = True, answer_in_persian: bool = True,
                 cat_labels: Mapping[str, str] | None = None) -> str:
    """The full prompt for one story: question (+ the JSON response instruction of Figure 9)."""
    if version not in VERSIONS:
        raise ValueError(f"prompt_version must be one of {list(VERSIONS)}, not {version!r}")
    if len(options) != 4:
        raise ValueError(f"PERCUL questions have 4 options, got {len(options)}")
    template = prompts.get(PAPER, f"bench_{language}", version)
    if with_response_format:
        name = "response_format" if answer_in_persian else "response_format_no_language"
        template += prompts.get(PAPER, name, version)
    labels = cat_labels if cat_labels is not None else category_labels(language)
    return template.format(STORY=story, CAT=labels[str(category)], CH1=options[0], CH2=options[1],
                           CH3=options[2], CH4=options[3])


def add_prompts(items: pd.DataFrame, *, version: str = "v1", answer_in_persian: bool = True,
                cat_labels: Mapping[str, str] | None = None, options_col: str = "options") -> pd.DataFrame:
    """Add ``prompt`` (Figure 9: question + JSON instruction, for generation) and ``question``
    (the question alone, for log-likelihood scoring) to a table of stories (any split).

    >>> from culturelab.percul.data import load
    >>> t = add_prompts(load(data_source="sample").items.head(2))
    >>> t["prompt"].iloc[0].endswith("}\\n"), "Choice Number" in t["question"].iloc[0]
    (True, False)
    """
    out = items.copy()
    prompts_, questions = [], []
    for story, cat, opts, split in zip(out["story"], out["category"], out[options_col], out["split"]):
        lang = language_of(split)
        labels = category_labels(lang, cat_labels if lang == "fa" else None)
        kw = {"language": lang, "version": version, "cat_labels": labels}
        prompts_.append(build_prompt(story, cat, opts, answer_in_persian=answer_in_persian, **kw))
        questions.append(build_prompt(story, cat, opts, with_response_format=False, **kw))
    out["prompt"] = prompts_
    out["question"] = questions
    return out


def answer_cue(language: str = "fa", version: str = "v1") -> str:
    """The cue after which option texts are scored in log-likelihood mode (ours).

    >>> answer_cue("en")
    'Answer:'
    """
    return prompts.get(PAPER, f"answer_cue_{language}", version)
