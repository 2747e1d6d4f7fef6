"""FMLAMA's protocol as data (§4–6, Appendix C, Tables 2, 5, 6–13), for :func:`culturelab.protocol.compare`.

Every label of an FMLAMA table and figure comes from the comparison of a run with these sections;
``culturelab check`` prints it and a ``protocol: paper`` file refuses to run while it is not empty.
What the paper does, and where it says so:

* data — the paper-era release (``lizhou21/FmLAMA-master`` at 66d4e11): FMLAMA-*la* with the
  dish counts of the ALL rows of Tables 2 and 6–10, the 508-dish code-switching subset (§4.2,
  Table 13) and the 175 dishes present in all six languages (§6, Figure 11), every dish probed;
* candidate pool — every ingredient of the probed sub-dataset (§4.1; the size, 1,287 for
  English, and the 0.69 % mAP of a random ranking of it are our computations on the release,
  :func:`culturelab.fmlama.tables.pool_table`, not numbers the paper states);
* ranking — masked LMs by mask filling with 1–D masks (eq. 1), the candidate's sub-token
  log-probabilities averaged (eq. 2); T5/mT5 by sentinel-span scoring of the candidate's tokens
  (the authors' ``get_T5_ranking``; the paper's T5/mT5 columns). Causal LMs are beyond the paper
  (it probes decoder models by generation only, Appendix C);
* templates — the 5 per language the paper-era code filled, scores averaged over them (§5.1);
  the dish put in literally for masked LMs (repo ``utils.py``), but by ``re.sub("[X]", …)`` /
  ``re.sub("[C]", …)`` for T5/mT5 (``run_prompting_experiment.py``): regex character classes,
  so the brackets stay ("The food [poutine] has …") and with context every capital C becomes
  the country. Ours fills literally (``slot_fill: literal``); ``slot_fill: paper`` fills as the
  paper-era code did, and a T5/mT5 row filled literally says so (:data:`FILL`);
* ties — the paper's code sorts candidates with Python's ``sorted`` (equal scores keep
  candidate order: ``ties: candidate_order``); ours (``ties: expected``) scores AP, P@k and mWS
  at the expected order of ties. Only models that lower-case (``*uncased*``: case variants such
  as Cinnamon/cinnamon score alike) tie systematically; their rows say so (:data:`TIES`);
* country names in "In [C], …" — the paper-era code's hard-coded dictionaries (33 countries,
  not every origin: the others get CLDR names, our reading) for probing, the Wikidata labels of
  the released answer files for the decoder prompts (``country_names: paper``); ours are CLDR
  names (``cldr``, :func:`culturelab.fmlama.templates.country_name`) and a with-context row says
  so (:data:`COUNTRY_NAMES`, :data:`LLM_COUNTRY_NAMES`);
* mWS — fastText ``cc.<lang>.300.bin`` vectors of the probed language (eq. 6–8, §5.1);
* decoder LLMs — the fill-in prompt in FastChat's conversation template of each model, sampling
  at temperature 0.7 with up to 1,024 new tokens, the best-performing of {full, one} ×
  {with, without context} per cell (:data:`VARIANTS`), answers parsed and lemmatized by the
  authors' parser, which is not released (App. C): ``reading: paper`` is our reading of it
  (:data:`READING`), ``strict`` our parser.

Every one of these is a parameter of the notebook (validated by
:data:`culturelab.fmlama.setup.CHOICES`), so ``culturelab check`` and the ``protocol: paper``
refusal see it before a model loads; a table row passes only what is its own (its model as
``ranker``, its ``context``, its pool).

>>> from culturelab.protocol import compare
>>> mt5 = {"model": "seq2seq:google/mt5-base", "max_candidates": 20, "normalise": "eq2", "slot_fill": "paper"}
>>> d = compare(PROTOCOL["02_probing"], mt5, DataUsed("released"), model=mt5["model"], paper_models=MODELS)
>>> d.protocol, d.paper_model
("max_candidates 20: the probed dishes' gold ingredients plus random distractors (the paper: every ingredient of the sub-dataset, §4.1)", 'mT5')
>>> compare(PROTOCOL["02_probing"], {**mt5, "max_candidates": 0, "slot_fill": "literal"}).protocol[:61]
'the dish (and country) put into the T5/mT5 template literally'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from culturelab.data.sources import hub_offline
from culturelab.fmlama.data import (
    CHECKSUMS,
    LANGUAGES,
    RELEASE_COMMIT,
    SETTINGS,
    chatgpt_table_relpath,
    code_switching_sizes,
    downloaded,
    generations_relpath,
    local_root,
    multilingual_size,
    score_table_relpath,
    subset_sizes,
)
from culturelab.fmlama.probing import backend_of
from culturelab.protocol import DataUsed, Release, Section, Setting

URL = f"https://github.com/lizhou21/FmLAMA-master/tree/{RELEASE_COMMIT}"
#: the counts' keys, as the notebooks stamp them (:meth:`culturelab.runner.Run.set_data_source`)
CS_DISHES = "code-switching dishes"
CS_SETTINGS = "code-switching settings"
MULTI_DISHES = "multilingual-subset dishes"


def dishes_key(lang: str) -> str:
    """The count key of one FMLAMA-*la*.

    >>> dishes_key("en")
    'FMLAMA-en dishes'
    """
    return f"FMLAMA-{lang} dishes"


_LANGS = Release("FMLAMA-la (lizhou21/FmLAMA-master@66d4e11)",
                 {dishes_key(la): n for la, n in subset_sizes().items()}, "Tables 2, 6–10 (ALL rows)", URL)
_CS = Release("FMLAMA code-switching subset", {CS_DISHES: code_switching_sizes()["ALL"]}, "§4.2, Table 13", URL)
_MULTI = Release("FMLAMA multilingual subset", {MULTI_DISHES: multilingual_size()}, "§6, Figure 11", URL)
_ALL = Release("FMLAMA (lizhou21/FmLAMA-master@66d4e11)",
               {**_LANGS.counts, **_CS.counts, **_MULTI.counts}, "Tables 2, 6–10, 13; §6", URL)


def _all_dishes(cite: str) -> Setting:
    return Setting(0, cite, kind="data")


def pool(key: str) -> Setting:
    """The candidate pool, governed by the size knob ``key``: ``0`` = every ingredient of the
    sub-dataset (§4.1). A notebook passes the pool it used (:attr:`culturelab.fmlama.probing.ProbeJob.pool`:
    ``0`` or ``"n of N"``), the check the knob.

    >>> pool("max_candidates").deviation("max_candidates", "62 of 1,287").text
    "62 of 1,287 candidates: the probed dishes' gold ingredients plus random distractors (the paper: every ingredient of the sub-dataset, §4.1)"
    """
    def text(value: Any) -> str:
        what = f"{value} candidates" if isinstance(value, str) else f"{key} {value}"
        return (f"{what}: the probed dishes' gold ingredients plus random distractors (the paper: every "
                "ingredient of the sub-dataset, §4.1)")

    return Setting(0, "§4.1", accept=lambda value: value == 0, describe=text)


def pool_of(pools: Mapping[str, Any]) -> Any:
    """The pool of a figure drawn over several languages or settings, for its caption: ``0`` when
    each ranked the paper's full pool, else each one's own ("n of N (key)"; the full ones "all (key)").

    >>> pool_of({"EN_en": "20 of 421", "ZH_en": "20 of 368"}), pool_of({"en": 0, "zh": 0})
    ('20 of 421 (EN_en), 20 of 368 (ZH_en)', 0)
    """
    if not any(pools.values()):
        return 0
    return ", ".join(f"{value or 'all'} ({key})" for key, value in pools.items())


def _ranks_like_the_paper(spec: Any) -> bool:
    if not spec:
        return True
    from culturelab.models import capabilities

    if capabilities(str(spec))["rank_candidates"] is not None:  # nothing ranked (e.g. a replay file)
        return True
    return backend_of(str(spec)) in {"masked", "seq2seq"}


#: the ranking rule follows from the backend: mask filling (eq. 1–2) or T5/mT5 span scoring
RANKING = Setting("masked: or seq2seq:", "§4.1 eq. 1–2; the authors' get_T5_ranking", accept=_ranks_like_the_paper,
                  describe=lambda spec: f"{spec} ranked as a causal LM by log-likelihood (beyond the paper: "
                  "masked-LM mask filling, eq. 1–2, or T5/mT5 span scoring, §4.1)")
_NORMALISE_TEXT = {
    "continuation": "log-probability averaged over candidate and rest of the sentence",
    "sum": "summed log-probability",
}
#: eq. 2: the mean over the candidate's own sub-tokens
NORMALISE = Setting("eq2", "§4.1 eq. 2", describe=lambda v: f"{_NORMALISE_TEXT.get(v, v)} (the paper: the mean "
                    "over the candidate's own sub-tokens, eq. 2)")
TEMPLATES = Setting([1, 2, 3, 4, 5], "§5.1: the mean over the 5 templates", what="templates {}")
_VERSIONS = {"v2": "the templates as printed in Figure 9", "v3": "the repo's Hebrew strings (X and Y swapped in 2 and 4)"}
PROMPTS = Setting("v1", "the strings the paper-era code filled (repo 66d4e11, Figure 9)",
                  describe=lambda v: f"{_VERSIONS.get(v, v)} (the paper: the strings its code filled, v1)")


def fasttext_language(spec: str) -> str | None:
    """The language of a fastText ``cc.<lang>.300`` file named by an encoder spec, else ``None``.

    >>> fasttext_language("fasttext:/v/cc.ar.300.bin"), fasttext_language("bundled:e5-small")
    ('ar', None)
    """
    if not str(spec).startswith("fasttext:"):
        return None
    found = re.search(r"cc\.([a-z]{2,3})\.300", str(spec).rsplit("/", 1)[-1])
    return found.group(1) if found else None


def _mws_follows(value: Any) -> bool:
    """``None``/``""``: no mWS computed (or an mAP number); ``(spec, lang)``: one language's
    vectors; a spec string (the check, before the run): fastText with ``{lang}`` in the path."""
    if not value:
        return True
    if isinstance(value, (tuple, list)):
        spec, lang = value
        return fasttext_language(spec) == lang
    return str(value).startswith("fasttext:") and "{lang}" in str(value)


def _mws_text(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return f"mWS from {value[0]} vectors (the paper: fastText cc.{value[1]}.300.bin of the probed language, eq. 6–8)"
    return (f"mWS from {value} vectors for every language (the paper: fastText cc.<lang>.300.bin of each probed "
            "language, eq. 6–8: write {lang} in the path)")


def _ranker(effective: Mapping[str, Any]) -> Any:
    """The model that ranked a row (``ranker``, given per table row) or the run's ``model`` (the check)."""
    return effective.get("ranker") or effective.get("model")


