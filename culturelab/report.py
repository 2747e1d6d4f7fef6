"""Numbers in a notebook's prose come from its results: :func:`md` renders a Markdown template with
values taken from the run's tables (:func:`cell`), and :func:`typed_numbers` finds the result
numbers a Markdown cell states by hand (``tests/test_notebook_prose.py`` runs it over every notebook).

In a notebook::

    report.md("Echoing the question scores BERTScore {echo:.2f}, the model's replies {ours:.2f}.",
              echo=report.cell(summary, "mean", system="echo question", metric="bertscore"),
              ours=report.cell(summary, "mean", system=lm.spec, metric="bertscore"))

What counts as a result number stated by hand (:func:`typed_numbers`), in a Markdown cell's text
outside code spans and outside sentences that cite the paper:

* a decimal (``0.45``, ``.38``, ``±0.1``) or a percentage (``45 %``), except a confidence level
  (``95 % CI``, ``95 % bootstrap``, ``95 % Wilson intervals``);
* a count ``n = 35`` / ``n=35``;
* a count per unit (``35 per language``, ``5 per bar``) and a share (``25 of 28``);
* in a sentence about a run (it says "run" or "drawn"), a count of what the run scores (``70
  questions``, ``one procedure``, ``no 10-step procedure is drawn``: questions, procedures, stories,
  dishes, items, instances, answers, queries, picks, recipes, replies, summaries, documents, outputs,
  points, bars, cells).

Not counted: numbers that cite the paper — within 100 characters after, or 40 before, a mention of
the paper in the same sentence ("paper", a table, a figure, a footnote, "reported", "published",
"the authors"), unless words about our run stand between the mention and the number ("our", "we",
"here", "measured", "re-scored", "the run": "the paper reports 47.64, our parser 51.97" counts 51.97), and
unless the number is set beside the paper's in brackets ("20.47 % (paper 20.28)" counts 20.47 %) —, section/table/figure/notebook numbers, years, model sizes
(``270M``, ``7B``), numbers inside names (``Qwen2.5``, ``Llama-3.1``), metric names (``P@1``, ``R@5``) and everything in code spans
(parameter values: ``max_procedures: 70``) and ``$…$`` math (a formula's weights). Fractions (``1/4``, ``¼``) are not decimals: a chance
level of four options is written as one.

>>> typed_numbers("Chance is 1/4. In the default run each type holds 70 questions (35 per language), CIs ±0.1.")
['70 questions', '35 per language', '±0.1']
>>> typed_numbers("The paper's Table 4 gives 0.63 for GPT-4o. With `max_procedures: 70` the run takes two per cell.")
['two per cell']
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

_WORD_NUMBERS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
                 "fifty|hundred")
_NUMBER = rf"(?:\d[\d,]*|{_WORD_NUMBERS})"
#: what a run counts: a number of these is a result of the run (its size), not a constant
_UNITS = ("procedures?|questions?|stories|story|dishes|dish|items?|instances?|answers?|queries|query|picks?|"
          "recipes?|replies|reply|summaries|documents?|outputs?|points?|bars?|cells?")
#: a word between a count and its unit ("16 PB-MCQ questions", "34 Persian stories")
_QUALIFIER = r"(?:[\w-]*[A-Z][\w-]*|\w+-\w+)"
#: a mention of the paper: the numbers of its sentence up to this many characters after it, or this
#: many before it, are the paper's
_CITE_BEFORE, _CITE_AFTER = 100, 40
#: a mention of the paper (or of one of its tables, figures, footnotes)
_CITES_PAPER = re.compile(r"\b(?:paper|paper's|Tables?\s+\d|Fig(?:ure|s?\.)\s*\d|footnote|reported|published|"
                          r"the authors)", re.I)
#: words about our own run: a number they stand before belongs to the run, not to a nearby mention of the paper
_OURS = re.compile(r"\b(?:our|ours|we|here|measured|re-?scor\w*|recomputed|this run|the run|default run)\b", re.I)
#: a number set beside the paper's: "… (paper 20.28", "… (the paper's 0.63"
_BESIDE = re.compile(r"^\s*%?\s*\((?:the\s+)?paper(?:'s)?:?\s*[±≈]?\d")
_CODE = re.compile(r"`[^`]*`|\$[^$]+\$")
_EXEMPT = [
    re.compile(r"§\s*\d[\d.]*"),
    re.compile(r"\b(?:Tables?|Figs?\.|Figures?|[Ss]ections?|[Nn]otebooks?|[Ff]ootnotes?|[Ee]q\.|[Aa]ppendix|"
               r"[Ss]teps?|[Cc]olumns?|[Rr]ows?)\s*\d+(?:\.\d+)*(?:\s*(?:,|and|to|–|-)\s*\d+(?![\d.]))*"),
    re.compile(r"\b(?:19|20)\d\d\b"),                                   # years
    re.compile(r"\b\d+(?:\.\d+)+\s+\d+(?:\.\d+)?\s?[MBK]\b"),               # versions before sizes: Llama 3.1 8B
    re.compile(r"\b\d+(?:\.\d+)?\s?[MBK]\b"),                           # model sizes: 270M, 7B, 1.5B
    re.compile(r"[A-Za-z][\w-]*?\d+(?:\.\d+)+[\w-]*"),                  # names: Qwen2.5, Llama-3.1-8B
    re.compile(r"\b(?:P|R|Hits|MRR)@\d+"),                               # metric names: P@1, R@5
    re.compile(r"\b\d+\s?%\s*(?:CIs?|confidence|bootstrap|Wilson|clustered|intervals?)", re.I),  # a confidence level
]
_PATTERNS = [
    re.compile(r"[±≈]?\s?(?<![\w.])\d*\.\d+(?:\s?[–-]\s?\d*\.\d+)?"),  # decimals (and ranges of them)
    re.compile(r"\b\d+(?:\.\d+)?\s?%"),                                 # percentages
    re.compile(r"\bn\s?=\s?\d[\d,]*"),                                  # n = 35
    re.compile(rf"\b{_NUMBER}\s+per\s+[a-z-]+", re.I),                  # 5 per bar, 35 per language
    re.compile(r"\b\d[\d,]*\s+of\s+\d[\d,]*\b"),                        # 25 of 28
]
#: in a sentence about a run (it says "run" or "drawn"), a count of what the run scores
_RUN = re.compile(r"\bruns?\b|\bdrawn\b", re.I)
_RUN_COUNT = re.compile(rf"\b{_NUMBER}(?:-step)?\s+(?:{_QUALIFIER}\s+)?(?:{_UNITS})\b", re.I)


def _sentences(markdown: str) -> list[str]:
    text = _CODE.sub(" ", markdown)
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*[-*|#])", text)
    return [s for p in paragraphs for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*(])", " ".join(p.split()))]


def typed_numbers(markdown: str) -> list[str]:
    """The result numbers stated by hand in a Markdown text (see the module's rules), in order.

    >>> typed_numbers("Echo scores ≈ 0.45 on both (n = 35); the model 38 % of the time.")
    ['≈ 0.45', 'n = 35', '38 %']
    >>> typed_numbers("Table 5 holds 7 models; our 95 % CI uses 2,000 resamples of Qwen2.5 in 2024, 95 % Wilson elsewhere.")
    []
    >>> typed_numbers("P@1 per mode with 95 % intervals.")
    []
    >>> typed_numbers("Our model scores 0.31 on the sample stories, far below what the paper reports for GPT-4o, 0.63.")
    ['0.31']
    >>> typed_numbers("In the variant the paper reports, our parser re-scores the answers to 51.97 % (paper 47.64).")
    ['51.97']
    """
    found = []
    for sentence in _sentences(markdown):
        cites = [(m.start(), m.end()) for m in _CITES_PAPER.finditer(sentence)]
        original = sentence
        for pattern in _EXEMPT:  # same length: the positions of the citations stay valid
            sentence = pattern.sub(lambda m: " " * len(m.group()), sentence)
        patterns = [*_PATTERNS, *([_RUN_COUNT] if _RUN.search(sentence) else [])]
        hits = sorted((m.start(), m.end(), m.group().strip()) for p in patterns for m in p.finditer(sentence))
        kept: list[tuple[int, int, str]] = []
        for start, end, text in hits:  # a number matched by two patterns counts once
            if not kept or start >= kept[-1][1]:
                kept.append((start, end, text))
        found += [text for start, end, text in kept if not _cited(original, start, end, cites)]
    return found


def _cited(sentence: str, start: int, end: int, cites: list[tuple[int, int]]) -> bool:
    """Whether the number at ``start:end`` of ``sentence`` is the paper's: near a mention of the
    paper (``cites``), with no words about our run between them, and not set beside the paper's."""
    after = any(0 <= start - c_end <= _CITE_BEFORE and not _OURS.search(sentence[c_end:start]) for _, c_end in cites)
    before = any(0 <= c_start - end <= _CITE_AFTER and not _OURS.search(sentence[end:c_start]) for c_start, _ in cites)
    return after or (before and not _BESIDE.match(sentence[end:]))


def cell(table: pd.DataFrame, column: str, **where: Any) -> Any:
    """The value of ``column`` in the one row of ``table`` that matches ``where`` (column = value);
    ``KeyError`` naming the condition when no row or several rows match.

    >>> t = pd.DataFrame({"system": ["echo", "model"], "metric": "ss", "mean": [0.41, 0.35]})
    >>> cell(t, "mean", system="model", metric="ss")
    0.35
    >>> cell(t, "mean", metric="ss")
    Traceback (most recent call last):
    KeyError: "2 rows of the table match {'metric': 'ss'}, not one"
    """
    rows = table
    for key, value in where.items():
        rows = rows[rows[key] == value]
    if len(rows) != 1:
        raise KeyError(f"{len(rows)} rows of the table match {where}, not one")
    value = rows[column].iloc[0]
    return value.item() if hasattr(value, "item") else value


def md(template: str, /, **values: Any) -> Any:
    """``template`` (a :meth:`str.format` template) filled with ``values``, as Markdown: displayed as
    text in a notebook (IPython's ``Markdown``); ``.data`` holds the string.

    >>> md("Echo scores {echo:.2f} ({n} replies).", echo=0.4127, n=70).data
    'Echo scores 0.41 (70 replies).'
    """
    from IPython.display import Markdown

    return Markdown(template.format(**values))


def against_chance(table: pd.DataFrame, *, chance: float, score: str = "accuracy", low: str = "ci_low",
                   high: str = "ci_high", label: str = "method", invalid: str = "invalid_rate", n: str = "n") -> str:
    """A Markdown list, one item per row of a score table, true for any model: the row's score and
    interval set against ``chance`` — *above chance* when the interval's lower end is above it, *below
    chance* when its upper end is below it, else *not distinguishable from chance* — and its invalid answers.

    >>> t = pd.DataFrame({"method": ["generate", "loglikelihood"], "accuracy": [1.0, 0.25], "ci_low": [0.76, 0.05],
    ...                   "ci_high": [1.0, 0.6], "n": [12, 12], "invalid_rate": [0.0, 0.5]})
    >>> print(against_chance(t, chance=0.25))
    - generate: 1.00 [0.76, 1.00] over 12 answers, above chance (0.25); every answer valid.
    - loglikelihood: 0.25 [0.05, 0.60] over 12 answers, not distinguishable from chance (0.25); 6 of 12 answers invalid (counted wrong).
    """
    lines = []
    for row in table.to_dict("records"):
        where = ("above chance" if row[low] > chance else "below chance" if row[high] < chance
                 else "not distinguishable from chance")
        bad = round(row[invalid] * row[n])
        validity = "every answer valid" if bad == 0 else f"{bad} of {row[n]} answers invalid (counted wrong)"
        lines.append(f"- {row[label]}: {row[score]:.2f} [{row[low]:.2f}, {row[high]:.2f}] over {row[n]} answers, "
                     f"{where} ({chance:.2f}); {validity}.")
    return "\n".join(lines)
