"""CulturalRecipes' protocol as data (§3–7, Tables 1–6, Figure 4, footnotes 10–14, 28), for
:func:`culturelab.protocol.compare`.

Every label of a CulturalRecipes table, figure and coverage row comes from the comparison of a run
with these sections; ``culturelab check`` prints it and a ``protocol: paper`` file refuses to run
while it is not empty. What the paper does, and where it says so:

* data — the release (``coastalcph/cultural-recipes``, Google Drive folders): the silver test sets
  (82 zh→en, 52 en→zh source recipes, Table 1), the gold test sets (25 and 41, Table 1) and the
  auto-matched train/valid/test splits (their sizes: the repository README); §4 reads the full
  XiaChuFang (train split) and RecipeNLG corpora (§3.1, §4.1);
* §4 — word2vec skip-gram with 300 dimensions, 5 epochs, min count 10 (fn. 10), VecMap with the 15
  seed pairs of fn. 11, the 100 most frequent Chinese content words, top-5 lists judged **by hand**
  (§4.2). VecMap's flags are not published: the mode of the Artetxe et al. (2017) paper §4.1 cites
  (acl2017_seed), self-learning until VecMap's own rule with that mode's settings stops it, is our
  reading;
* §5.1 — BLEU and chrF by SacreBLEU 2.3.1 with default parameters (fn. 12), Chinese segmented with
  jieba for every metric (fn. 13), BERTScore with bert-base-uncased (English) and
  bert-base-chinese (Chinese) (fn. 14); Smatch (§5.2) needs the XAMR parser, which we do not have;
* §6.1 — the prompted LLMs: the GPT-4 / ChatGLM2 prompt with ChatGLM2's sampling (temperature 0.7,
  a maximum sequence length of 1,024 tokens), GPT-4 at the API's defaults, BLOOM's completion
  prompt with beam search (beam 3, repetition penalty 1.2, no repeated 5-grams): each model's
  outputs are read beside the decoding of the paper's system it is (:func:`decoding_model`),
  and beam search, which our backends lack, is always a deviation; *Retrieval* = the
  title-matched silver recipe of each gold source;
* §7, Figure 4 — literal-translation rates on the **silver** test sets (fn. 28), where *Ref* is the
  retrieved recipe; six concepts, four of them named (baking, steam, cheese, and the control oil);
* §5.3, Tables 5–6 — the authors' crowd ratings (not released) of seven systems' gold outputs
  (not released); Kendall τ at a level the paper does not state (our reading: segment-level τ-b).

The metric settings are per number: :func:`effective` says which settings one result rests on
(BERTScore's backbone only for B-Sc, the decoding only for the model's outputs …), and
:func:`deviations` compares them, with the counts of the split and direction the result used.

>>> d = compare(PROTOCOL["02_adaptation"], {"max_recipes": 5, "temperature": 0.0, "bertscore_zh": ""},
...             locate("02_adaptation", {"data_source": "sample"}))
>>> d.lines()[:2]
["data: sample data (ours, not the paper's)", 'data: max_recipes 5 (the paper: all, Table 1: every recipe of the test sets)']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from culturelab.cultural_recipes.data import ARROWS, DIRECTIONS, LANGS, RELEASE_URL, recipes_key, split_path
from culturelab.protocol import DataUsed, Deviations, Release, Section, Setting, compare, paper_model_of

#: the systems whose outputs need no model (:data:`culturelab.cultural_recipes.adaptation.MODEL_FREE`)
RETRIEVAL, SOURCE_COPY = "Retrieval", "Source copy"


#: source recipes per split and direction: the test sets from Table 1, the auto-matched splits
#: from the repository README (train + valid + test = Table 1's "Train & Val" sources)
RELEASE_COUNTS = {
    **{recipes_key("silver", d): n for d, n in (("zh2en", 82), ("en2zh", 52))},
    **{recipes_key("gold", d): n for d, n in (("zh2en", 25), ("en2zh", 41))},
    **{recipes_key(s, "zh2en"): n for s, n in (("train", 35_578), ("valid", 4_447), ("test", 4_448))},
    **{recipes_key(s, "en2zh"): n for s, n in (("train", 35_013), ("valid", 4_377), ("test", 4_377))},
}
RELEASE = Release("CulturalRecipes (coastalcph/cultural-recipes, Google Drive folders)", RELEASE_COUNTS,
                  "Table 1; train/valid/test: the repository README", RELEASE_URL)
#: §3.1, §4.1: the monolingual corpora word2vec reads ("the entire English and Chinese corpora")
CORPORA = Release("XiaChuFang (train split) and RecipeNLG", {}, "§3.1, §4.1",
                  "https://github.com/coastalcph/cultural-recipes#readme (XiaChuFang); "
                  "https://recipenlg.cs.put.poznan.pl (RecipeNLG, by application)")

# ------------------------------------------------------------------------- §4 (notebook 01)
_W2V = {key: Setting(value, "fn. 10", what=f"word2vec {key} {{}}")
        for key, value in (("vector_size", 300), ("epochs", 5), ("min_count", 10))}
def _interval_of(effective: Mapping[str, Any]) -> tuple[str, int] | None:
    """The mapping mode and the stochastic interval a run's parameters set (0: the mode's preset)."""
    if "stochastic_interval" not in effective:
        return None
    return str(effective.get("mode", "acl2017_seed")), int(effective["stochastic_interval"] or 0)


def _preset_interval(mode: str) -> int:
    from culturelab.embeddings.presets import PRESETS

    return PRESETS[mode].stochastic_interval if mode in PRESETS else 0


def _interval_text(value: tuple[str, int]) -> str:
    mode, interval = value
    return (f"stochastic interval {interval} in place of VecMap's {_preset_interval(mode)} for {mode}: self-learning "
            "stops by VecMap's rule at another interval, not by its convergence criterion (the paper: VecMap's own, "
            "§4.1)")


#: VecMap's stopping rule as its preset for the run's mode sets it (50; acl2017_seed: 1), unless a
#: parameter overrides the interval
_INTERVAL = Setting("VecMap's preset for the mode", "§4.1: VecMap", value_of=_interval_of,
                    accept=lambda v: v[1] in (0, _preset_interval(v[0])), describe=_interval_text)
_BLI = {
    "max_recipes": Setting(0, "§4.1: the entire corpora", what="max_recipes {}", kind="data"),
    **_W2V,
    "n_queries": Setting(100, "§4.2", describe=lambda v: f"{v or 'every content word as'} queries (the paper: the "
                                                         "100 most frequent Chinese content words, §4.2)"),
    # §4.1 names VecMap "(Artetxe et al., 2017) with weak supervision from a seed dictionary" but not its
    # flags: the mode of that paper (VecMap's acl2017_seed), self-learning to VecMap's own stop, is our reading
    "mode": Setting("acl2017_seed", "§4.1: VecMap (Artetxe et al., 2017)", what="mapping mode {}",
                    reading="the paper cites VecMap by Artetxe et al. (2017), whose system with a seed dictionary is "
                            "VecMap's acl2017_seed mode; it publishes no flags",
                    describe=lambda v: f"mapping mode {v} (our reading of the paper: acl2017_seed, the system of "
                                       "Artetxe et al. (2017), whom §4.1 cites for VecMap)"),
    "seed_variant": Setting("paper", "fn. 11 (镯 read as 倒)", describe=lambda v: f"seed dictionary variant {v!r} "
                            "(the paper: fn. 11's 15 pairs, 镯 read as 倒)"),
    "max_iter": Setting(0, "§4.1 (our reading: self-learning to convergence)",
                        describe=lambda v: f"self-learning capped at {v} iterations (our reading of the paper: to "
                                           "convergence, §4.1)"),
    "stochastic_interval": _INTERVAL,
    # the effective setting of every P@5 and label count: the paper judged the top-5 lists by hand
    "labels": Setting("by hand", "§4.2", accept=lambda v: v == "by hand",
                      describe=lambda v: f"{v} of the top-5 lists (the paper: judged by hand, §4.2)"),
}

#: the fr → en check's own settings (beyond the paper): each mode's VecMap stop, unless overridden
_REAL_VECTORS = {
    "stochastic_interval": Setting(0, "VecMap's presets", accept=lambda v: not v,
                                   describe=lambda v: f"stochastic interval {v} in place of each mode's VecMap preset "
                                                      "(50; acl2017_seed: 1): no fit converges by VecMap's criterion"),
    "real_vectors_max_iter": Setting(0, "VecMap: no cap", accept=lambda v: not v,
                                     describe=lambda v: f"self-learning capped at {v} iterations (VecMap: no cap)"),
}

# ------------------------------------------------------------------------- §5–7 (notebook 02)
_RECIPES = {"max_recipes": Setting(0, "Table 1: every recipe of the test sets", what="max_recipes {}", kind="data")}


@dataclass(frozen=True)
class Decoding:
    """How the paper decoded one of its systems (§6.1): the prompt (``llm``: the GPT-4 / ChatGLM2
    instruction, ``bloom``: BLOOM's completion prompt, ``""``: none, the source recipe as the
    input), the temperature (``None``: beam search) and the token budget (``None``: not stated,
    or the API's default)."""

    prompt: str
    temperature: float | None
    max_new_tokens: int | None


#: §6.1: "We use the default settings for GPT-4. For ChatGLM2 we set the temperature to 0.7 and the
#: maximum sequence length to 1024 tokens. For generation with all other models, we use a beam of
#: size 3 and a repetition penalty of 1.2; we prevent repeated occurrences of any n-gram of length ≥ 5."
#: GPT-4's API defaults: temperature 1 and no cap below its 8k context.
PAPER_DECODING = {
    "GPT-4": Decoding("llm", 1.0, None),
    "ChatGLM2": Decoding("llm", 0.7, 1024),
    **{m: Decoding("bloom" if m == "BLOOM" else "", None, None) for m in ("BLOOM", "MT-zs", "MT-ft", "mT5",
                                                                        "mBART50")},
}
#: the paper's model whose decoding a model the paper did not run is read beside, by its prompt
BY_PROMPT = {"llm": "ChatGLM2", "bloom": "BLOOM"}
BEAM = "beam 3, repetition penalty 1.2, no repeated n-gram of length ≥ 5"
_PROMPTS = {"llm": "the GPT-4 / ChatGLM2 instruction prompt", "bloom": "BLOOM's completion prompt",
            "": "the source recipe as the input, no prompt"}


def decoding_model(params: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The paper's system whose decoding (:data:`PAPER_DECODING`) a run's model is read beside,
    and whether the model *is* that system (its hub id, or ``paper_method``) rather than a model
    the paper did not run, read beside the paper's model given the same prompt (:data:`BY_PROMPT`);
    ``None`` for replayed outputs (decoded elsewhere) or no model.

    >>> decoding_model({"model": "hf:bigscience/bloom-7b1", "style": "llm"})
    ('BLOOM', True)
    >>> decoding_model({"model": "bundled:gemma3-270m", "style": "llm"}), decoding_model({"model": "replay:x.jsonl"})
    (('ChatGLM2', False), None)
    """
    spec = str(params.get("model") or "")
    if not spec or spec.startswith("replay:"):
        return None
    name = paper_model_of(spec, MODELS) or str(params.get("paper_method") or "")
    if name in PAPER_DECODING:
        return name, True
    by_prompt = BY_PROMPT.get(str(params.get("style", "llm")))
    return None if by_prompt is None else (by_prompt, False)


def _decoded(key: str) -> Callable[[Mapping[str, Any]], Any]:
    def value_of(effective: Mapping[str, Any]) -> Any:
        found = decoding_model(effective)
        return None if found is None or key not in effective else (*found, effective[key])

    return value_of


def _whose(name: str, own: bool) -> str:
    return f"the paper's {name}" if own else f"the paper's {name} decoding for this prompt"


def _style_follows(value: tuple[str, bool, Any]) -> bool:
    return value[2] == PAPER_DECODING[value[0]].prompt


def _style_text(value: tuple[str, bool, Any]) -> str:
    name, _, style = value
    return (f"{_PROMPTS.get(style, f'the {style} prompt')} (the paper's {name}: "
            f"{_PROMPTS[PAPER_DECODING[name].prompt]}, §6.1)")


def _temperature_follows(value: tuple[str, bool, Any]) -> bool:
    paper = PAPER_DECODING[value[0]].temperature
    return paper is not None and float(value[2]) == paper


def _temperature_text(value: tuple[str, bool, Any]) -> str:
    name, own, temperature = value
    paper = PAPER_DECODING[name].temperature
    if paper is None:  # beam search: what no backend of ours runs
        used = "greedy decoding" if float(temperature) == 0 else f"sampling at temperature {temperature}"
        return f"{used}; our backends have no beam search ({_whose(name, own)}: {BEAM}, §6.1)"
    default = ", the API's default" if name == "GPT-4" else ""
    return f"temperature {temperature} ({_whose(name, own)}: {paper}{default}, §6.1)"


def _tokens_follows(value: tuple[str, bool, Any]) -> bool:
    name, _, tokens = value
    if name == "GPT-4":  # the API's default: no cap, which no backend of ours sends
        return False
    paper = PAPER_DECODING[name].max_new_tokens
    return paper is None or int(tokens) == paper


def _tokens_text(value: tuple[str, bool, Any]) -> str:
    name, own, tokens = value
    if name == "GPT-4":
        return (f"a cap of {tokens} new tokens, which our backends always send ({_whose(name, own)}: the API's "
                "default, no cap below its 8k context, §6.1)")
    return (f"at most {tokens} new tokens ({_whose(name, own)}: a maximum sequence length of "
            f"{PAPER_DECODING[name].max_new_tokens} tokens, read as new tokens, §6.1)")


#: the decoding of a model's outputs, each setting read beside the paper's decoding of the system
#: the model is, or stands for (:func:`decoding_model`)
_DECODING = {
    "style": Setting("the paper's prompt for the model", "§6.1", value_of=_decoded("style"),
                     accept=_style_follows, describe=_style_text),
    "temperature": Setting("the paper's decoding for the model", "§6.1", value_of=_decoded("temperature"),
                           accept=_temperature_follows, describe=_temperature_text),
    "max_new_tokens": Setting("the paper's token budget for the model", "§6.1", value_of=_decoded("max_new_tokens"),
                              accept=_tokens_follows, describe=_tokens_text),
}
_RELEASE_SCRIPT = "the authors' released script (coastalcph-2023)"


def _compat_text(value: Any) -> str:
    return (f"BLEU and chrF as {_RELEASE_SCRIPT} computes them: one hypothesis scored against every reference "
            "(the paper: SacreBLEU 2.3.1, default parameters, fn. 12)" if value == "coastalcph-2023"
            else f"metrics by {value} (the paper: SacreBLEU 2.3.1, default parameters, fn. 12)")


_ZH_ROUGE = {
    "char": "Chinese ROUGE-L over characters (the paper: over jieba words, fn. 13)",
    "coastalcph-2023": f"Chinese ROUGE-L as {_RELEASE_SCRIPT} computes it: characters of the segmented text with "
                       "its spaces as empty tokens that match each other (the paper: over jieba words, fn. 13)",
}
#: fn. 14: the BERTScore backbone of each target language
BACKBONES = {"en": "bert-base-uncased", "zh": "bert-base-chinese"}


def is_backbone(spec: str | None, lang: str) -> bool:
    """Whether a BERTScore backbone spec (a hub id or a local folder) is the paper's for ``lang``.

    >>> is_backbone("google-bert/bert-base-uncased", "en"), is_backbone("bundled:minilm", "en")
    (True, False)
    """
    return bool(spec) and str(spec).rstrip("/").split("/")[-1].lower() == BACKBONES[lang]


def _backbone(lang: str) -> Setting:
    def text(value: Any) -> str:
        used = f"with {value}" if value else "not computed"
        return f"BERTScore ({lang}) {used} (the paper: {BACKBONES[lang]}, fn. 14)"

    return Setting(BACKBONES[lang], "fn. 14", accept=lambda v: is_backbone(v, lang), describe=text)


_METRICS = {
    # a list (the notebook's parameter) follows the paper when it has the corrected metrics; one
    # result's own value is a string
    "compat": Setting("corrected", "fn. 12", describe=_compat_text,
                      accept=lambda v: "corrected" in ([v] if isinstance(v, str) else list(v))),
    "zh_rouge_tokenizer": Setting("jieba", "fn. 13", describe=lambda v: _ZH_ROUGE.get(v, f"Chinese ROUGE-L by {v} "
                                                                                         "(the paper: jieba words)")),
    "bertscore_en": _backbone("en"),
    "bertscore_zh": _backbone("zh"),
}
_FIGURE4 = {
    "figure4_split": Setting("silver", "§7, fn. 28", describe=lambda v: f"the {v} split, where Ref is the human "
                             "adaptation (the paper: the silver split, Ref = the retrieved recipe; §7, fn. 28, "
                             "Figure 4)"),
    # the paper names four of its six concepts (§7); the others, and every term list, are ours
    "concept": Setting("a named concept", "§7 names baking, steam, cheese and oil",
                       accept=lambda v: v in {"baking", "steam", "cheese", "oil"},
                       describe=lambda v: f"concept {v!r} chosen by us (the paper names four of its six: baking, "
                                          "steam, cheese, oil; §7)"),
}
#: the seven systems the paper's crowd rated besides Human (Tables 5–6)
PAPER_RATED = ("MT-zs", "MT-ft", "mT5", "BLOOM", "ChatGLM2", "GPT-4", "Retrieval")
_RATINGS = {
    "ratings_file": Setting("the authors' ratings", "§5.3 (not released)", kind="data", accept=lambda v: False,
                            describe=lambda v: (f"ratings from {v}" if v else "our made-up sample ratings")
                            + " (the paper's crowd ratings are not released, §5.3)"),
}
#: Table 6 of one direction: 5 metrics × 5 rows (the four criteria and their average), the
#: Bonferroni family of its stars (the family is not stated; our reading: the table of a direction)
BONFERRONI_FAMILY = 25
_KENDALL = {
    **_RATINGS,
    "family_size": Setting(BONFERRONI_FAMILY, "Table 6: 5 metrics × 5 rows (our reading: per direction)",
                           what="Bonferroni family of {} tests"),
    "rated_systems": Setting(PAPER_RATED, "Table 6", accept=lambda v: set(v) == set(PAPER_RATED),
                             describe=lambda v: f"τ over the rated outputs of {', '.join(v) or 'no system'} (the "
                                                f"paper: {', '.join(PAPER_RATED)}, Table 6)"),
}

PROTOCOL: dict[str, Section] = {
    "01_bli_alignment": Section("§4.1–4.2, fn. 10–11, Table 2", CORPORA, _BLI),
    "01_bli_alignment.real_vectors": Section(
        "ours", None, _REAL_VECTORS, beyond="the mapping checked on other data: French spaCy vectors onto English "
                                            "GloVe, scored with CLDR word pairs"),
    # the model's outputs and every metric on them (Tables 3–4): run-level labels and `culturelab check`
    "02_adaptation": Section("§5.1, §6.1, Tables 3–4", RELEASE, {**_RECIPES, **_DECODING, **_METRICS}),
    "02_adaptation.table1": Section("Table 1", RELEASE),
    "02_adaptation.copy": Section("ours", RELEASE, {**_RECIPES, **_METRICS},
                                  beyond="the untranslated source recipe scored as an output (a floor)"),
    "02_adaptation.figure4": Section("§7, fn. 28, Figure 4", RELEASE, {**_RECIPES, **_DECODING, **_FIGURE4}),
    "02_adaptation.table5": Section("§5.3, Table 5", None, _RATINGS),
    # the level and variant of τ are not stated: segment-level τ-b, Bonferroni over the family, is our reading
    "02_adaptation.table6": Section("§6.2, Table 6 (τ level not stated; our reading: segment-level τ-b)", RELEASE,
                                    {**_RECIPES, **_DECODING, **_METRICS, **_KENDALL}),
}

#: the data of notebook 01's check of the mapping on real vectors: other data, not the paper's
REAL_VECTORS = DataUsed("other", note="French spaCy fr_core_news_md vectors onto English GloVe 6B-50d, scored with "
                                      "CLDR word pairs")


def real_vectors(params: Mapping[str, Any] | None = None) -> Deviations:
    """The labels of notebook 01's fr → en check (table, figure caption, the figure's data stamp):
    other data than the paper's, an analysis beyond it, with the run's overrides of VecMap's stop
    (``stochastic_interval``, ``real_vectors_max_iter`` in ``params``).

    >>> d = real_vectors()
    >>> d.data
    "other data (not the paper's) — French spaCy fr_core_news_md vectors onto English GloVe 6B-50d, scored with CLDR word pairs"
    >>> d.protocol[:40], d.comparable
    ('beyond the paper: the mapping checked on', False)
    >>> "stochastic interval 8 in place of each mode's VecMap preset" in real_vectors({"stochastic_interval": 8}).protocol
    True
    """
    keys = ("stochastic_interval", "real_vectors_max_iter")
    return compare(PROTOCOL["01_bli_alignment.real_vectors"], {k: v for k, v in (params or {}).items() if k in keys},
                   REAL_VECTORS)


#: the paper's prompted models (§6.1), hub ids. The MT and finetuned systems are not here: our
#: pipeline prompts every model, which the paper's MT-zs / MT-ft / mT5 / mBART50 are not
MODELS = {"BLOOM": "bigscience/bloom-7b1", "ChatGLM2": "THUDM/chatglm2-6b", "GPT-4": "gpt-4-0314"}
#: the paper's systems that produced outputs (Table 4), whose outputs a ``replay:`` file may hold
PAPER_SYSTEMS = ("MT-zs", "MT-ft", "mT5", "mBART50", "BLOOM", "ChatGLM2", "GPT-4")


def paper_models(params: Mapping[str, Any]) -> Callable[[str], str | None]:
    """The paper's name of a model spec: a prompted model of §6.1 by its hub id (:data:`MODELS`),
    or the outputs of a ``replay:`` file that the ``paper_method`` parameter says are one of the
    paper's systems (:data:`PAPER_SYSTEMS`) — the model is then that system, whatever decoded it.

    >>> of = paper_models({"paper_method": "GPT-4"})
    >>> of("replay:gpt4.jsonl"), of("openai:gpt-4-0314"), of("bundled:gemma3-270m")
    ('GPT-4', 'GPT-4', None)
    """
    method = params.get("paper_method") or ""

    def of(spec: str) -> str | None:
        if spec.startswith("replay:") and method in PAPER_SYSTEMS:
            return method
        return paper_model_of(spec, MODELS) or None

    return of


def effective(params: Mapping[str, Any], *, system: str | None = None, metric: str | None = None,
              direction: str | None = None, compat: str | None = None) -> tuple[dict[str, Any], str | None]:
    """The settings one notebook-02 result rests on, and the model spec behind it (``None`` for a
    model-free system): the size knob always; the decoding for the model's outputs (with the model
    and ``paper_method``, which say whose decoding it is read beside: :func:`decoding_model`); per metric
    (``None``: every metric, a wide row) its own settings for ``direction``'s target language —
    ``compat`` (``None`` or ``"corrected"``: the corrected computation) for BLEU and chrF and for
    Chinese ROUGE-L, the backbone for BERTScore; nothing more for #Tok.

    >>> p = {"max_recipes": 0, "model": "hf:x", "temperature": 0.0, "style": "llm", "max_new_tokens": 64,
    ...      "bertscore_en": "bundled:minilm", "bertscore_zh": "", "zh_rouge_tokenizer": "char"}
    >>> effective(p, system="Retrieval", metric="B-Sc", direction="zh2en")
    ({'max_recipes': 0, 'bertscore_en': 'bundled:minilm'}, None)
    >>> effective(p, system="hf:x (llm prompt)", metric="R-L", direction="en2zh", compat="coastalcph-2023")[0]
    {'max_recipes': 0, 'model': 'hf:x', 'style': 'llm', 'temperature': 0.0, 'max_new_tokens': 64, 'zh_rouge_tokenizer': 'coastalcph-2023'}
    """
    out: dict[str, Any] = {"max_recipes": params.get("max_recipes", 0)}
    model = None
    if system is not None and not is_model_free(system):
        model = params.get("model") or None
        if decoding_model(params) is not None:  # replayed outputs were decoded elsewhere
            out.update({key: params[key] for key in ("model", "paper_method", *_DECODING) if key in params})
    lang = LANGS[direction][1] if direction else None
    release = compat not in (None, "corrected")
    if metric in (None, "BLEU", "ChrF"):
        out["compat"] = compat or "corrected"
    if metric in (None, "R-L") and lang == "zh":
        out["zh_rouge_tokenizer"] = compat if release else params.get("zh_rouge_tokenizer", "char")
    if metric in (None, "B-Sc") and lang is not None:
        out[f"bertscore_{lang}"] = params.get(f"bertscore_{lang}", "")
    return out, model


def is_model_free(system: str) -> bool:
    """Whether a system of an adaptation table needs no model (Retrieval, Source copy, a reference).

    >>> is_model_free("Retrieval"), is_model_free("Ref = retrieved recipe"), is_model_free("hf:x (llm prompt)")
    (True, True, False)
    """
    return system in (RETRIEVAL, SOURCE_COPY) or system.startswith("Ref = ")


def retrieval_key(direction: str) -> str:
    """The count key of the gold recipes of ``direction`` that *Retrieval* finds in its silver
    pool (:func:`culturelab.cultural_recipes.setup.open` stamps it): the count of its rows.

    >>> retrieval_key("zh2en")
    'gold zh→en recipes found in the Retrieval pool'
    """
    return f"{recipes_key('gold', direction)} found in the Retrieval pool"


def _used(run: Any, pairs: list[tuple[str, str]] | None, system: str | None = None) -> DataUsed | None:
    """The run's data with only the counts of the (split, direction) pairs a result read
    (*Retrieval*'s gold counts: the recipes it found in its pool)."""
    used = getattr(run, "data_used", None)
    if used is None or pairs is None:
        return used
    keys = {recipes_key(s, d) for s, d in pairs}
    counts = {k: v for k, v in used.counts.items() if k in keys}
    if system == RETRIEVAL:
        counts |= {recipes_key("gold", d): used.counts[retrieval_key(d)] for s, d in pairs
                   if s == "gold" and retrieval_key(d) in used.counts}
    return replace(used, counts=counts)


def deviations(run: Any, part: str | None = None, *, split: str | None = None, direction: str | None = None,
               system: str | None = None, metric: str | None = None, compat: str | None = None,
               **extra: Any) -> Deviations:
    """The comparison of one notebook-02 result with the paper: the section (``part`` of
    :data:`PROTOCOL`, else the system's: ``copy`` for *Source copy*), the settings it rests on
    (:func:`effective`, plus ``extra``) and the run's data restricted to the counts of ``split``
    and ``direction`` (both directions when ``direction`` is ``None``).

    >>> from culturelab.runner import Run
    >>> run = Run("cultural_recipes/02_adaptation", {"model": "bundled:gemma3-270m", "max_recipes": 5,
    ...           "temperature": 0.7, "max_new_tokens": 1024, "style": "llm", "bertscore_en": "bert-base-uncased",
    ...           "bertscore_zh": "bert-base-chinese", "zh_rouge_tokenizer": "jieba"}, name="doctest")
    >>> run.set_data_source("released", counts={"gold zh→en recipes": 5, "gold en→zh recipes": 41})
    >>> d = deviations(run, split="gold", direction="en2zh", system="Retrieval", metric="BLEU")
    >>> d.data, d.protocol, d.model
    ('max_recipes 5 (the paper: all, Table 1: every recipe of the test sets)', 'same', 'same')
    >>> deviations(run, split="gold", direction="zh2en", system="Source copy").protocol[:17]
    'beyond the paper:'
    """
    if part == "figure4":
        extra.setdefault("figure4_split", run.params.get("figure4_split", "silver"))
        split = split or extra["figure4_split"]
    section = f"02_adaptation.{part}" if part else "02_adaptation.copy" if system == SOURCE_COPY else "02_adaptation"
    settings, model = effective(run.params, system=system, metric=metric, direction=direction, compat=compat)
    directions = [direction] if direction else list(run.params.get("directions", DIRECTIONS))
    used = _used(run, [(split, d) for d in directions] if split else None, system)
    return compare(PROTOCOL[section], {**settings, **extra}, used, model=model, paper_models=paper_models(run.params))


def labeller(run: Any, part: str | None = None, **fixed: Any) -> Callable[[Mapping[str, Any]], Deviations]:
    """:func:`deviations` of one group of a results table (its ``split``, ``direction``,
    ``system``, ``metric``, ``compat`` columns, and ``fixed``), for :func:`culturelab.protocol.label_rows`."""
    def of(group: Mapping[str, Any]) -> Deviations:
        return deviations(run, part, **{**fixed, **group})

    return of


def label(run: Any, table: Any, part: str | None = None, **fixed: Any) -> Any:
    """``table`` with the label columns of each row's comparison with the paper (:func:`labeller`),
    one comparison per distinct (split, direction, system, metric, compat, concept) it has.

    >>> import pandas as pd
    >>> from culturelab.runner import Run
    >>> run = Run("cultural_recipes/02_adaptation", {"model": "bundled:gemma3-270m", "max_recipes": 0,
    ...           "bertscore_en": "bundled:minilm"}, name="doctest")
    >>> run.set_data_source("sample")
    >>> t = label(run, pd.DataFrame({"system": ["Retrieval"], "direction": ["zh2en"], "metric": ["B-Sc"]}))
    >>> t["protocol"].item()
    'BERTScore (en) with bundled:minilm (the paper: bert-base-uncased, fn. 14)'
    """
    from culturelab.protocol import label_rows

    by = [c for c in ("split", "direction", "system", "metric", "compat", "concept") if c in table]
    return label_rows(table, labeller(run, part, **fixed), by)


def merged(found: Iterable[Deviations]) -> Deviations:
    """Several comparisons as one (each difference once; the first's data and model), e.g. a
    system's results in both directions for one caption.

    >>> a, b = compare(None, {}, DataUsed("sample")), compare(PROTOCOL["02_adaptation"], {"max_recipes": 2})
    >>> merged([a, b]).data
    "sample data (ours, not the paper's); max_recipes 2 (the paper: all, Table 1: every recipe of the test sets)"
    """
    found = list(found)
    items: dict[str, Any] = {}
    for d in found:
        for item in d.items:
            items.setdefault(item.text, item)
    return replace(found[0], items=tuple(items.values()), beyond=next((d.beyond for d in found if d.beyond), ""))


def caption(run: Any, groups: Mapping[str, Mapping[str, Any]], part: str | None = None,
            over: Iterable[Mapping[str, Any]] | None = None, versus: Mapping[str, Mapping[str, Any]] | None = None
            ) -> str:
    """A figure's caption: the data once, the model once, what every group the figure tells apart
    (a system …: ``groups`` maps its name to its :func:`deviations` keywords) shares in protocol,
    then what each differs in. Each group's comparison is merged ``over`` the rows it stands for
    (default: every direction of the run). ``versus`` names another dimension of the figure (e.g.
    a computation): each entry overrides the first group's keywords and adds what that changes.

    >>> from culturelab.runner import Run
    >>> run = Run("cultural_recipes/02_adaptation", {"model": "bundled:gemma3-270m", "max_recipes": 0,
    ...           "directions": ["zh2en"], "temperature": 0.7, "max_new_tokens": 1024, "style": "llm",
    ...           "figure4_split": "silver", "bertscore_en": "bert-base-uncased"}, name="doctest")
    >>> run.set_data_source("released")
    >>> caption(run, {s: {"system": s} for s in ("Ref = retrieved recipe", "Source copy")})
    'data: same · protocol: same · [Source copy] beyond the paper: the untranslated source recipe scored as an output (a floor)'
    >>> caption(run, {"Ref = retrieved recipe": {"system": "Ref = retrieved recipe"}}, "figure4",
    ...         over=[{"direction": "zh2en", "concept": "tofu"}]).split(" · ")[1]
    "protocol: concept 'tofu' chosen by us (the paper names four of its six: baking, steam, cheese, oil; §7)"
    >>> caption(run, {"Retrieval": {"system": "Retrieval", "metric": "BLEU"}},
    ...         versus={"release script": {"compat": "coastalcph-2023"}}).split(" · ")[-1][:62]
    "[release script] BLEU and chrF as the authors' released script"
    """
    rows = list(over) if over is not None else [{"direction": d} for d in run.params.get("directions", DIRECTIONS)]

    def of(group: Mapping[str, Any]) -> Deviations:
        return merged(deviations(run, part, **{**row, **group}) for row in rows)

    per = {name: of(group) for name, group in groups.items()}
    if not per:
        return ""
    texts = {name: [i.text for i in d.items if i.kind == "protocol"]
             + ([f"beyond the paper: {d.beyond}"] if d.beyond else []) for name, d in per.items()}
    common = [t for t in next(iter(texts.values())) if all(t in v for v in texts.values())]
    parts = [f"data: {merged(per.values()).data}"]
    ours = next((d for d in per.values() if d.model_spec), None)
    if ours is not None:
        parts.append(f"model: {ours.model_spec}" + ("" if ours.paper_model else " (not one of the paper's models)"))
    parts.append(f"protocol: {'; '.join(common) or 'same'}")
    own: dict[tuple[str, ...], list[str]] = {}  # groups that differ alike, named together
    for name, v in texts.items():
        if set(v) - set(common):
            own.setdefault(tuple(t for t in v if t not in common), []).append(name)
    parts += [f"[{', '.join(names)}] {'; '.join(found)}" for found, names in own.items()]
    base = {i.text for d in per.values() for i in d.items}
    for name, change in (versus or {}).items():
        changed = merged(of({**group, **change}) for group in groups.values())
        added = [i.text for i in changed.items if i.text not in base]
        parts.append(f"[{name}] {'; '.join(added) or 'same'}")
    return " · ".join(parts)


def metrics_caption(run: Any, systems: Iterable[str], split: str, metrics: Iterable[str],
                    versus: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """The caption of a figure of ``metrics`` with one bar group per system and direction of the
    run (:func:`caption`): each group compared with the paper over the plotted metrics only, for
    its own direction (a Chinese ROUGE-L setting belongs to the en→zh bars alone).

    >>> from culturelab.runner import Run
    >>> run = Run("cultural_recipes/02_adaptation", {"max_recipes": 0, "directions": ["zh2en", "en2zh"],
    ...           "zh_rouge_tokenizer": "char", "bertscore_en": "bundled:minilm"}, name="doctest")
    >>> run.set_data_source("released")
    >>> metrics_caption(run, ["Retrieval"], "gold", ["R-L"])
    'data: same · protocol: same · [Retrieval en→zh] Chinese ROUGE-L over characters (the paper: over jieba words, fn. 13)'
    """
    directions = run.params.get("directions", list(DIRECTIONS))
    groups = {f"{s} {ARROWS[d]}": {"system": s, "split": split, "direction": d} for s in systems for d in directions}
    return caption(run, groups, over=[{"metric": m} for m in metrics], versus=versus)


#: the occurrences of a concept in the silver source recipes that the paper's text states (§7: "for
#: 'steam', for example, none of the 12 occurrences of the concept in the source Chinese recipe are
#: literally translated in the predictions of MT-ft and mT5")
PAPER_OCCURRENCES = {("steam", "zh2en"): 12}


def figure4_counts(rates: Any, split: str) -> Any:
    """Figure 4's labelled rates (:func:`label`, part ``figure4``) with the paper's count of the
    concept's occurrences where §7 states one (``reported_c_source``, :data:`PAPER_OCCURRENCES`)
    and, on the paper's data (the whole silver split, ``data`` same), a count of ours that
    differs added to the row's ``protocol`` label (our term list finds other occurrences than
    the paper's), which is then not comparable.

    >>> import pandas as pd
    >>> r = pd.DataFrame({"concept": ["steam", "oil"], "direction": "zh2en", "c_source": [9, 30], "data": "same",
    ...                   "protocol": "same", "comparable": True})
    >>> figure4_counts(r, "silver")[["reported_c_source", "protocol", "comparable"]].values.tolist()[0]
    [12.0, "'steam' counted 9 times in the silver zh→en source recipes (the paper: 12, §7)", False]
    """
    out = rates.copy()
    out["reported_c_source"] = [float(PAPER_OCCURRENCES.get((c, d), "nan")) for c, d in
                                zip(out["concept"], out["direction"])]
    differs = (out["reported_c_source"].notna() & (out["c_source"] != out["reported_c_source"])
               & (out["data"] == "same") & (split == "silver"))
    for i in out.index[differs]:
        text = (f"'{out.at[i, 'concept']}' counted {out.at[i, 'c_source']} times in the silver "
                f"{ARROWS[out.at[i, 'direction']]} source recipes (the paper: {out.at[i, 'reported_c_source']:.0f}, §7)")
        out.at[i, "protocol"] = text if out.at[i, "protocol"] == "same" else f"{out.at[i, 'protocol']}; {text}"
        out.at[i, "comparable"] = False
    return out


def table1(source: str, counts: Mapping[str, int], note: str = "") -> Deviations:
    """The labels of Table 1 rows recomputed from splits read from ``source`` with ``counts``
    (:func:`recipes_key`): the release in full is the paper's data (Δ), a copy that differs is not.

    >>> table1("released", {"gold zh→en recipes": 25}).comparable, table1("released", {"gold zh→en recipes": 20}).data
    (True, '20 of 25 gold zh→en recipes')
    """
    return compare(PROTOCOL["02_adaptation.table1"], {}, DataUsed(source, dict(counts), note))


def table5(params: Mapping[str, Any]) -> Deviations:
    """The labels of Table 5 recomputed from the ratings ``params`` name (``ratings_file``):
    never the paper's, which are not released.

    >>> table5({"ratings_file": ""}).data
    "our made-up sample ratings (the paper's crowd ratings are not released, §5.3)"
    """
    return compare(PROTOCOL["02_adaptation.table5"], {"ratings_file": params.get("ratings_file", "")})


def table6(run: Any, rated: list[str], *, direction: str | None = None, metric: str | None = None,
           family_size: int = BONFERRONI_FAMILY) -> Deviations:
    """The labels of one Table 6 cell: τ between the ``rated`` systems' ratings (the run's
    ``ratings_file``) and ``metric`` on their outputs (:func:`effective`; the decoding when the
    run's model is among them), significance Bonferroni-corrected over ``family_size`` tests.

    >>> from culturelab.runner import Run
    >>> run = Run("cultural_recipes/02_adaptation", {"max_recipes": 0, "ratings_file": ""}, name="doctest")
    >>> run.set_data_source("released")
    >>> table6(run, ["Retrieval", "Source copy"], direction="zh2en", metric="ChrF").data
    "our made-up sample ratings (the paper's crowd ratings are not released, §5.3)"
    >>> [line for line in table6(run, ["Retrieval"], family_size=20).lines() if "Bonferroni" in line]
    ['protocol: Bonferroni family of 20 tests (the paper: 25, Table 6: 5 metrics × 5 rows (our reading: per direction))']
    """
    system = next((s for s in rated if not is_model_free(s) and s not in PAPER_RATED), None)
    return deviations(run, "table6", split="gold", direction=direction, system=system, metric=metric,
                      rated_systems=tuple(rated), ratings_file=run.params.get("ratings_file", ""),
                      family_size=family_size)


def sources(params: Mapping[str, Any], splits: list[str]) -> dict[tuple[str, str], str]:
    """Where each (split, direction) the parameters name will be read from — ``released``,
    ``sample`` or ``missing`` — found without reading it (:func:`culturelab.cultural_recipes.data.split_path`).

    >>> sources({"data_source": "sample", "directions": ["zh2en"]}, ["gold"])
    {('gold', 'zh2en'): 'sample'}
    """
    out = {}
    for split in splits:
        for direction in params.get("directions", list(DIRECTIONS)):
            try:
                out[split, direction] = split_path(direction, split, data_dir=params.get("data_dir", ""),
                                                   data_source=params.get("data_source", "auto"))[1]
            except FileNotFoundError:
                out[split, direction] = "missing"
    return out


def source_note(found: Mapping[tuple[str, str], str], data_source: str = "auto") -> tuple[str, str]:
    """One data source for several (split, direction) files (``mixed`` when they differ) and a
    note naming which is which, or why ``auto`` fell back to our sample.

    >>> source_note({("gold", "zh2en"): "released", ("gold", "en2zh"): "sample"})
    ('mixed', 'the release for gold zh→en; our sample for gold en→zh')
    >>> source_note({("gold", "zh2en"): "sample"})
    ('sample', 'no copy of the release (https://github.com/coastalcph/cultural-recipes#readme, Google Drive) found, so `auto` uses our sample')
    """
    kinds = set(found.values())
    if len(kinds) == 1:
        kind = kinds.pop()
        note = (f"no copy of the release ({RELEASE_URL}, Google Drive) found, so `auto` uses our sample"
                if kind == "sample" and data_source == "auto" else "")
        return kind, note
    names = {"released": "the release", "sample": "our sample", "missing": "missing"}
    parts = {}
    for (split, direction), kind in found.items():
        parts.setdefault(kind, []).append(f"{split} {ARROWS[direction]}")
    return "mixed", "; ".join(f"{names[k]} for {', '.join(v)}" for k, v in parts.items())


def locate(topic: str, params: Mapping[str, Any]) -> DataUsed:
    """The data a CulturalRecipes notebook's parameters will read, found without loading it:
    notebook 01 — the corpus files (taken to be XiaChuFang's train split and RecipeNLG, but
    ``given``, unverified: the paper states no exact size or checksum of them) or our toy
    corpus; notebook 02 — the release's test splits it adapts (``split``, ``figure4_split``, and
    the silver split Retrieval draws from), or our sample.

    >>> locate("01_bli_alignment", {"zh_corpus": "", "en_corpus": ""}).label
    "sample data (ours, not the paper's)"
    >>> locate("02_adaptation", {"data_source": "local", "data_dir": "/nonexistent"}).source
    'missing'
    """
    from pathlib import Path

    if topic.startswith("01"):
        zh, en = params.get("zh_corpus", ""), params.get("en_corpus", "")
        if not zh:
            return DataUsed("sample", note="our toy corpus: no zh_corpus / en_corpus given (the paper: the full "
                                           "XiaChuFang and RecipeNLG corpora, §3.1)")
        missing = [p for p in (zh, en) if not Path(p).expanduser().is_file()]
        if missing:
            return DataUsed("missing", note=f"{', '.join(missing)} not found")
        return DataUsed("given", note=f"{zh} and {en}, taken to be XiaChuFang's train split and RecipeNLG; not "
                                      f"checked (the paper states no exact size: XiaChuFang 1.5M recipes before "
                                      f"its train split, RecipeNLG over 2M, §3.1)")
    splits = list(dict.fromkeys([params.get("split", "gold"), params.get("figure4_split", "silver"), "silver"]))
    kind, note = source_note(sources(params, splits), params.get("data_source", "auto"))
    if kind == "missing":
        note = f"no copy of the release under {params.get('data_dir') or '$CULTURELAB_DATA'}; download it from " \
               f"{RELEASE_URL} (Google Drive)"
    return DataUsed(kind, note=note)


def table6_labels(run: Any, tau: Any, rated: list[str]) -> Any:
    """Our Kendall τ table (:func:`culturelab.cultural_recipes.human_eval.kendall_table`) with the
    labels of each (direction, metric): :func:`table6`.

    >>> import pandas as pd
    >>> from culturelab.runner import Run
    >>> run = Run("cultural_recipes/02_adaptation", {"max_recipes": 0, "ratings_file": "r.csv"}, name="doctest")
    >>> run.set_data_source("released")
    >>> tau = pd.DataFrame({"direction": ["zh2en"], "criterion": ["GRA"], "metric": ["BLEU"], "tau": [0.2]})
    >>> table6_labels(run, tau, ["Retrieval"])["data"].item()
    "ratings from r.csv (the paper's crowd ratings are not released, §5.3)"
    """
    from culturelab.protocol import label_rows

    by = ["direction", "metric", *(["family_size"] if "family_size" in tau else [])]
    return label_rows(tau, lambda group: table6(run, rated, **group), by)
