"""The paper's own numbers (``culturelab/reported/percul/``) and the analyses built on them.

Tables 1, 3, 5, Figure 16, the §4.1 claims, the models each figure shows and the ids of the
paper's models are transcribed as long CSVs; this module reshapes them
(:func:`table5_wide`, :func:`fig16_matrix`), re-derives the paper's claims (closed/open means,
provider correlations, category–macro correlations, translation and fine-tuning gaps) and maps
a model spec we run to its Table 5 row (:func:`paper_name`), so our numbers sit next to theirs.

>>> t = table5_wide()
>>> len(t), round(float(t.loc[t["model"] == "GPT 4o", "macro"].iloc[0]), 3)
(32, 0.8)
>>> human_baseline()
0.93
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from culturelab import reported
from culturelab.percul.data import CATEGORIES, RULES, SPLITS, released_counts
from culturelab.percul.protocol import paper_name, paper_numbers
from culturelab.protocol import LABEL_COLUMNS, Deviations, label_rows
from culturelab.stats import agresti_coull_se

PAPER = "percul"
PERSIAN, ENGLISH = SPLITS
#: ``order`` of :func:`fig16_matrix`: as printed, or by Table 5 macro accuracy (best first)
FIG16_ORDERS = ("printed", "macro")


def _figure_models(figure: str) -> pd.DataFrame:
    t = reported.load(PAPER, "figure_models")
    return t[t["figure"] == figure].sort_values("position")


def fig5_models() -> list[str]:
    """The 23 Table 5 rows of Figure 5, in its row order (``figure_models.csv``).

    >>> m = fig5_models()
    >>> len(m), m[0], m[-1]
    (23, 'Llama 3.2 1B', 'Claude 3 Opus')
    """
    return _figure_models("fig5")["model"].tolist()


def fig15_models() -> list[str]:
    """Figure 15's models: the best model of each family (Table 3's bold rows) [inferred].

    >>> len(fig15_models()), fig15_models()[0]
    (9, 'Claude 3.5 Sonnet')
    """
    t3 = table3()
    return t3.loc[t3["best_in_family"], "model"].tolist()


def finetune_pairs() -> dict[str, str]:
    """Figure 6: each Persian fine-tuned model → its base among the Table 5 rows (Dorna's true
    base, Llama-3-8B-Instruct, is not in the paper; Llama 3.1 8B stands in) [inferred].

    >>> finetune_pairs()["PersianMind v1.0"]
    'Llama 2 7B'
    """
    t = _figure_models("fig6")
    return dict(zip(t["model"], t["paired_with"]))


def table5_long() -> pd.DataFrame:
    """Table 5 as transcribed: one row per (model, split, category incl. ``Macro Avg.``)."""
    return reported.load(PAPER, "table5")


def table5_categories(models: Sequence[str] | None = None, split: str = PERSIAN) -> pd.DataFrame:
    """Table 5's per-category cells (``Macro Avg.`` left out) of ``models`` (every row when
    ``None``) on ``split``, long form as transcribed — e.g. Figure 15's radar.

    >>> t = table5_categories(["GPT 4o"])
    >>> len(t), t["category"].iloc[0]
    (11, 'Objects')
    """
    long = table5_long()
    keep = (long["split"] == split) & (long["category"] != "Macro Avg.")
    if models is not None:
        keep &= long["model"].isin(models)
    return long[keep]


def table5_wide(split: str | None = None) -> pd.DataFrame:
    """Table 5, one row per printed row: metadata, the 11 categories (canonical order), ``macro``."""
    long = table5_long()
    keys = ["row", "model", "split", "provider", "family", "type", "params_b"]
    values = long.pivot(index="row", columns="category", values="value").rename(columns={"Macro Avg.": "macro"})
    meta = long[keys].drop_duplicates("row").set_index("row")
    wide = meta.join(values[[*CATEGORIES, "macro"]]).reset_index().sort_values("row").reset_index(drop=True)
    wide.columns.name = None
    return wide if split is None else wide[wide["split"] == split].reset_index(drop=True)


def table3() -> pd.DataFrame:
    """Table 3 (macro accuracy; ``model`` in Table 5 spelling, ``paper_name`` as printed)."""
    return reported.load(PAPER, "table3")


def human_baseline() -> float:
    """The layperson baseline of Table 3 (0.930)."""
    t = table3()
    return float(t.loc[t["type"] == "human", "value"].iloc[0])


def fig16_matrix(order: str = "printed") -> pd.DataFrame:
    """Figure 16: model × rule shares of distractor picks (rows sum to 1 ± 0.001).
    ``order="macro"`` sorts the rows by Table 5 macro accuracy (best first)."""
    long = reported.load(PAPER, "fig16")
    matrix = long.pivot(index=["row", "model"], columns="rule", values="value").reset_index()
    matrix = matrix.sort_values("row").set_index("model")[RULES]
    if order == "macro":
        macro = table5_wide(PERSIAN).set_index("model")["macro"]
        matrix = matrix.loc[macro.reindex(matrix.index).sort_values(ascending=False).index]
    elif order not in FIG16_ORDERS:
        raise ValueError(f"fig16_row_order must be one of {list(FIG16_ORDERS)}, not {order!r}")
    matrix.index.name, matrix.columns.name = "model", "rule"
    return matrix


def group_means() -> pd.DataFrame:
    """Mean Table 5 macro of closed and open-weight models (the paper's 68.5 % and 40.7 %: Table 5
    sets, Persian fine-tuned models counted as open).

    >>> group_means().round(4).to_dict("records")
    [{'group': 'closed', 'mean_macro': 0.6857, 'n_models': 9}, {'group': 'open', 'mean_macro': 0.4073, 'n_models': 18}]
    """
    t = table5_wide(PERSIAN).assign(group=lambda d: np.where(d["type"] == "closed", "closed", "open"))
    return (t.groupby("group")["macro"].agg(mean_macro="mean", n_models="size").reset_index())


def pairwise_correlations(table: pd.DataFrame | None = None, *, group: str = "provider") -> pd.DataFrame:
    """Pearson r between every two models' 11 per-category accuracies, flagged same/cross ``group``
    (default: the 27 Persian-evaluated Table 5 rows)."""
    t = table5_wide(PERSIAN) if table is None else table
    x = t[CATEGORIES].to_numpy(dtype=float)
    r = np.corrcoef(x)
    rows = [{"model_a": t["model"].iloc[i], "model_b": t["model"].iloc[j], "r": float(r[i, j]),
             "same_group": bool(t[group].iloc[i] == t[group].iloc[j])}
            for i, j in itertools.combinations(range(len(t)), 2)]
    return pd.DataFrame(rows)


def correlation_claims(table: pd.DataFrame | None = None, *, group: str = "provider") -> pd.DataFrame:
    """The paper's §4.1 claims beside our recomputation from Table 5 (mean ± population SD).

    >>> c = correlation_claims().set_index("pairs")
    >>> round(float(c.loc["cross-provider", "ours_mean"]), 3), int(c.loc["cross-provider", "n_pairs"])
    (0.576, 309)
    """
    pairs = pairwise_correlations(table, group=group)
    claims = reported.load(PAPER, "claims").pivot(index="pairs", columns="statistic", values="value")
    out = []
    for same, label in ((True, "same-family"), (False, "cross-provider")):
        r = pairs.loc[pairs["same_group"] == same, "r"]
        out.append({"pairs": label, "reported_mean": float(claims.loc[label, "mean"]),
                    "reported_sd": float(claims.loc[label, "sd"]), "ours_mean": float(r.mean()),
                    "ours_sd": float(r.std(ddof=0)), "n_pairs": len(r)})
    return pd.DataFrame(out)


def category_macro_correlation(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Pearson r across models between each category's accuracy and the macro (paper: ≥ 0.94)."""
    t = table5_wide(PERSIAN) if table is None else table
    return pd.DataFrame({"category": CATEGORIES,
                         "r": [float(np.corrcoef(t[c], t["macro"])[0, 1]) for c in CATEGORIES]})


