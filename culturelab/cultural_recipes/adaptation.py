"""Recipe adaptation outputs: prompted models (the paper's prompts) and the two model-free systems.

Every function returns the same tidy table, one row per (system, source recipe):
``recipe_id, direction, split, system, source_text, prompt, raw_output, prediction, references,
valid, target_share`` — ``references`` is the list of serialised target recipes, ``valid`` says
whether the output is non-empty and mostly in the target language (``target_share`` ≥ 0.5; an
output that stays in the source language or is empty is *counted*, never dropped).

* :func:`adapt` — generation through any core backend with the paper's GPT-4/ChatGLM2 prompt
  (``style="llm"``, chat) or BLOOM prompt (``style="bloom"``, plain completion), all prompts in
  one batched, cached ``model.generate`` call;
* :func:`retrieval_outputs` — the paper's *Retrieval* system on the gold set: the title-matched
  silver target of the same source recipe;
* :func:`copy_outputs` — the untranslated source (a floor);
* :func:`reference_outputs` — the references themselves, named by what they are
  (:data:`REFERENCES`): on the silver split the retrieved recipe (Figure 4's "Ref"), on the gold
  split the human adaptation.

>>> target_share("Soak the red beans 8 hours.", "en"), target_share("红豆浸泡8小时", "en")
(1.0, 0.0)
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pandas as pd

from culturelab import prompts
from culturelab.cultural_recipes.data import ARROWS, LANGS, serialize
from culturelab.cultural_recipes.protocol import RETRIEVAL, SOURCE_COPY
from culturelab.plots.honest import MIN_N

STYLES = {"llm": ("llm_adapt", True), "bloom": ("bloom_adapt", False)}
#: the reference of each test split as a system: the paper's Figure 4 "Ref" is the retrieved
#: (silver) recipe; a gold reference is a human adaptation (§3.4)
REFERENCES = {"silver": "Ref = retrieved recipe", "gold": "Ref = human adaptation"}
#: the systems that need no model (:func:`culturelab.cultural_recipes.protocol.is_model_free`);
#: every other system of an adaptation table is a model's adaptations
MODEL_FREE = (RETRIEVAL, SOURCE_COPY, *REFERENCES.values())
COLUMNS = ["recipe_id", "direction", "split", "system", "source_text", "prompt", "raw_output", "prediction",
           "references", "valid", "target_share"]
_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def target_share(text: str, lang: str) -> float:
    """Share of the script letters of ``text`` that belong to ``lang`` (Han for zh, Latin for en)."""
    han, latin = len(_HAN.findall(text)), len(_LATIN.findall(text))
    if han + latin == 0:
        return 0.0
    # a Chinese character carries about a word; weigh Latin letters by ~1/4 so mixed text is fair
    zh, en = han, latin / 4
    return (zh if lang == "zh" else en) / (zh + en)


def _table(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table


def _row(rec: object, direction: str, system: str, prompt: str, raw: str) -> dict:
    trg = LANGS[direction][1]
    share = target_share(raw, trg)
    return {"recipe_id": rec.recipe_id, "direction": direction, "split": rec.split, "system": system,
            "source_text": serialize(rec.source), "prompt": prompt, "raw_output": raw, "prediction": raw.strip(),
            "references": [serialize(t) for t in rec.targets], "valid": bool(raw.strip()) and share >= 0.5,
            "target_share": round(share, 3)}


def build_prompts(matched: pd.DataFrame, direction: str, *, style: str = "llm", version: str = "v1") -> list[str]:
    """The paper's prompt for each source recipe.

    >>> from culturelab.cultural_recipes.data import load_split
    >>> build_prompts(load_split("en2zh", "gold", data_source="sample"), "en2zh", style="bloom")[0][-13:]
    '中文菜谱, 适合中国人的:'
    """
    if style not in STYLES:
        raise ValueError(f"style must be one of {sorted(STYLES)}, not {style!r}")
    template = prompts.get("cultural_recipes", f"{STYLES[style][0]}_{direction}", version)
    return [template.format(recipe=serialize(s)) for s in matched["source"]]


def adapt(model: object, matched: pd.DataFrame, direction: str, *, style: str = "llm", version: str = "v1",
          max_new_tokens: int = 256, temperature: float = 0.0, seed: int = 0, system: str | None = None
          ) -> pd.DataFrame:
    """Adapt every source recipe of ``matched`` with ``model`` (one batched ``generate`` call)."""
    if matched.empty:
        return _table([])
    prompt_list = build_prompts(matched, direction, style=style, version=version)
    chat = STYLES[style][1]
    outputs = model.generate(prompt_list, max_new_tokens=max_new_tokens, temperature=temperature, chat=chat,
                             seed=seed)
    name = system or f"{getattr(model, 'spec', 'model')} ({style} prompt)"
    return _table([_row(rec, direction, name, p, o)
                   for rec, p, o in zip(matched.itertuples(index=False), prompt_list, outputs)])


def retrieval_outputs(gold: pd.DataFrame, silver: pd.DataFrame, direction: str) -> pd.DataFrame:
    """*Retrieval*: for each gold source, the first silver target of the same source recipe. A
    gold source the pool lacks has no Retrieval output: a warning names it (and the run's
    counts of the Retrieval rows say how many were found: :func:`culturelab.cultural_recipes.setup.open`).

    >>> from culturelab.cultural_recipes.data import load_split
    >>> gold, silver = (load_split("zh2en", s, data_source="sample") for s in ("gold", "silver"))
    >>> len(retrieval_outputs(gold, silver, "zh2en")) == len(gold)
    True
    """
    by_id = {rid: targets[0] for rid, targets in zip(silver["recipe_id"], silver["targets"])}
    missing = [rid for rid in gold["recipe_id"] if rid not in by_id]
    if missing:
        warnings.warn(f"Retrieval: {len(missing)} of {len(gold)} gold {ARROWS[direction]} recipes have no title-"
                      f"matched recipe in the silver pool ({', '.join(map(str, missing[:5]))}"
                      f"{' …' if len(missing) > 5 else ''}); Retrieval is scored on the other "
                      f"{len(gold) - len(missing)}", stacklevel=2)
    rows = [_row(rec, direction, RETRIEVAL, "", serialize(by_id[rec.recipe_id]))
            for rec in gold.itertuples(index=False) if rec.recipe_id in by_id]
    return _table(rows)


def copy_outputs(matched: pd.DataFrame, direction: str) -> pd.DataFrame:
    """*Source copy*: the source recipe unchanged (scores what overlap alone earns)."""
    return _table([_row(rec, direction, SOURCE_COPY, "", serialize(rec.source))
                   for rec in matched.itertuples(index=False)])


def reference_outputs(matched: pd.DataFrame, direction: str, system: str | None = None) -> pd.DataFrame:
    """The first reference of each item as an "output" (Figure 4 compares it with the systems),
    named by what it is on its split (:data:`REFERENCES`) unless ``system`` names it.

    >>> from culturelab.cultural_recipes.data import load_split
    >>> reference_outputs(load_split("zh2en", "silver", data_source="sample"), "zh2en")["system"].iloc[0]
    'Ref = retrieved recipe'
    """
    return _table([_row(rec, direction, system or REFERENCES[rec.split], "", serialize(rec.targets[0]))
                   for rec in matched.itertuples(index=False)])


def case_study(outputs: pd.DataFrame, *, direction: str = "zh2en", recipe_id: str | None = None) -> pd.DataFrame:
    """Table 7's view: one source recipe of ``direction`` (the first, unless ``recipe_id``) as each
    of our systems adapted it, below the paper's three adaptations of Figure 1's red-bean soup as
    printed (a different source recipe: Figure 1's is not in the paper text).

    >>> case_study(pd.DataFrame(columns=COLUMNS))["system"].tolist()
    ['MT-zs', 'MT-ft', 'GPT-4']
    """
    from culturelab.reported import load as load_reported

    paper = load_reported("cultural_recipes", "table7").rename(columns={"output": "prediction"})
    paper = paper.assign(source="paper (Table 7): Figure 1's red-bean soup")
    part = outputs[outputs["direction"] == direction]
    if part.empty:
        return paper[["source", "system", "prediction"]]
    chosen = part[part["recipe_id"] == (recipe_id or part["recipe_id"].iloc[0])]
    ours = chosen.assign(source="ours: " + chosen["source_text"])[["source", "system", "prediction"]]
    return pd.concat([paper[["source", "system", "prediction"]], ours], ignore_index=True)


def validity_findings(outputs: pd.DataFrame, *, min_n: int = MIN_N) -> str:
    """What this run's adaptations are, as Markdown written from ``outputs`` (every number from
    it): the source recipes per direction (and, where a direction has fewer than ``min_n``, that the
    metric figures show their tables instead: a panel whose every bar rests on so few is not drawn) and, per system that needs a model, how many outputs are valid — non-empty and
    mostly in the target language; an invalid one is counted and still scored, never dropped.

    >>> out = pd.DataFrame({"direction": ["zh2en"] * 3 + ["en2zh"] * 3, "recipe_id": list("abcabc"),
    ...                     "system": ["m (llm prompt)"] * 6, "raw_output": ["Boil.", "", "煮", "煮", "煮", "Boil"],
    ...                     "valid": [True, False, False, True, True, False]})
    >>> print(validity_findings(out))  # doctest: +NORMALIZE_WHITESPACE
    **This run's adaptations**: 3 source recipes zh→en and 3 en→zh (fewer than 10 in a direction: the metric
    figures below show their tables instead).
    m (llm prompt): 3 of 6 outputs valid (1 empty, 2 not mostly in the target language); the invalid ones
    are counted and still scored.
    """
    sizes = outputs.groupby("direction", sort=False)["recipe_id"].nunique()
    text = ("**This run's adaptations**: " + " and ".join(f"{n} source recipes {ARROWS[d]}" if i == 0 else
                                                         f"{n} {ARROWS[d]}" for i, (d, n) in enumerate(sizes.items())))
    if (sizes < min_n).any():
        text += f" (fewer than {min_n} in a direction: the metric figures below show their tables instead)"
    text += "."
    models = outputs[~outputs["system"].isin(MODEL_FREE)]
    if models.empty:
        return text + " No model adapted them (its backend cannot generate, or none was given)."
    for system, part in models.groupby("system", sort=False):
        empty = int((part["raw_output"].str.strip() == "").sum())
        other = int((~part["valid"]).sum()) - empty
        text += (f" {system}: {int(part['valid'].sum())} of {len(part)} outputs valid ({empty} empty, {other} not "
                 "mostly in the target language); the invalid ones are counted and still scored.")
    return text


#: the notebook section of the model's adaptations, for the run's "skipped" line
MODEL_SECTION = "Adaptation by the model (the paper's prompts)"


#: why *Retrieval* is left out of a split other than gold
RETRIEVAL_GOLD_ONLY = ("Retrieval left out on the {split} split: its pool is the silver split, so on {split} it "
                       "would be the reference scored against itself (the paper has Retrieval on the gold test "
                       "sets only, Table 4)")


def all_systems(run: Any, data: dict[str, pd.DataFrame], silver: dict[str, pd.DataFrame] | None, *,
                style: str = "llm", max_new_tokens: int = 256, temperature: float = 0.0, seed: int = 0,
                system: str | None = None) -> pd.DataFrame:
    """Every system's outputs for each direction of ``data``: the run's model with the paper's
    prompt (:func:`adapt`; skipped, with one recorded line, when its backend cannot generate),
    *Retrieval* (its ``silver`` pool; only on the gold split — elsewhere a printed line says why
    it is left out, :data:`RETRIEVAL_GOLD_ONLY`; ``silver=None``: no Retrieval), *Source copy*
    and the references (``Ref``).

    >>> class Run:
    ...     def supports(self, kind, section): return False
    >>> from culturelab.cultural_recipes.data import load_split
    >>> d = {"en2zh": load_split("en2zh", "gold", data_source="sample")}
    >>> s = {"en2zh": load_split("en2zh", "silver", data_source="sample")}
    >>> sorted(all_systems(Run(), d, s)["system"].unique())
    ['Ref = human adaptation', 'Retrieval', 'Source copy']
    """
    model = run.model() if run.supports("generate", MODEL_SECTION) else None
    parts = []
    left_out = sorted({s for m in data.values() for s in m["split"] if s != "gold"}) if silver is not None else []
    for split in left_out:
        print(RETRIEVAL_GOLD_ONLY.format(split=split))
    for direction, matched in data.items():
        if model is not None:
            parts.append(adapt(model, matched, direction, style=style, max_new_tokens=max_new_tokens,
                               temperature=temperature, seed=seed, system=system))
        gold = matched[matched["split"] == "gold"]
        if silver is not None and len(gold):
            parts.append(retrieval_outputs(gold, silver[direction], direction))
        parts += [copy_outputs(matched, direction), reference_outputs(matched, direction)]
    return pd.concat(parts, ignore_index=True)


def figure4_systems(run: Any, outputs: pd.DataFrame, figure4: dict[str, pd.DataFrame], **generation: Any
                    ) -> pd.DataFrame:
    """Figure 4's systems on its split (the paper's: silver, where *Ref* is the retrieved recipe):
    the run's model and the reference of each source recipe of ``figure4`` — taken from
    ``outputs`` when they were adapted on that split, else adapted now (``generation`` as for
    :func:`all_systems`; cached prompts are not generated again). *Retrieval* and *Source copy*
    are not Figure 4 systems.

    >>> class Run:
    ...     def supports(self, kind, section): return False
    >>> from culturelab.cultural_recipes.data import load_split
    >>> silver = {"zh2en": load_split("zh2en", "silver", data_source="sample")}
    >>> sorted(figure4_systems(Run(), pd.DataFrame(columns=COLUMNS), silver)["system"].unique())
    ['Ref = retrieved recipe']
    """
    split = next(iter(figure4.values()))["split"].iloc[0] if figure4 else None
    if len(outputs) and set(outputs["split"]) == {split}:
        return outputs[~outputs["system"].isin([RETRIEVAL, SOURCE_COPY])].reset_index(drop=True)
    adapted = all_systems(run, figure4, None, **generation)
    return adapted[adapted["system"] != SOURCE_COPY].reset_index(drop=True)
