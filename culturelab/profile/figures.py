"""The profile's figures: scores per benchmark × task (95 % CI, chance, n) and radar charts over
cultures and categories. Bars on fewer than ``MIN_N`` items are faded (see
:mod:`culturelab.plots.honest`).

>>> t = pd.DataFrame({"model": ["m", "m"], "benchmark": ["b", "b"], "task": ["t1", "t2"], "mean": [0.5, 0.3],
...                   "ci_low": [0.4, 0.2], "ci_high": [0.6, 0.4], "n": [40, 5], "chance": [0.25, 0.5],
...                   "invalid_rate": [0.0, 0.2]})
>>> fig = score_bars(t); len(fig.axes[0].patches)
2
>>> plt.close("all")
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from culturelab.plots import (
    MIN_N,
    claim,
    fade,
    figsize,
    footnote,
    note_small_n,
    palette,
    radar,
    stamp_title,
    too_few,
)
from culturelab.plots.honest import SMALL_N
from culturelab.plots.layout import current
from culturelab.plots.radar import rings_off_panel
from culturelab.plots.recipe import drawing

#: how the profile scores: multiple-choice tasks by option log-likelihood, the rest by generation
METHOD = "MCQs by option log-likelihood, open tasks by greedy generation"


def _columns(sizes: dict[str, int], n_columns: int) -> list[list[str]]:
    """Benchmarks dealt to ``n_columns`` columns, largest first onto the shortest column.

    >>> _columns({"a": 11, "b": 8, "c": 4, "d": 3, "e": 1}, 2)
    [['a', 'd'], ['b', 'c', 'e']]
    """
    columns: list[list[str]] = [[] for _ in range(n_columns)]
    height = [0] * n_columns
    for name in sorted(sizes, key=lambda k: -sizes[k]):
        j = height.index(min(height))
        columns[j].append(name)
        height[j] += sizes[name] + 1
    return [c for c in columns if c]


def _bar_panel(ax: plt.Axes, table: pd.DataFrame, tasks: list[str], models: list[str], colours: dict[str, str],
               min_n: int) -> None:
    height = 0.8 / max(len(models), 1)
    for j, model in enumerate(models):
        part = table[table["model"] == model].set_index("task").reindex(tasks)
        y = np.arange(len(tasks)) + (j - (len(models) - 1) / 2) * height
        faint = too_few(part["n"].to_numpy(float), min_n)
        bars = ax.barh(y, part["mean"], height=height, color=[(fade(colours[model]) if f else colours[model])
                                                               for f in faint], edgecolor=colours[model],
                       linewidth=0.6, label=model)
        for bar, f in zip(bars, faint):
            if f:
                bar.set_gid(SMALL_N)
        ax.errorbar(part["mean"], y, xerr=[part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]],
                    fmt="none", ecolor="#333333", elinewidth=0.8, capsize=2)
        for yi, m, hi, n, bad in zip(y, part["mean"], part["ci_high"], part["n"], part["invalid_rate"]):
            if pd.notna(m):
                ax.text(np.nanmax([m, hi, 0]) + 0.01, yi, f"n={int(n)}" + (f", {bad:.0%} inv." if bad > 0 else ""),
                        va="center", fontsize=6)
    chance = table.groupby("task", sort=False)["chance"].first().reindex(tasks)
    for i, c in enumerate(chance):
        if pd.notna(c):
            ax.vlines(c, i - 0.45, i + 0.45, linestyles=":", colors="#555555", lw=1)
    ax.set_yticks(np.arange(len(tasks)))
    ax.set_yticklabels(tasks, fontsize=7)
    ax.set_ylim(len(tasks) - 0.5, -0.5)
    ax.set_xlim(0, 1.25)  # room right of 1 for the n labels
    ax.set_xticks([0.0, 0.25, 0.5, 0.75, 1.0])  # no tick beyond 1: no score goes there
    ax.tick_params(axis="x", labelsize=7)


@drawing
def score_bars(table: pd.DataFrame, *, min_n: int = MIN_N, n_columns: int = 2) -> plt.Figure:
    """One panel per benchmark (dealt to ``n_columns`` columns), one horizontal bar per task and
    model, with its 95 % CI, a chance tick (dotted) and n; bars on fewer than ``min_n`` items are
    faded; the models and how they were scored (:data:`METHOD`) in the title, "(sample data)" in the
    title of a benchmark's panel when its rows come from sample data (``data_source``). A task whose every
    answer is invalid has no score: it is named under the figure, not drawn as a bar.

    >>> t = pd.DataFrame({"model": "m", "benchmark": ["a", "a", "b"], "task": ["t1", "t2", "t1"],
    ...                   "mean": [0.5, 0.3, 0.7], "ci_low": 0.2, "ci_high": 0.8, "n": 40, "chance": 0.25,
    ...                   "invalid_rate": 0.0})
    >>> [ax.get_title(loc="left") for ax in score_bars(t).axes]
    ['a', 'b']
    >>> fig = score_bars(t.assign(invalid_rate=[0.0, 0.0, 1.0]))  # b's only task: no valid answer
    >>> [ax.get_title(loc="left") for ax in fig.axes], fig.texts[-1].get_text()
    (['a'], 'not drawn (every answer invalid): b t1')
    >>> plt.close("all")
    """
    models = list(dict.fromkeys(table["model"]))
    colours = dict(zip(models, palette(max(len(models), 2))[1:] if len(models) == 1 else palette(len(models))))
    void = pd.to_numeric(table["invalid_rate"], errors="coerce").fillna(0) >= 1  # no valid answer: no score to draw
    dropped, table = table[void], table[~void]
    tasks = {b: list(dict.fromkeys(part["task"])) for b, part in table.groupby("benchmark", sort=False)}
    target = current().inches  # a paper: as many columns of 3.3 in as the width holds
    fits = n_columns if target is None else max(1, int(target // 3.3))
    columns = _columns({b: len(t) for b, t in tasks.items()}, min(n_columns, fits, len(tasks)))
    rows = max(sum(len(tasks[b]) + 1 for b in column) for column in columns)
    row_in = (0.22 if target is None else 0.16) * max(len(models), 1) + 0.08
    height = row_in * rows + 1.2
    fig = plt.figure(figsize=(5.2 * len(columns) if target is None else target, height))
    grid = fig.add_gridspec(rows, len(columns), hspace=0.0, wspace=0.55, top=1 - 0.35 / height,
                            bottom=0.75 / height)
    for j, column in enumerate(columns):
        top = 0
        for bench in column:
            ax = fig.add_subplot(grid[top + 1:top + 1 + len(tasks[bench]), j])
            part = table[table["benchmark"] == bench]
            _bar_panel(ax, part, tasks[bench], models, colours, min_n)
            sample = "data_source" in part and (part["data_source"] == "sample").any()
            ax.set_title(f"{bench} (sample data)" if sample else bench, fontsize=8, loc="left")
            if bench != column[-1]:  # one score axis per column, under its last panel
                ax.tick_params(axis="x", labelbottom=False)
            top += len(tasks[bench]) + 1
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[m]) for m in models]
    handles.append(plt.Line2D([], [], ls=":", color="#555555"))
    fig.legend(handles, [*models, "chance"], fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0),
               ncol=len(models) + 1, frameon=False)
    fig.suptitle(f"Cultural profile: {METHOD}", fontsize=8, y=1.0 + 0.3 / height, va="bottom")
    fig.supxlabel("score (accuracy; ρ for reordering; adaptation metrics ÷ 100) with 95 % bootstrap CI", fontsize=7,
                  y=0.2 / height)
    note_small_n(fig, min_n)
    if len(dropped):
        footnote(fig, "not drawn (every answer invalid): " + ", ".join(
            dict.fromkeys(f"{b} {t} ({m})" if len(models) > 1 else f"{b} {t}"
                          for b, t, m in dropped[["benchmark", "task", "model"]].itertuples(index=False))))
    claim(fig, kind="score", model=models, method=METHOD, data_source=_sample(table),
          chance=[float(c) for c in table["chance"].dropna().unique()],
          no_chance=None if table["chance"].notna().any() else "no task states a chance level")
    return fig


#: a radar needs this many spokes: with fewer its polygon is a line or a point
MIN_SPOKES = 3


def _binary(tidy: pd.DataFrame, column: str) -> pd.DataFrame:
    return one_method(tidy[tidy["binary"].astype(bool)].dropna(subset=[column]))


def one_method(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of one scoring method per task (``task`` written ``"<task> (<method>)"``): a question
    scored both by generation and by log-likelihood is one item, not two. Per benchmark and task the
    first log-likelihood method is kept (what the radars' titles say: :data:`METHOD`), else the first.

    >>> t = pd.DataFrame({"benchmark": "b", "task": ["mcq (generate)", "mcq (loglikelihood)", "gi (llm (mean))",
    ...                                              "gi (llm (sum))", "fill-in"], "score": 1.0})
    >>> one_method(t)["task"].tolist()
    ['mcq (loglikelihood)', 'gi (llm (mean))', 'fill-in']
    """
    if "task" not in rows:
        return rows
    parts = rows["task"].astype(str).str.extract(r"^(?P<base>.*?)(?: \((?P<method>.*)\))?$")
    method = parts["method"].fillna("")
    # log-likelihood first ("loglik…", and Turkish PLU's "llm (mean|sum)", which scores options by it)
    rank = (~method.str.contains(r"loglik|^llm \(", case=False)).astype(int)
    options = pd.DataFrame({"benchmark": rows.get("benchmark", pd.Series("", index=rows.index)).to_numpy(), "base": parts["base"].to_numpy(),
                            "method": method.to_numpy(), "rank": rank.to_numpy()})
    chosen = (options.drop_duplicates(["benchmark", "base", "method"]).sort_values("rank", kind="stable")
              .drop_duplicates(["benchmark", "base"]))
    keep = options.merge(chosen[["benchmark", "base", "method"]], how="left", indicator=True)["_merge"] == "both"
    return rows[keep.to_numpy()]