def _with_context(effective: Mapping[str, Any], key: str = "contexts") -> bool:
    """Whether a row (``context``) or any prompt of the run (``key``: the contexts it probes) names the country."""
    if "context" in effective:
        return bool(effective["context"])
    return True in [bool(c) for c in effective.get(key) or ()]


def _fill_text(value: Any) -> str:
    return ("the dish (and country) put into the T5/mT5 template literally (the paper-era T5/mT5 code: "
            're.sub("[X]", …) and re.sub("[C]", …), regex character classes: the brackets stay, "The food [poutine] '
            'has …", and with context every capital C becomes the country; repo 66d4e11 run_prompting_experiment.py; '
            "slot_fill: paper)")


#: how the dish enters the template (``slot_fill``, ours when not given) for the row's model: the paper-era code
#: filled masked LMs literally and T5/mT5 by ``re.sub`` character classes (``slot_fill: paper``); ``literal`` fixes that
FILL = Setting("paper", "repo 66d4e11 utils.py, run_prompting_experiment.py",
               accept=lambda v: v[0] == "paper" or v[1] != "seq2seq", describe=_fill_text,
               value_of=lambda e: (e.get("slot_fill", "literal"), backend_of(_ranker(e))))


def _ties_systematic(spec: Any) -> bool:
    """Whether a model ties equal scores systematically: one that lower-cases its input."""
    return "uncased" in str(spec).lower()


