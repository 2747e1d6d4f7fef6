"""Dataset descriptives (the paper's §3, Appendix A, Figures 5–8 and 11), computed from the data.

>>> import pandas as pd
>>> d = pd.DataFrame({"url": ["u1", "u1", "u2"], "origin": ["Italy", "Italy", "Japan"], "lang": ["en", "fr", "en"],
...                   "dish": ["a", "b", "c"], "ingredients": [["x"], ["y", "z"], ["x"]]})
>>> float(dataset_stats(d).set_index("quantity")["value"]["instances with 1 ingredient"])
2.0
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def dataset_stats(dishes: pd.DataFrame, multilingual: pd.DataFrame | None = None) -> pd.DataFrame:
    """The statistics the paper states about ``Dishes.csv`` (and the multilingual subset, when
    given), named as in ``reported/fmlama/dataset.csv``."""
    n_ing = dishes["ingredients"].map(len)
    by_country = dishes["origin"].value_counts()
    by_lang = dishes["lang"].value_counts()
    rows = {
        "dish instances": len(dishes), "unique dishes (Wikidata items)": dishes["url"].nunique(),
        "country groups": dishes["origin"].nunique(), "languages": dishes["lang"].nunique(),
        "mean ingredients per instance": round(float(n_ing.mean()), 2),
        "English instances": int(by_lang.get("en", 0)), "Italy instances": int(by_country.get("Italy", 0)),
        "countries with more than 200 instances": int((by_country > 200).sum()),
        "countries with more than 1000 instances": int((by_country > 1000).sum()),
        "instances with 1 ingredient": int((n_ing == 1).sum()), "instances with 2 ingredients": int((n_ing == 2).sum()),
        "instances with 11 ingredients": int((n_ing == 11).sum()),
    }
    if multilingual is not None:
        rows["multilingual subset dishes"] = len(multilingual)
    return pd.DataFrame({"quantity": list(rows), "value": np.array(list(rows.values()), dtype=float)})


def subset_stats(subsets: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per FMLAMA-*la*: dishes, distinct candidate ingredients, mean / max ingredients per dish,
    dishes with a single ingredient, and the share with fewer than 5 (Table 3's footnote).

    >>> t = pd.DataFrame({"ingredients": [["egg"], ["egg", "flour"]]})
    >>> subset_stats({"en": t})[["dishes", "candidates", "single_ingredient"]].to_dict("records")
    [{'dishes': 2, 'candidates': 2, 'single_ingredient': 1}]
    """
    rows = []
    for lang, table in subsets.items():
        n = table["ingredients"].map(len)
        rows.append({"lang": lang, "dishes": len(table),
                     "candidates": len({i for items in table["ingredients"] for i in items}),
                     "mean_ingredients": round(float(n.mean()), 2), "max_ingredients": int(n.max()),
                     "single_ingredient": int((n == 1).sum()), "share_under_5": round(float((n < 5).mean()), 3)})
    return pd.DataFrame(rows)


def ingredient_count_distribution(dishes: pd.DataFrame) -> pd.Series:
    """Number of instances by number of ingredients (Figure 8).

    >>> ingredient_count_distribution(pd.DataFrame({"ingredients": [["a"], ["b"], ["a", "b"]]})).to_dict()
    {1: 2, 2: 1}
    """
    return dishes["ingredients"].map(len).value_counts().sort_index().rename("instances")


def examples(dishes: pd.DataFrame, urls: list[str], langs: tuple[str, ...] = ("en", "zh")) -> pd.DataFrame:
    """Example rows in the style of Figure 5 (one row per dish and language).

    >>> from culturelab.fmlama.data import load_dishes
    >>> examples(load_dishes(data_source="sample"), ["http://www.wikidata.org/entity/Q900007"])["dish"].tolist()
    ['beef bourguignon', '红酒炖牛肉']
    """
    part = dishes[dishes["url"].isin(urls) & dishes["lang"].isin(langs)].copy()
    part["ingredients"] = part["ingredients"].map(", ".join)
    part["order"] = part["url"].map({u: i for i, u in enumerate(urls)})
    return part.sort_values(["order", "lang"])[["qid", "dish", "origin", "lang", "ingredients"]].reset_index(drop=True)