def translation_gap(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Persian vs English macro for the models with † rows (Figure 7); ``delta`` = en − fa; each
    split's 95 % interval (macro ± 1.96 SE, :func:`macro_standard_error`) and ``n`` (592 stories).

    >>> g = translation_gap()
    >>> g["delta"].round(3).tolist(), int(g["n"].iloc[0])
    ([-0.144, -0.109, -0.145, -0.13, -0.067], 592)
    """
    t = table5_wide() if table is None else table
    se = macro_standard_error(t)
    out = {}
    for split, name in ((PERSIAN, "persian"), (ENGLISH, "english")):
        part = t[t["split"] == split].set_index("model")
        out[name] = part["macro"]
        out[f"{name}_ci_low"] = part["macro"] - 1.96 * se[t["split"] == split].to_numpy()
        out[f"{name}_ci_high"] = part["macro"] + 1.96 * se[t["split"] == split].to_numpy()
    both = [m for m in out["persian"].index if m in out["english"].index]
    gap = pd.DataFrame({"model": both, **{k: v[both].to_numpy() for k, v in out.items()}})
    gap["delta"] = gap["english"] - gap["persian"]
    gap["n"] = sum(released_counts().values())
    return gap


def finetune_gap() -> pd.DataFrame:
    """Figure 6: each Persian fine-tuned model vs its Llama base, per category and macro (long), with
    each accuracy's binomial standard error (``fine_tuned_se``, ``base_se``: Agresti–Coull from Table 1's
    category sizes, :func:`category_standard_errors`; the macro's from :func:`macro_standard_error`).

    >>> f = finetune_gap().set_index(["pair", "category"]).loc["PersianMind v1.0 vs Llama 2 7B"]
    >>> bool((f["base_se"] > 0).all() and (f["fine_tuned_se"] > 0).all())  # also where an accuracy is 0
    True
    """
    t = table5_wide(PERSIAN)
    se = category_standard_errors(t).assign(macro=macro_standard_error(t)).set_axis(t["model"])
    t = t.set_index("model")
    rows = []
    for tuned, base in finetune_pairs().items():
        for col in [*CATEGORIES, "macro"]:
            rows.append({"pair": f"{tuned} vs {base}", "category": col, "fine_tuned": float(t.loc[tuned, col]),
                         "base": float(t.loc[base, col]), "delta": float(t.loc[tuned, col] - t.loc[base, col]),
                         "fine_tuned_se": float(se.loc[tuned, col]), "base_se": float(se.loc[base, col])})
    return pd.DataFrame(rows)


def finetune_significance(tuning: pd.DataFrame | None = None) -> pd.DataFrame:
    """The macro rows of :func:`finetune_gap` with ``se_delta`` = √(SE²_tuned + SE²_base) (each SE
    from :func:`macro_standard_error`, Agresti–Coull per category, so a category at 0 still has a
    variance; unpaired, as the per-story predictions are not released) and ``z`` = Δ / ``se_delta``.

    >>> finetune_significance()[["pair", "delta", "z"]].round(1).to_dict("records")[0]
    {'pair': 'PersianMind v1.0 vs Llama 2 7B', 'delta': -0.1, 'z': -4.8}
    """
    tuning = finetune_gap() if tuning is None else tuning
    macro = tuning[tuning["category"] == "macro"].drop(columns=["fine_tuned_se", "base_se"], errors="ignore")
    macro["se_delta"] = np.hypot(tuning.loc[macro.index, "fine_tuned_se"], tuning.loc[macro.index, "base_se"])
    macro["z"] = macro["delta"] / macro["se_delta"]
    return macro


def size_points(*, include_persian: bool = False, include_table5_only: bool = False,
                mixtral_params_b: float | None = None) -> pd.DataFrame:
    """Figure 4 points: open models with a known size, ``family``, ``params_b``, ``macro``
    (``mixtral_params_b`` replaces Table 5's 141 for Mixtral 8x22B, e.g. 176 = 8 × 22).

    >>> size_points().groupby("family").size().to_dict()
    {'Cohere': 2, 'Gemma 2': 3, 'LLaMA': 5, 'Mistral': 3, 'Qwen 2.5': 1}
    """
    t = table5_wide(PERSIAN)
    t = t[t["params_b"].notna()].copy()
    if mixtral_params_b is not None:
        t.loc[t["model"] == "Mixtral 8x22B", "params_b"] = mixtral_params_b
    in_table3 = set(table3()["model"])
    if not include_table5_only:
        t = t[t["model"].isin(in_table3)]
    if not include_persian:
        t = t[t["type"] != "persian"]
    # Figure 4 plots Table 3's macro where it has one (Llama 3.1 405B: 0.717 there, 0.718 in Table 5)
    t3 = table3().set_index("model")["value"]
    t["macro"] = [float(t3.get(m, v)) for m, v in zip(t["model"], t["macro"])]
    return t[["model", "family", "params_b", "macro"]].reset_index(drop=True)


def category_standard_errors(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Binomial standard error of each Table 5 per-category accuracy, from the Table 1 category sizes,
    Agresti–Coull (:func:`culturelab.stats.agresti_coull_se`): unlike the Wald √(p(1−p)/n) it is not
    zero where a model scored 0 (PersianMind's refusals) or 1 (indexed like ``table``, one column per
    category).

    >>> se = category_standard_errors()
    >>> list(se.columns) == CATEGORIES, bool((se > 0).all().all())
    (True, True)
    """
    t = table5_wide() if table is None else table
    n = np.array([released_counts()[c] for c in CATEGORIES], dtype=float)
    return pd.DataFrame(agresti_coull_se(t[CATEGORIES].to_numpy(dtype=float), n), index=t.index, columns=CATEGORIES)


def macro_standard_error(table: pd.DataFrame | None = None) -> pd.Series:
    """Binomial standard error of each Table 5 macro: SE² = Σ_c SE_c² ÷ 11², SE_c of
    :func:`category_standard_errors` (indexed like ``table``).

    >>> round(float(macro_standard_error().iloc[0]), 3)
    0.018
    """
    se = category_standard_errors(table)
    return pd.Series(np.sqrt((se.to_numpy() ** 2).sum(axis=1)) / len(CATEGORIES), index=se.index, name="se")


def category_difficulty(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per category over the Persian-evaluated models: mean, best, and how many models reach 0.90
    (the paper calls Music hardest and Rituals easiest; Table 5 says Institution is easier).

    >>> d = category_difficulty().set_index("category")
    >>> round(float(d.loc["Music", "mean"]), 3), int(d.loc["Institution", "models_at_least_0.90"])
    (0.322, 6)
    """
    t = table5_wide(PERSIAN) if table is None else table
    return pd.DataFrame({"category": CATEGORIES, "mean": [float(t[c].mean()) for c in CATEGORIES],
                         "best": [float(t[c].max()) for c in CATEGORIES],
                         "best_model": [t.loc[t[c].idxmax(), "model"] for c in CATEGORIES],
                         "models_at_least_0.90": [int((t[c] >= 0.9 - 1e-9).sum()) for c in CATEGORIES]})


def beside_paper(ours: pd.DataFrame, rep: pd.DataFrame, on: Sequence[str], value: str,
                 deviations_of: Callable[[Mapping[str, Any]], Deviations], by: Sequence[str] = ("model", "method")
                 ) -> pd.DataFrame:
    """Our rows with the paper's number for the same cell (``reported``; joined on ``on``, which
    holds ``paper_model``, the paper's ``value`` column) and the labels of each row's comparison
    with the paper: ``deviations_of`` gets the row's ``by`` values (those it has, e.g. ``model``
    and ``method``; :func:`culturelab.percul.protocol.results_of`). ``delta`` = ours − reported
    only where data, protocol and model are the paper's (:func:`culturelab.reported.compare`).
    Rows the paper has no number for keep ``reported`` empty.

    >>> from culturelab.protocol import DataUsed, compare
    >>> from culturelab.percul.protocol import MODELS, PROTOCOL
    >>> rep = pd.DataFrame({"paper_model": ["GPT 4o"], "value": [0.8]})
    >>> o = pd.DataFrame({"model": "openai:gpt-4o", "paper_model": ["GPT 4o", "GPT 4o"], "macro": [0.7, 0.6],
    ...                   "method": ["generate", "loglik-text-mean"]})
    >>> of = lambda g: compare(PROTOCOL["01_benchmark"], g, DataUsed("released", {"stories": 592}), model=g["model"],
    ...                        paper_models=MODELS)
    >>> beside_paper(o, rep, ["paper_model"], "macro", of)[["reported", "delta", "comparable"]].round(2).to_dict("list")
    {'reported': [0.8, 0.8], 'delta': [-0.1, nan], 'comparable': [True, False]}
    """
    on, by = list(on), [c for c in by if c in ours]
    mine = label_rows(ours.reset_index(drop=True).assign(_row=lambda d: range(len(d))), deviations_of, by)
    joined = mine[[*on, *by, "_row", value]].merge(rep[[*on, "value"]], on=on, how="inner")
    parts = [reported.compare(part[[*on, "_row", "value"]], part[[*on, "_row", value]], on=[*on, "_row"],
                              ours_value=value, deviations=deviations_of(dict(zip(by, key))),
                              model_row=str(part["paper_model"].iloc[0]))
             for key, part in (joined.groupby(by, sort=False) if by else [((), joined)]) if len(part)]
    found = (pd.concat(parts, ignore_index=True)[["_row", "reported", "delta"]] if parts
             else pd.DataFrame(columns=["_row", "reported", "delta"]))
    return mine.merge(found, on="_row", how="left").drop(columns="_row")


def leaderboard(ours: pd.DataFrame, deviations_of: Callable[[Mapping[str, Any]], Deviations]) -> pd.DataFrame:
    """Table 3 with our runs inserted (one row per model × method), sorted by macro accuracy.

    ``ours`` is :func:`culturelab.percul.scoring.summary` output (``model``, ``method``, ``macro``,
    …). Each of our rows carries the labels of its comparison with the paper (``deviations_of``
    of its model and method, :func:`culturelab.percul.protocol.results_of`); where the paper
    evaluated the same model, ``reported`` holds its Table 3 macro and ``delta`` = ours −
    reported when data, protocol and model are the paper's (else the two numbers stand side by
    side, the labels saying why). The paper's rows carry the labels of its published numbers
    (:func:`culturelab.percul.protocol.paper_numbers`); ``gap_to_human`` = macro − 0.930.
    """
    t3 = table3().rename(columns={"value": "macro"})
    paper_rows = t3[["model", "type", "macro"]].assign(source="paper (Table 3)", **paper_numbers().columns())
    o = ours.assign(paper_model=ours["model"].map(paper_name))
    rep = t3.rename(columns={"model": "paper_model", "macro": "value"})[["paper_model", "value"]]
    o = beside_paper(o, rep, ["paper_model"], "macro", deviations_of)
    label_col = o["model"] + (" [" + o["method"] + "]" if "method" in o else "")
    cols = [c for c in ("macro_ci_low", "macro_ci_high", "micro", "invalid_rate", "refusal_rate", "n") if c in o]
    ours_rows = o.assign(model=label_col, type="ours", source="ours")[
        ["model", "type", "macro", *cols, "source", "reported", "delta", *LABEL_COLUMNS]]
    table = (pd.concat([paper_rows, ours_rows], ignore_index=True) if len(ours_rows)
             else paper_rows.reindex(columns=list(dict.fromkeys([*paper_rows.columns, *ours_rows.columns]))))
    table["gap_to_human"] = table["macro"] - human_baseline()
    return table.sort_values("macro", ascending=False).reset_index(drop=True)


def compare_ours(ours: pd.DataFrame, deviations_of: Callable[[Mapping[str, Any]], Deviations], *,
                 split: str = PERSIAN) -> pd.DataFrame:
    """Our per-category accuracies next to Table 5's, for models the paper evaluated.

    ``ours`` has ``model`` (spec), ``category``, ``accuracy`` (and optionally ``method``, and a
    ``macro`` row per model with category ``macro``); each row is labelled by ``deviations_of``
    of its model and method (:func:`beside_paper`); returns ``model``, (``method``,)
    ``paper_model``, ``category``, ``reported``, ``ours``, ``delta`` (only where comparable) and
    the label columns — rows with a paper counterpart only.
    """
    t = table5_long()
    t = t[t["split"] == split].replace({"category": {"Macro Avg.": "macro"}})
    keys = [c for c in ("model", "method") if c in ours]
    columns = [*keys, "paper_model", "category", "reported", "ours", "delta", *LABEL_COLUMNS]
    mine = ours.assign(paper_model=ours["model"].map(paper_name), category=ours["category"].astype(str))
    mine = mine.dropna(subset=["paper_model"])
    if mine.empty:
        return pd.DataFrame(columns=columns)
    rep = t.rename(columns={"model": "paper_model"})[["paper_model", "category", "value"]]
    table = beside_paper(mine, rep, ["paper_model", "category"], "accuracy", deviations_of, by=keys)
    return table.rename(columns={"accuracy": "ours"}).dropna(subset=["reported"])[columns].reset_index(drop=True)


def translation_vs_paper(gap: pd.DataFrame, deviations_of: Callable[[Mapping[str, Any]], Deviations]
                         ) -> pd.DataFrame:
    """Our Persian → English gaps (:func:`culturelab.percul.translation.split_gap` rows, one per
    model) beside the paper's (Figure 7) for the models it translated, labelled by the comparison
    of their English results (``deviations_of`` of the model on the English split: our English
    prompt is never the paper's, so there is no Δ unless that comparison says otherwise).

    >>> from culturelab.protocol import DataUsed, compare
    >>> from culturelab.percul.protocol import MODELS, PROTOCOL
    >>> g = pd.DataFrame({"model": ["hf:x/Llama-3.1-405B-Instruct"], "delta": [-0.05]})
    >>> same = lambda g: compare(PROTOCOL["03_translation"], {}, DataUsed("released"), model=g["model"],
    ...                          paper_models=MODELS)
    >>> translation_vs_paper(g, same)[["reported", "delta_vs_paper"]].round(3).to_dict("records")
    [{'reported': -0.067, 'delta_vs_paper': 0.017}]
    """
    columns = ["model", "paper_model", "gap", "reported", "delta_vs_paper", *LABEL_COLUMNS]
    rep = translation_gap().rename(columns={"model": "paper_model", "delta": "value"})[["paper_model", "value"]]
    mine = gap.assign(paper_model=gap["model"].map(paper_name)).dropna(subset=["paper_model"])
    mine = mine.rename(columns={"delta": "gap"})
    if mine.empty:
        return pd.DataFrame(columns=columns)
    table = beside_paper(mine, rep, ["paper_model"], "gap", lambda g: deviations_of({**g, "split": ENGLISH}),
                         by=["model"]).dropna(subset=["reported"])
    return table.rename(columns={"delta": "delta_vs_paper"})[columns]


def wide_categories(long: pd.DataFrame, index: str = "model", value: str = "accuracy",
                    columns: Sequence[str] = CATEGORIES) -> pd.DataFrame:
    """Per-category long table → model × category matrix in canonical column order."""
    m = long.pivot_table(index=index, columns="category", values=value, observed=True)
    m = m.reindex(columns=[c for c in columns if c in m.columns])
    m.columns = [str(c) for c in m.columns]
    return m


def micro_from_table5(table: pd.DataFrame | None = None) -> pd.Series:
    """Micro accuracy of each Table 5 row rebuilt from its per-category accuracies and the
    Table 1 sizes (Σ acc_c · n_c / 592), indexed like ``table``.

    >>> t = table5_wide(PERSIAN).set_index("model")
    >>> round(float(micro_from_table5(t)["Mistral Nemo"]), 3), float(t.loc["Mistral Nemo", "macro"])
    (0.405, 0.448)
    """
    t = table5_wide() if table is None else table
    n = np.array(list(released_counts().values()), dtype=float)
    return pd.Series(t[CATEGORIES].to_numpy(dtype=float) @ n / n.sum(), index=t.index, name="micro")


def headline_claims() -> pd.DataFrame:
    """The text's headline numbers (``headline.csv``) beside their recomputation from the paper's
    own Tables 3 and 5: ``claim, section, reported, recomputed, note``.

    >>> c = headline_claims().set_index("claim")["recomputed"].round(4)
    >>> float(c["mean macro of closed-source models"]), float(c["gap: human − best open-weight model"])
    (0.6857, 0.213)
    """
    t3 = table3()
    models = t3[t3["type"] != "human"]
    closed, open_ = models[models["type"] == "closed"], models[models["type"] == "open"]
    means = group_means().set_index("group")["mean_macro"]
    drops = -translation_gap()["delta"]
    t5 = table5_wide(PERSIAN)
    recomputed = {
        "best model (Claude 3.5 Sonnet)": models["value"].max(),
        "human baseline": human_baseline(),
        "gap: human − best closed-source model": human_baseline() - closed["value"].max(),
        "best open-weight model (Llama 3.1 405B)": open_["value"].max(),
        "gap: human − best open-weight model": human_baseline() - open_["value"].max(),
        "mean macro of closed-source models": means["closed"],
        "mean macro of open-weight models": means["open"],
        "smallest drop after translation": drops.min(),
        "largest drop after translation": drops.max(),
        "largest |macro − micro| over the models": float((t5["macro"] - micro_from_table5(t5)).abs().max()),
    }
    claims = reported.load(PAPER, "headline").rename(columns={"value": "reported"})
    claims["recomputed"] = claims["claim"].map(recomputed).astype(float)
    return claims[["claim", "section", "reported", "recomputed", "note"]].fillna({"note": ""})


def table2() -> pd.DataFrame:
    """Table 2 as printed: two translated stories, the correct answer, one distractor per rule.

    >>> table2().query("example == 2 and rule == 'R3'")["text"].item()
    'Samovar'
    """
    return reported.load(PAPER, "table2")


def table4() -> pd.DataFrame:
    """Table 4 as printed: the annotators (nine rows; the text says eight).

    >>> len(table4()), table4()["sex"].value_counts().to_dict()
    (9, {'Male': 6, 'Female': 3})
    """
    return reported.load(PAPER, "table4")


def fig5_matrix() -> pd.DataFrame:
    """Figure 5's matrix: the paper's 23 rows (Table 5, Figure 5's row order) × the 11 categories
    (canonical order), accuracies as published.

    >>> m = fig5_matrix()
    >>> m.shape, round(float(m.loc["GPT 4o", "Foods"]), 3)
    ((23, 11), 0.895)
    """
    return table5_wide(PERSIAN).set_index("model").loc[fig5_models(), CATEGORIES]