#: equal scores (``ties``, ours when not given) for the row's model: the paper's code keeps them in candidate order;
#: ours (``expected``) differs only for a model that ties systematically (an uncased one: Cinnamon = cinnamon)
TIES = Setting("candidate_order", "repo 66d4e11 eval_utils.py",
               accept=lambda v: v[0] == "candidate_order" or not _ties_systematic(v[1]),
               describe=lambda v: "equal scores (case variants, which the uncased model scores alike) at their expected "
               "rank in AP, P@k and mWS (the paper's code: Python's sorted, ties in candidate order, repo 66d4e11 "
               "eval_utils.py; ties: candidate_order)",
               value_of=lambda e: (e.get("ties", "expected"), _ranker(e)))


def _country_names(cite: str, paper: str, key: str = "contexts", reading: str = "") -> Setting:
    """The country in "In [C], …" (``country_names``) of rows with context (``key``: the parameter
    listing the contexts): ``paper`` = the names the paper's code used (``paper`` says which)."""
    return Setting("paper", cite, what="country names as the paper's code wrote them", accept=lambda v: v == "paper",
                   reading=reading,
                   describe=lambda v: f"country names in \"In [C], …\" from CLDR (ours, culturelab.fmlama.templates; "
                   f"the paper: {paper}; country_names: paper)",
                   value_of=lambda e: e.get("country_names", "cldr") if _with_context(e, key) else None)


