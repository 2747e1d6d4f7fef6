"""Figure 4 (paper §7): how often is a culture-specific concept translated literally?

For each concept (``resources/concepts.yaml``: baking, cheese, steam, tofu, starch, and the
control 'oil') and each system, count the concept's source-language terms in every source
recipe (``c_source``) and the concept's *direct translation* in the corresponding output
(``c_target``); the literal-translation rate is ``Σ_r min(c_target, c_source) / Σ_r c_source``
(per-recipe clipping keeps it in [0, 1]; ``clip=False`` gives the raw ratio). An *invalid* output
(empty, or not in the target language: the adaptation table's ``valid``) is its own class: its
occurrences are counted apart (``c_invalid``, ``invalid_share``) and left out of the rate, which
is over the occurrences whose output is valid — an output that failed is not an adaptation. English terms
match as whole words, Chinese terms as substrings minus listed exclusions (酱油 'soy sauce' is
not 油 'oil').

>>> count_terms("Bake the bread; baked goods. Oven at 350.", ["bake", "baked", "oven"], "en")
3
>>> count_terms("锅中放油，加酱油和蚝油", ["油"], "zh", exclude=["酱油", "蚝油"])
1
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import pandas as pd
import yaml

from culturelab.cultural_recipes.data import LANGS, strip_headings
from culturelab.plots.honest import MIN_N
from culturelab.stats import proportion_ci


@dataclass(frozen=True)
class Concept:
    """One concept in one direction: source terms, literal translations, exclusions."""

    name: str
    direction: str
    source: tuple[str, ...]
    literal: tuple[str, ...]
    exclude_source: tuple[str, ...] = ()
    exclude_literal: tuple[str, ...] = ()
    control: bool = False
    meta: dict = field(default_factory=dict, compare=False, hash=False)


@cache
def load_concepts() -> tuple[Concept, ...]:
    """The concepts of Figure 4 (a concept marked ``both`` yields one entry per direction)."""
    path = resources.files("culturelab.cultural_recipes") / "resources" / "concepts.yaml"
    with path.open(encoding="utf-8") as fh:
        spec = yaml.safe_load(fh)
    out = []
    for name, c in spec["concepts"].items():
        if c["direction"] == "both":
            out.append(Concept(name, "zh2en", tuple(c["zh"]), tuple(c["en"]), tuple(c.get("exclude_zh", ())), (),
                               bool(c.get("control"))))
            out.append(Concept(name, "en2zh", tuple(c["en"]), tuple(c["zh"]), (), tuple(c.get("exclude_zh", ())),
                               bool(c.get("control"))))
        else:
            out.append(Concept(name, c["direction"], tuple(c["source"]), tuple(c["literal"]),
                               tuple(c.get("exclude_source", ())), tuple(c.get("exclude_literal", ())),
                               bool(c.get("control"))))
    return tuple(out)


@cache
def _en_pattern(terms: tuple[str, ...]) -> re.Pattern:
    alternatives = sorted((re.escape(t).replace(r"\ ", r"\s+") for t in terms), key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z])(?:" + "|".join(alternatives) + r")(?![A-Za-z])", re.IGNORECASE)


def count_terms(text: str, terms: list[str] | tuple[str, ...], lang: str, *, exclude: list[str] | tuple[str, ...] = ()
                ) -> int:
    """Occurrences of any of ``terms`` in ``text`` (whole words in English, substrings in Chinese
    after removing the ``exclude`` strings)."""
    text = strip_headings(text)
    if lang == "en":
        return len(_en_pattern(tuple(terms)).findall(text))
    for ex in exclude:
        text = text.replace(ex, " ")
    pattern = "|".join(sorted(map(re.escape, terms), key=len, reverse=True))
    return len(re.findall(pattern, text))


def literal_rates(outputs: pd.DataFrame, concepts: tuple[Concept, ...] | None = None, *, clip: bool = True
                  ) -> pd.DataFrame:
    """Literal-translation rate per (concept, direction, system), invalid outputs apart.

    ``outputs`` needs ``direction, system, source_text, prediction`` and ``valid`` (an adaptation
    table; without ``valid`` every output counts as valid). Returns ``concept, direction, system,
    c_source`` (occurrences in the source recipes), ``c_valid`` / ``c_invalid`` (those whose output
    is valid / invalid), ``c_literal``, ``recipes``, ``rate`` (``c_literal / c_valid``) with its
    95 % Wilson interval (``ci_low``, ``ci_high``; with ``clip`` only), ``invalid_share``
    (``c_invalid / c_source``) with its interval (``invalid_low``, ``invalid_high``), and ``control``.

    >>> c = (Concept("oil", "zh2en", ("油",), ("oil",)),)
    >>> out = pd.DataFrame({"direction": "zh2en", "system": "m", "source_text": ["放油", "油", "油"],
    ...                     "prediction": ["Add oil", "", "红烧"], "valid": [True, False, False]})
    >>> literal_rates(out, c)[["c_source", "c_valid", "c_invalid", "c_literal", "rate", "invalid_share"]].values.tolist()
    [[3.0, 1.0, 2.0, 1.0, 1.0, 0.6666666666666666]]
    """
    concepts = concepts or load_concepts()
    rows = []
    for concept in concepts:
        src_lang, trg_lang = LANGS[concept.direction]
        part = outputs[outputs["direction"] == concept.direction]
        for system, sys_part in part.groupby("system", sort=False):
            c_src = [count_terms(s, concept.source, src_lang, exclude=concept.exclude_source)
                     for s in sys_part["source_text"]]
            c_tgt = [count_terms(p, concept.literal, trg_lang, exclude=concept.exclude_literal)
                     for p in sys_part["prediction"]]
            valid = sys_part["valid"].astype(bool).tolist() if "valid" in sys_part else [True] * len(c_src)
            total = sum(c_src)
            c_valid = sum(s for s, ok in zip(c_src, valid) if ok)
            hit = sum(min(t, s) if clip else t for s, t, ok in zip(c_src, c_tgt, valid) if s > 0 and ok)
            low, high = proportion_ci(hit, c_valid) if clip else (float("nan"), float("nan"))
            inv_low, inv_high = proportion_ci(total - c_valid, total)
            rows.append({"concept": concept.name, "direction": concept.direction, "system": system,
                         "c_source": total, "c_valid": c_valid, "c_invalid": total - c_valid, "c_literal": hit,
                         "recipes": sum(1 for s in c_src if s > 0),
                         "rate": hit / c_valid if c_valid else float("nan"), "ci_low": low, "ci_high": high,
                         "invalid_share": (total - c_valid) / total if total else float("nan"),
                         "invalid_low": inv_low, "invalid_high": inv_high, "control": concept.control})
    return pd.DataFrame(rows)


def figure4_findings(rates: pd.DataFrame, drawn: bool | None = None) -> str:
    """What Figure 4 shows in this run, as Markdown written from :func:`literal_rates`' table
    (every number from it): per system, the concept occurrences whose output was invalid (left
    out of its rates, shown apart), and for each system but the references on how many
    culture-specific concepts its literal rate is above the reference's (*Ref*, same concept and
    direction; a ``control`` concept such as 'oil', whose literal translation is the right one, is
    left out of that count and named). ``drawn``: whether
    the figure was saved (``False``: the sentence says why the table stands in for it — no system
    but the references has a valid output, or too few occurrences per bar).

    >>> r = pd.DataFrame({"concept": ["oil", "steam"], "direction": "zh2en", "c_source": [12, 4],
    ...                   "c_invalid": [3, 0], "rate": [0.9, 0.0], "system": "m", "control": [True, False]})
    >>> ref = r.assign(system="Ref = retrieved recipe", c_invalid=0, rate=[0.8, 0.5])
    >>> print(figure4_findings(pd.concat([r, ref])))  # doctest: +NORMALIZE_WHITESPACE
    **Figure 4 in this run**: m — 3 of 16 concept occurrences had an invalid output (left out of its rates,
    shown apart); its literal rate is above Ref's for 0 of 1 culture-specific concepts (oil, the control, left
    out). Ref = retrieved recipe — 0 of 16 concept occurrences had an invalid output.
    >>> print(figure4_findings(pd.concat([r.assign(c_invalid=[12, 4], rate=float("nan")), ref]), drawn=False))
    ... # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    **Figure 4 in this run** (the table below, not a figure: no output of m is valid, so no system has a
    literal-translation rate to set beside Ref's): m — 16 of 16 concept occurrences had an invalid output ...
    """
    if rates.empty or not rates["c_source"].sum():
        return "**Figure 4 in this run**: no concept occurs in the source recipes here."
    refs = rates[rates["system"].str.startswith("Ref = ")].set_index(["concept", "direction"])["rate"]
    parts = []
    for system, part in rates.groupby("system", sort=False):
        text = (f"{system} — {int(part['c_invalid'].sum())} of {int(part['c_source'].sum())} concept occurrences had "
                "an invalid output")
        if not system.startswith("Ref = "):
            text += " (left out of its rates, shown apart)"
            control = part["control"].astype(bool) if "control" in part else pd.Series(False, index=part.index)
            cultural = part[~control]
            both = [(r, refs.get((c, d))) for c, d, r in zip(cultural["concept"], cultural["direction"],
                                                               cultural["rate"])]
            both = [(r, ref) for r, ref in both if pd.notna(r) and ref is not None and pd.notna(ref)]
            if both:
                controls = ", ".join(dict.fromkeys(part.loc[control, "concept"]))
                text += (f"; its literal rate is above Ref's for {sum(r > ref for r, ref in both)} of {len(both)} "
                         "culture-specific concepts" + (f" ({controls}, the control, left out)" if controls else ""))
        parts.append(text + ".")
    return "**Figure 4 in this run**" + _shown_as(rates, drawn) + ": " + " ".join(parts)


def _shown_as(rates: pd.DataFrame, drawn: bool | None) -> str:
    """How Figure 4 is shown (``drawn``: the figure was saved), written from the rates.

    >>> r = pd.DataFrame({"system": ["m", "Ref = x"], "rate": [0.5, 0.5], "c_source": [4, 4]})
    >>> _shown_as(r, True), _shown_as(r, None)
    (' (drawn above, per concept and direction)', '')
    >>> _shown_as(r, False)
    ' (the table below, not a figure: every concept occurs fewer than 10 times in these source recipes, at most 4)'
    """
    if drawn is None:
        return ""
    if drawn:
        return " (drawn above, per concept and direction)"
    systems = rates[~rates["system"].str.startswith("Ref = ")]
    if not systems["rate"].notna().any():
        names = ", ".join(dict.fromkeys(systems["system"])) or "any system"
        return (f" (the table below, not a figure: no output of {names} is valid, so no system has a "
                "literal-translation rate to set beside Ref's)")
    return (f" (the table below, not a figure: every concept occurs fewer than {MIN_N} times in these source "
            f"recipes, at most {int(rates['c_source'].max())})")