def _sizes(tidy: pd.DataFrame, column: str, min_n: int) -> tuple[pd.Series, np.ndarray]:
    """The largest n over the models of each value of ``column``, and which are under ``min_n``."""
    largest = _binary(tidy, column).groupby(["model", column]).size().groupby(column).max()
    return largest, too_few(largest.to_numpy(float), min_n)


def spokes(tidy: pd.DataFrame, column: str, *, min_n: int = MIN_N) -> tuple[pd.Series, pd.Series]:
    """The values of ``column`` a radar of the binary tasks draws, and those it leaves out (fewer
    than ``min_n`` items for every model), each with its largest n over the models; all stay when
    all are small (drawn hollow: such a figure is refused as a result).

    >>> t = pd.DataFrame({"model": "m", "binary": True, "culture": ["A"] * 12 + ["B"] * 3, "score": 1.0})
    >>> [s.to_dict() for s in spokes(t, "culture")]
    [{'A': 12}, {'B': 3}]
    """
    largest, small = _sizes(tidy, column, min_n)
    if small.all():  # all small (smoke sizes): draw them all, hollow
        small[:] = False
    return largest[~small], largest[small]


def no_radar(tidy: pd.DataFrame, column: str, *, min_n: int = MIN_N) -> str:
    """Why accuracy by ``column`` is not drawn as a radar (fewer than :data:`MIN_SPOKES` spokes with
    ``min_n`` items: :func:`spokes`), as Markdown written from the counts; ``""`` when it is drawn.

    >>> t = pd.DataFrame({"model": "m", "binary": True, "category": ["Music"] * 18 + ["Dress"] * 2, "score": 1.0})
    >>> print(no_radar(t, "category"))
    **Accuracy by category** is not drawn as a radar (it needs 3 spokes): 1 category has at least 10 items (Music, n=18), 1 fewer (Dress, n=2); the table below has every category.
    >>> no_radar(pd.concat([t.assign(category=c) for c in "ABC"]), "category")
    ''
    >>> print(no_radar(t.assign(category=["A"] * 9 + ["B"] * 6 + ["C"] * 5), "category"))
    **Accuracy by category** is not drawn as a radar (it needs 3 spokes): 0 categories have at least 10 items, 3 fewer (A, n=9, B, n=6, C, n=5); the table below has every category.
    """
    largest, small = _sizes(tidy, column, min_n)  # not spokes(): a radar of small spokes only is no result
    kept, dropped = largest[~small], largest[small]
    if len(kept) >= MIN_SPOKES:
        return ""

    def listed(counts: pd.Series) -> str:
        return ", ".join(f"{k}, n={int(v)}" for k, v in counts.sort_values(ascending=False).items())

    many = column[:-1] + "ies" if column.endswith("y") else column + "s"
    text = (f"**Accuracy by {column}** is not drawn as a radar (it needs {MIN_SPOKES} spokes): {len(kept)} "
            f"{column + ' has' if len(kept) == 1 else many + ' have'} at least {min_n} items"
            + (f" ({listed(kept)})" if len(kept) else ""))
    if len(dropped):
        text += f", {len(dropped)} fewer ({listed(dropped)})"
    return text + f"; the table below has every {column}."