_DICTIONARIES = "the paper-era code's hard-coded dictionaries of 33 countries, §4.2"
_IN_DICTIONARIES = "§4.2; repo 66d4e11 access_LMs/utils.py (33 countries)"
#: FMLAMA-la and the 175 dishes: the dictionaries lack many origins (Iran, Greece, England …), which get CLDR names
COUNTRY_NAMES = _country_names(_IN_DICTIONARIES, _DICTIONARIES,
                               reading="the paper-era dictionaries name 33 countries; the other origins get CLDR "
                               "names: the paper does not say how it named them")
#: the 508 code-switching dishes: all 8 origins are in the dictionaries
CS_COUNTRY_NAMES = _country_names(_IN_DICTIONARIES, _DICTIONARIES)
#: the decoder prompts: the Wikidata labels of the released answer files (``origin_name``, repo WC_prompt.py)
LLM_COUNTRY_NAMES = _country_names("App. C; repo 66d4e11 WC_prompt.py (origin_name)", "the Wikidata labels of "
                                   "the released answer files, origin_name, repo WC_prompt.py", key="model_contexts")


def _chat_text(spec: Any) -> str:
    return (f"{spec} prompted through its tokenizer's chat template, or with the raw prompt where it has none "
            "(e.g. Vicuna v1.5) (the paper: FastChat's conversation template of the model, App. C; repo WC_prompt.py)")


#: the prompt format of the model answering in 04: the paper wraps it in FastChat's conversation template
CHAT_FORMAT = Setting("FastChat conversation template", "App. C; repo 66d4e11 WC_prompt.py",
                      accept=lambda spec: not spec or str(spec).startswith(("openai:", "replay:")), describe=_chat_text)
_ALL_VARIANTS = ({"full", "one"}, {False, True})


def _variants_text(value: Any) -> str:
    shown = ", ".join(f"{i}/{'with' if c else 'without'} context" for i in value[0] for c in value[1])
    return (f"the {shown} prompt{'s' if len(value[0]) * len(value[1]) > 1 else ''} only (the paper: the best-performing "
            "of {full, one} instruction × {with, without} context per cell, App. C; model_instructions: [full, one], "
            "model_contexts: [false, true])")


#: which prompt variants this run's model answered (``model_instructions`` × ``model_contexts``): the paper
#: reports the best of all four per cell
VARIANTS = Setting("the best of {full, one} × {with, without context}", "App. C (\"best-performing settings\")",
                   accept=lambda v: ({*v[0]}, {bool(c) for c in v[1]}) == _ALL_VARIANTS, describe=_variants_text,
                   value_of=lambda e: (list(e["model_instructions"]), list(e.get("model_contexts") or []))
                   if "model_instructions" in e else None)
#: our reading of the paper's unreleased parser (:func:`culturelab.fmlama.generations.paper_reading`)
PAPER_READING = ("the simplest reading consistent with App. C: the slot after \"ingredients of\" (以…为主要), else "
                 "the whole answer, split on commas and \"and\", lemmatized; the authors' parser is not released")


