"""FMLAMA's cloze templates as data, filled with dish names and localized country names.

Templates come from ``culturelab/prompts/fmlama.yaml`` (5 per language, plain and with the
cultural context "In [C], …"). Placeholders are replaced literally (``fill="literal"``); the
paper-era T5/mT5 code used ``re.sub("[X]", …)`` and ``re.sub("[C]", …)``, regex character classes
that replace every capital X and C and leave the brackets (:func:`regex_fill`, ``fill="regex"``).
Country names are CLDR's (:func:`country_name`, ``names="cldr"``) or the paper-era code's
dictionaries of 33 countries (:func:`paper_country_name`, ``names="paper"``).

>>> fill("The food [X] has the ingredients of [Y] .", "poutine")
'The food poutine has the ingredients of [Y] .'
>>> country_name("United States of America", "en"), country_name("People's Republic of China", "zh")
('the United States', '中国')
>>> country_name("England", "ko")
'잉글랜드'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

import pandas as pd

from culturelab import prompts
from culturelab.fmlama.data import INSTRUCTIONS, LANGUAGES

SLOT = "[Y]"
N_TEMPLATES = 5
#: how the dish and country enter a template: ``literal`` (ours, and the paper's masked-LM code) or ``regex``
#: (the paper-era T5/mT5 code's ``re.sub`` character classes)
FILLS = ("literal", "regex")
#: where country names come from: ``cldr`` (ours) or ``paper`` (the paper-era dictionaries, CLDR for the others)
NAMES = ("cldr", "paper")

#: Wikidata origin labels with no ISO country, or that pycountry does not find by name
_ISO = {"Cape Verde": "CV", "Ivory Coast": "CI", "Republic of Ireland": "IE", "Turkey": "TR", "Russia": "RU",
        "Brunei": "BN", "São Tomé and Príncipe": "ST", "United Kingdom": "GB", "United States of America": "US",
        "People's Republic of China": "CN", "South Korea": "KR", "North Korea": "KP", "Iran": "IR", "Syria": "SY",
        "Laos": "LA", "Vietnam": "VN", "Bolivia": "BO", "Venezuela": "VE", "Tanzania": "TZ",
        "Czech Republic": "CZ"}
#: constituent countries and regions (no ISO code): names written out per language
_REGIONS = {
    "England": {"en": "England", "zh": "英格兰", "ar": "إنجلترا", "he": "אנגליה", "ru": "Англия", "ko": "잉글랜드"},
    "Scotland": {"en": "Scotland", "zh": "苏格兰", "ar": "اسكتلندا", "he": "סקוטלנד", "ru": "Шотландия", "ko": "스코틀랜드"},
    "Wales": {"en": "Wales", "zh": "威尔士", "ar": "ويلز", "he": "ויילס", "ru": "Уэльс", "ko": "웨일스"},
    "Northern Ireland": {"en": "Northern Ireland", "zh": "北爱尔兰", "ar": "أيرلندا الشمالية", "he": "צפון אירלנד",
                         "ru": "Северная Ирландия", "ko": "북아일랜드"},
    "Catalonia": {"en": "Catalonia", "zh": "加泰罗尼亚", "ar": "كتالونيا", "he": "קטלוניה", "ru": "Каталония",
                  "ko": "카탈루냐"},
}
#: English names as the paper-era code wrote them ("the United States"; CLDR now says "Türkiye")
_EN_ARTICLE = {"TR": "Turkey", "US": "the United States", "GB": "the United Kingdom", "NL": "the Netherlands",
               "PH": "the Philippines", "CZ": "the Czech Republic", "DO": "the Dominican Republic",
               "AE": "the United Arab Emirates"}


@cache
def _iso(origin: str) -> str | None:
    if origin in _ISO:
        return _ISO[origin]
    import pycountry

    try:
        return pycountry.countries.lookup(origin).alpha_2
    except LookupError:
        return None


@cache
def country_name(origin: str, lang: str) -> str:
    """The origin country (English Wikidata label) written in ``lang`` for the [C] slot: CLDR
    territory names (``babel``) through the ISO code, hand-written names for England, Scotland,
    Wales, Northern Ireland and Catalonia, the English label itself when nothing is known."""
    if origin in _REGIONS:
        return _REGIONS[origin].get(lang, origin)
    code = _iso(origin)
    if code is None:
        return origin
    if lang == "en" and code in _EN_ARTICLE:
        return _EN_ARTICLE[code]
    from babel import Locale

    return Locale.parse(lang).territories.get(code, origin)


def paper_country_name(origin: str, lang: str) -> str | None:
    """The country name the paper-era code put into [C] (its dictionaries of 33 countries, repo
    66d4e11 ``access_LMs/utils.py``; ``prompts/fmlama.yaml`` ``paper_countries``), ``None`` for an
    origin they lack.

    >>> paper_country_name("United States of America", "en"), paper_country_name("Japan", "zh")
    (' the United States', '日本')
    >>> paper_country_name("Iran", "en") is None
    True
    """
    return prompts.get("fmlama", "paper_countries")[lang].get(origin)


def country_label(origin: str, lang: str, names: str = "cldr") -> str:
    """The [C] of a dish: :func:`country_name` (``names="cldr"``), or the paper-era dictionaries'
    name (``names="paper"``), CLDR's where they lack the origin.

    >>> country_label("People's Republic of China", "en", "paper"), country_label("Iran", "en", "paper")
    ('China', 'Iran')
    """
    if names not in NAMES:
        raise ValueError(f"names must be one of {NAMES}, not {names!r}")
    return (names == "paper" and paper_country_name(origin, lang)) or country_name(origin, lang)


def templates(lang: str, *, context: bool = False, version: str = "v1") -> list[str]:
    """The 5 probing templates of a language (``context=True``: the "In [C], …" variants).

    >>> templates("zh")[0]
    '美食[X]是以[Y]为主要原料制作的。'
    >>> templates("en", context=True, version="v2")[3]
    'In [C], [Y] is part of the food [X].'
    """
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, not {lang!r}")
    table = prompts.get("fmlama", f"probe_{lang}", version)
    out = list(table["context" if context else "plain"])
    if len(out) != N_TEMPLATES or any(t.count(SLOT) != 1 or t.count("[X]") != 1 for t in out):
        raise ValueError(f"prompts/fmlama.yaml probe_{lang}/{version}: need {N_TEMPLATES} templates with one [X] "
                         "and one [Y] each")
    return out


def fill(template: str, dish: str, country: str | None = None) -> str:
    """Put the dish (and country) into a template; the [Y] slot stays for the ranker.

    >>> fill("In [C], [X] is a kind of food with [Y] .", "pho", "Vietnam")
    'In Vietnam, pho is a kind of food with [Y] .'
    """
    text = template.replace("[X]", dish)
    if "[C]" in text:
        if country is None:
            raise ValueError(f"template needs a country: {template!r}")
        text = text.replace("[C]", country)
    return text


def regex_fill(template: str, dish: str, country: str | None = None) -> str:
    """The paper-era T5/mT5 fill (repo 66d4e11 ``run_prompting_experiment.py``): ``re.sub("[X]", dish, …)``
    then ``re.sub("[C]", country, …)`` — character classes, so the brackets stay and, with a country,
    every capital C (the dish's too) becomes the country.

    >>> regex_fill("The food [X] has the ingredients of [Y] .", "poutine")
    'The food [poutine] has the ingredients of [Y] .'
    >>> regex_fill("In [C], the food [X] has the ingredients of [Y] .", "Caesar salad", "Italy")
    'In [Italy], the food [Italyaesar salad] has the ingredients of [Y] .'
    """
    text = re.sub("[X]", lambda _: dish, template)
    if country is not None and "[C]" in template:
        text = re.sub("[C]", lambda _: country, text)
    return text


def build_queries(table: pd.DataFrame, lang: str, *, context: bool = False, version: str = "v1",
                  template_ids: Sequence[int] = (1, 2, 3, 4, 5), fill_rule: str = "literal",
                  names: str = "cldr") -> pd.DataFrame:
    """One cloze query per (dish, template): ``url, template, query`` (queries keep ``[Y]``).

    ``table`` needs ``url``, ``dish`` and ``origin``; ``lang`` is the template language (for
    code-switching the dish name may be in another language). ``fill_rule`` (:data:`FILLS`) and
    ``names`` (:data:`NAMES`): how dish and country enter the template.

    >>> t = pd.DataFrame({"url": ["u1"], "dish": ["poutine"], "origin": ["Canada"]})
    >>> build_queries(t, "en", context=True, template_ids=[1])["query"].tolist()
    ['In Canada, the food poutine has the ingredients of [Y] .']
    >>> build_queries(t, "en", template_ids=[1], fill_rule="regex")["query"].tolist()
    ['The food [poutine] has the ingredients of [Y] .']
    """
    bad = [i for i in template_ids if not 1 <= int(i) <= N_TEMPLATES]
    if bad:
        raise ValueError(f"template ids must be 1–{N_TEMPLATES}, got {bad}")
    if fill_rule not in FILLS:
        raise ValueError(f"fill_rule must be one of {FILLS}, not {fill_rule!r}")
    put = regex_fill if fill_rule == "regex" else fill
    chosen = templates(lang, context=context, version=version)
    rows = []
    for url, dish, origin in zip(table["url"], table["dish"], table["origin"]):
        country = country_label(origin, lang, names) if context else None
        rows.extend({"url": url, "template": int(i), "query": put(chosen[int(i) - 1], dish, country)}
                    for i in template_ids)
    return pd.DataFrame(rows, columns=["url", "template", "query"])


def fill_in_prompt(dish: str, lang: str, *, instruction: str = "full", context: bool = False,
                   country: str | None = None, version: str = "v1") -> str:
    """The decoder-LLM prompt of the paper (template 1 with an empty slot + an instruction).

    >>> fill_in_prompt("poutine", "en")
    'The food poutine has the ingredients of []. Please fill the sentence.'
    """
    table = prompts.get("fmlama", "fill_in", version)
    if lang not in table or instruction not in INSTRUCTIONS:
        raise ValueError(f"fill-in prompts exist for {sorted(table)} with instruction one of {INSTRUCTIONS}")
    spec = table[lang]
    return fill(spec["context" if context else "plain"], dish, country) + spec[instruction]