@drawing
def profile_radar(tidy: pd.DataFrame, column: str, *, min_n: int = MIN_N, title: str | None = None) -> plt.Figure:
    """Accuracy per value of ``column`` (``culture`` or ``category``) pooled over the binary tasks,
    one polygon per model, with 95 % CI band, n per spoke and the mean chance level. Spokes on
    fewer than ``min_n`` items for every model are left out (a point near the centre would hide
    them) and named in a caption; spokes small for some models only stay, drawn hollow for those
    (all stay if all are small: :func:`spokes`). When some rows come from sample data
    (``data_source``), the title says which benchmarks' are. In a paper the ring values are named
    in the legend's title rather than printed between the spokes (at a column's width they fall on
    the polygons).

    >>> t = pd.DataFrame({"model": "m", "benchmark": "b", "task": "t", "binary": True, "chance": 0.25,
    ...                   "culture": ["A", "B", "C"] * 10 + ["D"], "score": [1.0, 0.0, 1.0] * 10 + [1.0]})
    >>> fig = profile_radar(t, "culture")
    >>> [x.get_text().split()[0] for x in fig.axes[0].get_xticklabels()], fig.texts[-1].get_text()
    (['A', 'B', 'C'], 'not drawn (n < 10 for every model): D (n=1)')
    >>> plt.close("all")
    """
    from culturelab import stats

    binary = _binary(tidy, column)
    kept, dropped = spokes(tidy, column, min_n=min_n)
    table = stats.summarise(binary[binary[column].isin(kept.index)], "score", ["model", column])
    if column == "category":  # CAPTEx's long category names as its own figures write them (spokes stay apart)
        from culturelab.captex.figures import short_category

        table[column] = table[column].map(short_category)
    chance = float(pd.to_numeric(binary["chance"], errors="coerce").mean())
    method = METHOD.split(",")[0]
    paper = current().paper  # a paper's radar: less tall than wide (its spoke labels take the width)
    fig, ax = plt.subplots(figsize=figsize(4.6, 3.9 if paper else 4.6), subplot_kw={"projection": "polar"})
    radar(table, column, "mean", "model", rlabel="accuracy", n="n", ci_low="ci_low", ci_high="ci_high", ax=ax,
          chance=None if np.isnan(chance) else chance, chance_note="the pooled tasks state no chance level",
          min_n=min_n, rmax=1.0, title=title or f"Accuracy by {column}\n(binary tasks pooled; {method})")
    if paper:
        _rings_in_legend(ax)
    if len(dropped):
        footnote(fig, f"not drawn (n < {min_n} for every model): "
                 + ", ".join(f"{k} (n={int(v)})" for k, v in dropped.items()))
    claim(fig, kind="score", model=list(dict.fromkeys(table["model"].astype(str))), method=method,
          chance=None if np.isnan(chance) else chance, no_chance="the pooled tasks state no chance level",
          data_source=_sample(binary))
    if _sample(binary):
        names = sorted(binary.loc[binary["data_source"] == "sample", "benchmark"].astype(str).unique())
        stamp_title(fig, f"partly sample data ({', '.join(names)}: not the papers' data)")
    return fig


def _rings_in_legend(ax: plt.Axes) -> None:
    """The ring values of a radar named in its legend's title (``radius: …``), not printed on the panel."""
    legend = ax.get_legend()
    if not any(t.get_text() for t in ax.get_yticklabels()):  # none printed: the radar named them there already
        return
    legend.set_title(f"{legend.get_title().get_text()}\n(rings {rings_off_panel(ax)})")


def _sample(table: pd.DataFrame) -> str | None:
    """``"sample"`` when some rows of ``table`` come from sample data (its ``data_source``), else ``None``.

    >>> _sample(pd.DataFrame({"data_source": ["released", "sample"]})), _sample(pd.DataFrame({"x": [1]}))
    ('sample', None)
    """
    return "sample" if "data_source" in table and (table["data_source"] == "sample").any() else None