def _reading_text(value: Any) -> str:
    lenient = " (lenient readings counted too)" if value == "lenient" else ""
    return (f"answers read by our strict parser{lenient}, lemmatized with simplemma and matched case-insensitively "
            "(the paper: the authors' parser, not released, App. C; reading: paper is the simplest rule consistent "
            "with it)")


#: how answers are read (``reading``, ``lenient``): the paper's (our reading of App. C) or our parser
READING = Setting("paper", "App. C", what="answers read by the paper's rule", reading=PAPER_READING,
                  accept=lambda v: v == "paper", describe=_reading_text,
                  value_of=lambda e: (e["reading"] if e["reading"] == "paper" or not e.get("lenient") else "lenient")
                  if "reading" in e else None)


#: mWS: fastText vectors of the probed language (a notebook passes ``(spec, lang)`` per mWS number)
MWS = Setting("fasttext:cc.{lang}.300.bin", "§5.1, eq. 6–8", accept=_mws_follows, describe=_mws_text)
_RANKED = {"model": RANKING, "normalise": NORMALISE, "templates": TEMPLATES, "prompt_version": PROMPTS,
           "slot_fill": FILL, "ties": TIES, "country_names": COUNTRY_NAMES}
_CS_RANKED = {**_RANKED, "country_names": CS_COUNTRY_NAMES}
#: Figure 4 and the square: no cultural context
_PAIR_RANKED = {k: v for k, v in _RANKED.items() if k != "country_names"}
_PROBED = {"max_dishes_per_group": _all_dishes("Tables 2, 6–10: every dish"),
           "max_dishes": _all_dishes("Tables 2, 6–10: every dish"), "max_candidates": pool("max_candidates")}
_SWITCHED = {"max_dishes_per_group": _all_dishes("Tables 11, 12: all 508 dishes"),
             "max_dishes": _all_dishes("Tables 11, 12: all 508 dishes"), "max_candidates": pool("max_candidates")}
_PAIRED = {"max_dishes_per_continent": _all_dishes("Figure 4: all 175 dishes"),
           "max_pair_dishes": _all_dishes("Figure 4: all 175 dishes"), "pair_candidates": pool("pair_candidates")}
_SQUARE = "every template × dish-name language pair on the 175 dishes (the later revision's 6 × 6)"
_BASELINE = "frequency-only ranking (ignores the dish: the prior of each ingredient)"
_CHANCE = "the expected score of a random ranking of the same pool (the chance line)"

#: §3 and Appendix A count the data the paper crawled; the released Dishes.csv is not that data row for row
#: (which crawl or filter §3 counted is not stated), though every sub-dataset the experiments use is rebuilt exactly
CRAWL = Setting("the data §3 counts", "§3, Appendix A", kind="data", accept=lambda v: False,
                describe=lambda v: "§3's statistics of the whole crawl set beside the released Dishes.csv, which "
                "differs from the data §3 counts (which crawl or filter §3 counted is not stated; the sub-datasets "
                "of Tables 2, 6–10, 13 and Figure 11 are rebuilt exactly)")

PROTOCOL: dict[str, Section] = {
    "01_dataset": Section("§3, Appendix A, Tables 2, 6–10 (counts), Figures 5–8, 11", _ALL),
    # the whole-crawl statistics of §3 (dataset.csv but the 175-dish subset): the release is not the data they count
    "01_dataset.statistics": Section("§3, Appendix A, Figure 8", _ALL, {"crawl": CRAWL}),
    "02_probing": Section("§4.1, §5, Tables 2, 6–10, Figure 2, Table 3", _LANGS,
                          {**_PROBED, **_RANKED, "encoder": MWS}),
    "02_probing.baseline": Section("ours", _LANGS, _PROBED, beyond=_BASELINE),
    "02_probing.chance": Section("ours", _LANGS, _PROBED, beyond=_CHANCE),
    "03_code_switching": Section("§4.2, §6, Tables 11, 12, Figure 3", _CS, {**_SWITCHED, **_CS_RANKED}),
    # the authors' own per-template scores of their own models (results_code/results_table)
    "03_code_switching.released": Section("Tables 11, 12 (the authors' released score tables)",
                                          Release("FMLAMA released code-switching scores", {}, "Tables 11, 12", URL)),
    "03_code_switching.baseline": Section("ours", _CS, _SWITCHED, beyond=_BASELINE),
    "03_code_switching.chance": Section("ours", _CS, _SWITCHED, beyond=_CHANCE),
    # Figure 4: the 175 dishes by continent, every prompt language, the full candidate sets
    "03_code_switching.pairs": Section("§6, Figure 4", _MULTI, {**_PAIRED, **_PAIR_RANKED}),
    "03_code_switching.pairs_chance": Section("ours", _MULTI, _PAIRED, beyond=_CHANCE),
    "03_code_switching.square": Section("ours", _MULTI, _PAIRED, beyond=_SQUARE),
    "03_code_switching.square_chance": Section("ours", _MULTI, _PAIRED, beyond=f"{_SQUARE}; {_CHANCE}"),
    # Appendix C: gpt-3.5-turbo's released answers, re-parsed
    "04_decoder_llms.released": Section("Appendix C, Tables 5, 13", Release(
        _CS.name, {**_CS.counts, CS_SETTINGS: 4}, "§4.2, Tables 5, 13", URL), {"reading": READING}),
    "04_decoder_llms": Section("Appendix C, Tables 5, 13", _CS, {
        "max_dishes_per_group": _all_dishes("Table 5: all 508 dishes"),
        "max_dishes": _all_dishes("Table 5: all 508 dishes"),
        "temperature": Setting(0.7, "App. C (FastChat sampling)", what="temperature {}"),
        "max_new_tokens": Setting(1024, "App. C (FastChat)", what="{} new tokens", at_least=True),
        "model": CHAT_FORMAT, "variant": VARIANTS, "reading": READING, "country_names": LLM_COUNTRY_NAMES}),
}

#: the paper's models: its table keys → hub ids (repo ``access_LMs/model_config.py``; Tables 2, 5, 6–10)
MODELS: dict[str, str] = {
    "Bb-c": "bert-base-cased", "Bb-u": "bert-base-uncased", "Bl-c": "bert-large-cased", "Bl-u": "bert-large-uncased",
    "mB-c": "bert-base-multilingual-cased", "mB-u": "bert-base-multilingual-uncased",
    "XRb": "xlm-roberta-base", "XRl": "xlm-roberta-large",
    "Bb-ar": "asafaya/bert-base-arabic", "Bl-ar": "asafaya/bert-large-arabic", "Bb-ru": "DeepPavlov/rubert-base-cased",
    "Bb-ky": "kykim/bert-kor-base", "Bb-kl": "klue/bert-base", "Bb-zh": "bert-base-chinese",
    "mT5": "google/mt5-base", "T5": "t5-base",
    "Llama2-7b-chat-hf": "meta-llama/Llama-2-7b-chat-hf", "Llama2-13b-chat-hf": "meta-llama/Llama-2-13b-chat-hf",
    "vicuna-7b": "lmsys/vicuna-7b-v1.5", "vicuna-13b": "lmsys/vicuna-13b-v1.5", "gpt-3.5-turbo": "gpt-3.5-turbo",
}
#: the model whose answers the release holds (Appendix C)
RELEASED_ANSWERS = "openai:gpt-3.5-turbo"


def read_files(topic: str, params: Mapping[str, Any]) -> list[str]:
    """The release files (paths as in the repository) an FMLAMA notebook reads with ``params``.

    >>> read_files("04_decoder_llms", {"settings": ["EN_zh"], "instructions": ["full"], "contexts": [False]})[-2:]
    ['results/results_chatGPT/WC/en_zh/full/hasParts_1/en_zh_dishes_results.jsonl', 'results/results_chatGPT/chatGPT/WC_full_without_chatGPT_table.xlsx']
    """
    def lang(la: str) -> str:
        return f"data/data_lang/{la}/{la}_dishes.jsonl"

    def multi(la: str) -> str:
        return f"data/data_filter/{la}/{la}_dishes.jsonl"

    files = ["data/country_info.json"]
    if topic == "01_dataset":
        files += ["data/Dishes.csv", *map(lang, LANGUAGES), *map(multi, LANGUAGES)]
    elif topic == "02_probing":
        files += [lang(la) for la in params.get("languages", ())]
    elif topic == "03_code_switching":
        files += [lang("en"), lang("zh"), *(score_table_relpath(s, context=c) for s in SETTINGS for c in (False, True)),
                  *map(multi, [*params.get("languages", ()), *params.get("cross_languages", ())])]
    elif topic == "04_decoder_llms":
        variants = [(i, bool(c)) for i in params.get("instructions", ()) for c in params.get("contexts", ())]
        labelled = params.get("country_names") == "paper" and True in list(params.get("model_contexts") or ())
        files += [lang("en"), lang("zh"),
                  *(generations_relpath(s, instruction=i, context=c) for s in params.get("settings", ()) for i, c in variants),
                  *(chatgpt_table_relpath(i, context=c) for i, c in variants),
                  *(generations_relpath(s) for s in params.get("model_settings", ()) if labelled)]
    return list(dict.fromkeys(files))


def _named(files: list[str]) -> str:
    shown = ", ".join(files[:4])
    return shown + (f" and {len(files) - 4} more" if len(files) > 4 else "")


def _fetched(files: list[str], where: str) -> DataUsed:
    """``files`` (``where``: what lacks them) come from the verified download, or from an earlier one;
    missing while downloads are off."""
    todo = [f for f in files if downloaded(f) is None]
    if todo and hub_offline():
        return DataUsed("missing", note=f"{where}{_named(todo)}; downloads are off (HF_HUB_OFFLINE is set): put "
                        "the release's files under the data directory, or run online")
    if not todo:
        return DataUsed("released", note=f"{where}{_named(files)}: downloaded earlier")
    unpinned = [f for f in todo if not CHECKSUMS.get(f)]
    check = "SHA-256 pinned" if not unpinned else f"unverified: no pinned SHA-256 for {_named(unpinned)}"
    return DataUsed("released", note=f"{where}{_named(todo)}: downloaded from {URL} ({check}) on first use")


def locate(topic: str, params: Mapping[str, Any]) -> DataUsed:
    """The data an FMLAMA notebook's parameters will read, found without loading it: our sample,
    the local copy (``data_dir`` or ``$CULTURELAB_DATA/fmlama``), the files it lacks (or all, with
    no local copy or ``data_source: download``) downloaded from GitHub at the paper-era commit,
    or missing — a partial local copy under ``data_source: local``, or files to download while
    downloads are off (``HF_HUB_OFFLINE``) — with the files named (:func:`read_files`).

    >>> locate("02_probing", {"data_source": "sample"}).source
    'sample'
    >>> locate("02_probing", {"data_source": "local", "data_dir": "/nonexistent"}).source
    'missing'
    >>> import unittest.mock
    >>> with unittest.mock.patch.dict("os.environ", {"HF_HUB_OFFLINE": "0", "CULTURELAB_CACHE": "/nonexistent"}):
    ...     locate("02_probing", {"data_source": "auto", "data_dir": "/nonexistent", "languages": ["en"]}).note[:71]
    'no local copy of the release: data/country_info.json, data/data_lang/en'
    """
    source = params.get("data_source", "auto")
    if source == "sample":
        return DataUsed("sample")
    files = read_files(topic, params)
    local = local_root(params.get("data_dir", ""))
    if local is not None and source != "download":
        lacking = [f for f in files if not (local / f).is_file()]
        if not lacking:
            return DataUsed("released", note=str(local))
        if source == "local":
            return DataUsed("missing", note=f"the local copy {local} lacks {_named(lacking)} (data_source: auto "
                            "downloads them)")
        return _fetched(lacking, f"the local copy {local} lacks ")
    if source == "local":
        return DataUsed("missing", note="no local copy of the release (fmlama/data/Dishes.csv) under the data "
                        "directory; set CULTURELAB_DATA or data_dir, or data_source: download")
    return _fetched(files, "data_source download: " if source == "download" else "no local copy of the release: ")


def row_deviations(run: Any, model: str, *, part: str | None = None, pool_key: str = "max_candidates",
                   pool: Any = 0, metric: str = "mAP", lang: str = "", encoder: str = "",
                   context: bool = False) -> Any:
    """One row's comparison with the paper (:meth:`culturelab.runner.Run.deviations`) in the
    notebook's ``part`` (a ``NN_topic.part`` section): ``model`` is the row's model (the frequency
    baseline and the chance line are analyses beyond the paper, compared without a model, in the
    part's ``<part>_baseline`` / ``<part>_chance`` section), ``pool`` the pool it ranked (:attr:`~culturelab.fmlama.probing.ProbeJob.pool`),
    ``metric`` and ``lang`` decide whether the vectors matter (mWS only: ``encoder`` expanded for
    ``lang``, :func:`~culturelab.fmlama.probing.encoder_spec`), ``context`` whether the row's
    prompts name the country (:data:`COUNTRY_NAMES`: the run's ``country_names``). The model's
    backend and the run's ``slot_fill`` decide the template fill (:data:`FILL`), its casing and the
    run's ``ties`` the tie rule (:data:`TIES`).

    >>> from culturelab.runner import Run
    >>> run = Run("fmlama/02_probing", {"model": "masked:bert-base-cased", "encoder": "bundled:e5-small"}, name="doctest")
    >>> run.set_data_source("released")
    >>> row_deviations(run, "masked:bert-base-cased", pool="62 of 1,287").protocol.startswith("62 of 1,287 candidates")
    True
    >>> row_deviations(run, "masked:bert-base-cased").comparable, row_deviations(run, "frequency baseline").protocol
    (True, 'beyond the paper: frequency-only ranking (ignores the dish: the prior of each ingredient)')
    >>> row_deviations(run, "masked:bert-base-cased", metric="mWS", lang="en", encoder="fasttext:/v/cc.ar.300.bin").protocol
    'mWS from fasttext:/v/cc.ar.300.bin vectors (the paper: fastText cc.en.300.bin of the probed language, eq. 6–8)'
    >>> row_deviations(run, "seq2seq:t5-base").protocol.startswith("the dish (and country) put into the T5/mT5 template")
    True
    """
    from culturelab.fmlama.probing import BASELINE, RANDOM, encoder_spec

    ranker = {BASELINE: "baseline", RANDOM: "chance"}.get(model)
    effective: dict[str, Any] = {pool_key: pool}
    if ranker is not None:  # the section of the ranker in this part of the notebook (``pairs_chance`` …)
        return run.deviations(f"{part}_{ranker}" if part else ranker, model=None, **effective)
    vectors = (encoder_spec(encoder, lang), lang) if metric == "mWS" and encoder else None
    return run.deviations(part, model=model, encoder=vectors, ranker=model, context=bool(context), **effective)


def label(run: Any, table: Any, *, pools: Mapping[str, Any], key: str = "lang", part: str | None = None,
          pool_key: str = "max_candidates", encoder: str = "") -> Any:
    """``table`` (rows with ``model`` and ``key`` — a language or a code-switching setting — and
    optionally ``metric``) with each row's labels (:func:`row_deviations`; ``pools`` maps the
    ``key`` values to their pools; a ``context`` column labels the with-context rows). Without a
    ``metric`` column the rows hold mWS too when an ``encoder`` is given.

    >>> import pandas as pd
    >>> from culturelab.runner import Run
    >>> run = Run("fmlama/03_code_switching", {"model": "masked:bert-base-multilingual-cased"}, name="doctest")
    >>> run.set_data_source("released")
    >>> t = pd.DataFrame({"model": ["masked:bert-base-multilingual-cased", "frequency baseline"], "setting": "EN_zh"})
    >>> label(run, t, pools={"EN_zh": 0}, key="setting")[["protocol", "comparable"]].to_dict("list")["comparable"]
    [True, False]
    >>> list(label(run, t.head(0), pools={}, key="setting").columns)
    ['model', 'setting', 'data', 'protocol', 'model_status', 'comparable']
    """
    from culturelab.protocol import LABEL_COLUMNS, label_rows

    if table.empty:  # e.g. no off-diagonal language pair: the columns, no rows
        return table.reindex(columns=[*table.columns, *LABEL_COLUMNS])

    def of(combo: Mapping[str, Any]) -> Any:
        lang = str(combo[key]).split("_")[0].lower()
        return row_deviations(run, combo["model"], part=part, pool_key=pool_key, pool=pools[combo[key]],
                              metric=combo.get("metric", "mWS" if encoder else "mAP"), lang=lang, encoder=encoder,
                              context=bool(combo.get("context", False)))

    return label_rows(table, of, ["model", key, *(c for c in ("metric", "context") if c in table)])
