"""FMLAMA (Zhou et al. 2024): food dishes from Wikidata with their ingredients, in 250 languages.

The paper-era release (GitHub ``lizhou21/FmLAMA-master`` at commit ``66d4e11``) is read from
``<data_dir>/fmlama/`` (``CULTURELAB_DATA``); missing files are downloaded from that commit
(SHA-256 pinned where known), and ``data_source="sample"`` reads **our** small sample in
``culturelab/data/samples/fmlama_sample.json`` (written by us, labelled as a sample; unpacked by
:func:`culturelab.data.sources.sample_dir`). :class:`Release` binds every loader to one resolved
source and data directory (what :func:`culturelab.fmlama.setup.open` hands a notebook).

Tables returned here (one row per dish, lists as Python lists):

* :func:`load_dishes` — ``Dishes.csv``: ``url, qid, origin, dish, lang, ingredients, materials``;
  the comma-joined ``hasParts`` strings are split (known problem 1 of the release).
* :func:`load_language` — FMLAMA-*la* (released ``data_lang`` files, or rebuilt from
  ``Dishes.csv`` by the paper's rules with ``rebuild=True``):
  ``url, origin, group, continent, lang, dish, ingredients``.
* :func:`load_multilingual` — the dishes present in all six languages (``data_filter``).
* :func:`code_switching_subset` — the dishes in English *and* Chinese from groups with more
  than 20 dishes: ``dish_en, dish_zh, ingredients_en, ingredients_zh`` side by side.
* :func:`load_generations` — released decoder-LLM outputs (``results_chatGPT``), any setting.
* :func:`load_score_table` — released code-switching score tables (``results_table/*.xlsx``).
* :class:`Release` — all of them for one resolved ``data_source`` and ``data_dir``.

The sizes these subsets have in the paper (:func:`subset_sizes`, :func:`multilingual_size`,
:func:`code_switching_sizes`) are read from ``culturelab/reported/fmlama/``; the loaders check a
release against them (not our sample).

>>> parse_ingredients("{'gravy, french fries, cheese curds'}")
['gravy', 'french fries', 'cheese curds']
>>> group_of("United States of America"), group_of("Indonesia"), group_of("Indonesia", CS_GROUPS)
('U.S.', 'Others', 'Indonesia')
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from culturelab import config, reported
from culturelab.data.sources import DATA_SOURCES, Remote, download, sample_dir
from culturelab.data.validate import DataError, require_columns, validate_rows

SUBDIR = "fmlama"
RELEASE_COMMIT = "66d4e11183757801601feeda248f49991db204a5"
RAW_URL = f"https://raw.githubusercontent.com/lizhou21/FmLAMA-master/{RELEASE_COMMIT}/"

LANGUAGES = ("en", "zh", "ar", "he", "ru", "ko")
#: the 14 named cultural groups of Tables 2 and 6–10 (Wikidata label → table key); the rest is "Others"
GROUPS = ("Italy", "U.S.", "Turkey", "Japan", "France", "U.K.", "Mexico", "India", "Germany", "China", "Iran",
          "Greece", "Spain", "Russia")
GROUP_LABELS = {"United States of America": "U.S.", "People's Republic of China": "China",
                "United Kingdom": "U.K."}
#: the 8 groups of the code-switching subset (Tables 11–13), kept because they have more than 20 dishes
CS_GROUPS = ("Italy", "U.S.", "Japan", "France", "U.K.", "India", "China", "Indonesia")
CS_MIN_DISHES = 20
#: code-switching settings: template (and gold) language in upper case, dish-name language in lower case
SETTINGS = ("EN_en", "EN_zh", "ZH_zh", "ZH_en")
#: the decoder-LLM prompt variants of the release: word-completion (WC) or question (QA) prompt,
#: and the instruction to fill in every ingredient ("full") or one ("one")
PROMPTS = ("WC", "QA")
INSTRUCTIONS = ("full", "one")
CONTINENTS = ("Europe", "Asia", "North America", "South America", "Oceania", "Africa")

#: SHA-256 of every release file the loaders read (the git blobs at 66d4e11); a file without a pin would be
#: downloaded unverified, and :func:`culturelab.fmlama.protocol.locate` says so
CHECKSUMS: dict[str, str | None] = {
    "data/Dish_Count.json": "8a83497a05c7381d77b805ec5be793f5b3ce48e9b1e211db8066d8cd18964e8f",
    "data/Dishes.csv": "ebb67ac903758730356b19008ce689e61f337552575cfe2b29be817038210a39",
    "data/country_info.json": "76dc04dadc0184be5e56c3526fd2bf5d2fa02e061ff066be7e399a70943a7475",
    "data/data_filter/ar/ar_dishes.jsonl": "7b630b2354f4eb697eefc237efe6c5a350a83cdbc98a862fb83d8722e2af5b54",
    "data/data_filter/en/en_dishes.jsonl": "22fe4901763f8e908bef125dc696976fa4452533b14cdec47ca2f2787df0b373",
    "data/data_filter/he/he_dishes.jsonl": "808a13ec2c307b92fcd714751fee771215dd5bd910f55b01eef2ef599ff60bce",
    "data/data_filter/ko/ko_dishes.jsonl": "9bb135721e6caa829fd49d8d90b638c3be1c2c91cadef596281dd41ac10908de",
    "data/data_filter/ru/ru_dishes.jsonl": "8c27304402a69bd86d15889890a656a2d019157b1c26610776e02bb25e66e50f",
    "data/data_filter/zh/zh_dishes.jsonl": "8f4d8247e0df2eeeef1268ec856b18a91092e4b563d8f5a898018968d8fdf652",
    "data/data_lang/ar/ar_dishes.jsonl": "b14ecda52a87912bde4a66d1cfa9cf2eda6099180896d6640458d3758cb346e8",
    "data/data_lang/en/en_dishes.jsonl": "5ce40b30c29432a7275323220099a68cb86985dfcf8b19c00ea6f11d46798dc3",
    "data/data_lang/he/he_dishes.jsonl": "5ab257322abd2a6819c08e38b19af79b76c295a251644d892907f37071f4e6b8",
    "data/data_lang/ko/ko_dishes.jsonl": "0e164c35d8f885d6d1b49e03a55f72d69036cbeffb4b307a857d600ea3e3d20a",
    "data/data_lang/ru/ru_dishes.jsonl": "5bf5f27c36979c1a5570da2f703a87691ee15896c9f72c3fda5248887c26deff",
    "data/data_lang/zh/zh_dishes.jsonl": "4706343f3540f2e3466b7619299e5aa96b41d0b30edfdd7b84ff7eae51ab9d10",
    # every answer file of the release (WC and QA prompts, all four settings): SHA-256 of the blobs at 66d4e11
    **{f"results/results_chatGPT/{p}/{s}/{i}/{v}/{s}_dishes_results.jsonl": h for (p, s, i, v), h in {
        ("WC", "en_en", "full", "hasParts_1"):
            "6736d840650caa28e54c3a8e5a3bd7de5a5e5b8fb5e9713cae3557b64b2942bd",
        ("WC", "en_en", "full", "country_1"):
            "f7e481f5148d378a62f6c91f53274c66fbec98557ed6880bf51bf74bcd968957",
        ("WC", "en_en", "one", "hasParts_1"):
            "4156ec7032a24750f8898ecf95de4c0268c74097ecb6b327367c602adf01da49",
        ("WC", "en_en", "one", "country_1"):
            "50221414a52a5ba59c352ee52b786d108b40c2793602489f6cbc33693f2a26d3",
        ("WC", "en_zh", "full", "hasParts_1"):
            "aeea557b4bc66c37527e5c104906a50d1f34d08c92a40689e7a5b35b800fe08b",
        ("WC", "en_zh", "full", "country_1"):
            "bea9a90944e41edebcc562032d706bbb9d1e8b431c0785317455061e26419259",
        ("WC", "en_zh", "one", "hasParts_1"):
            "c5f45fc7d34572334343f94ccb1c07d01d4874cb4fa55a562a9148ceaf7b47fd",
        ("WC", "en_zh", "one", "country_1"):
            "cada89b837322652683b38738207a0f33dccd523bf5a0f52600f3b43517b4df7",
        ("WC", "zh_zh", "full", "hasParts_1"):
            "80084569291e98ec23f9985c61df939e196e6eb8c73b56830d42160206809d52",
        ("WC", "zh_zh", "full", "country_1"):
            "5b8a5e5c68336d4a14b54e9fcaddb59a8e9e81f62c165e9eda4b808152c1f1e1",
        ("WC", "zh_zh", "one", "hasParts_1"):
            "f4eabbe4dead294dd4f33eda9b9c456ae280670294135b4ccf059c79ca4db9e4",
        ("WC", "zh_zh", "one", "country_1"):
            "36be5020dd0f7fe8cf27c1c500b3a39c8f1d319a082b01057521d00add03e030",
        ("WC", "zh_en", "full", "hasParts_1"):
            "0ffaa5e83667d23606ebf07c8f2264e2884f1434b58749f7877a7ecd8b81891c",
        ("WC", "zh_en", "full", "country_1"):
            "9b4ac1f8336cce3aa305042d472e95658bfbda6b0d54100b973d1c3d7846cbcf",
        ("WC", "zh_en", "one", "hasParts_1"):
            "731ba14a7f75f9916e3f97356f9f6027d82f4a6380f724e7bc2f8416d7d2a980",
        ("WC", "zh_en", "one", "country_1"):
            "dccc95e6160738db75319c90051ee10e46a7af1954dcb673d45e6dc798433e7c",
        ("QA", "en_en", "one", "hasParts_1"):
            "a57560c17c767b99e4a96c7762ddd47013108262fad638d4fa26a7381d43a2ad",
        ("QA", "en_en", "one", "country_1"):
            "9f02364af4ed0035369f0d2f7b34394db035b58f0a042c2db30ff017a65140a1",
        ("QA", "en_zh", "one", "hasParts_1"):
            "0584c8c78302a6b5dac8363386116c92a878df1e1f27ced854bd9f579a9329b9",
        ("QA", "en_zh", "one", "country_1"):
            "b70c02fc484841a249b43562c42fa6fc911429e52438c4d873c2dd0118f9c226",
        ("QA", "zh_zh", "one", "hasParts_1"):
            "a0255115794bad09e9037fb0d8d7d07882c097d0b0fef0e6a64ec3b53c924f7a",
        ("QA", "zh_zh", "one", "country_1"):
            "4a49af76f0b7a9069e1463cbf51a3bb68432539fb65cb7d5bfeaf2861e864d80",
        ("QA", "zh_en", "one", "hasParts_1"):
            "234627b017567b0b38adf799f004818ab5c5f6018eed5d3e7103ee05d79622e6",
        ("QA", "zh_en", "one", "country_1"):
            "b95d8011de50b9b3bdc1ff0f6d72410b93c246312cabe0874f44bc0f952b67c2",
    }.items()},
    "results/results_chatGPT/chatGPT/WC_full_withC_chatGPT_table.xlsx":
        "87272193479c097f2321c7ad017a948a1664d8f46ff3eda55d14bb486a1a8102",
    "results/results_chatGPT/chatGPT/WC_full_without_chatGPT_table.xlsx":
        "84ab56847d0c66147115a680aa6018e81464901242522c18cfa021c8732f7921",
    "results/results_chatGPT/chatGPT/WC_one_withC_chatGPT_table.xlsx":
        "0f7cfe388a694fc1b35ecb86ff8462dfb4b09510a530ab5e729e4152131728f6",
    "results/results_chatGPT/chatGPT/WC_one_without_chatGPT_table.xlsx":
        "3fe474d2c02d61dc9d37e294d870aa2ec2d83732b8630016f21fddefdeca0120",
    **{f"results/results_code/results_table/{s}_{m}_{c}.xlsx": h for (s, m, c), h in {
        ("en_en", "mAP", "withC"): "3c7ab9b495effca9517a0e63bbe88a1a2a52c14af6dbfc32c9d195a7e22f2995",
        ("en_en", "mAP", "without"): "82b5a9820e2964f5a24b48f101727662ab1f8ac4d9a14b1544f7812ab9b309c2",
        ("en_en", "mWS", "withC"): "7f422d353f64aad43fd6b303fcc7c1945a953296746c0d5b5bff91fc6e65e43f",
        ("en_en", "mWS", "without"): "bd70bf41ce693ca34f3dc0a1ab9e24863f9c5c9f29ff4202b9820ae8dc324e1d",
        ("en_zh", "mAP", "withC"): "c7717b02842002af44073b54fb8acc684210053941d83b212767b9221935c7f1",
        ("en_zh", "mAP", "without"): "71031cf494276d6999cdb4ef772731569b381d0f33b6a66e6cc567cd7da39fac",
        ("en_zh", "mWS", "withC"): "51b1877777d69b1483f6fca4646295f6d81137de2188097f5a1cdc4f5e5b822f",
        ("en_zh", "mWS", "without"): "602db0e1434b4dcc04b8c7cedf99e34b2f453a2e7284798eee48534a47701cae",
        ("zh_en", "mAP", "withC"): "2cb8b3b5f51a0322c050217c9b2ee92ffed68f4ebb8472d22335282a92341f90",
        ("zh_en", "mAP", "without"): "5254857bd544d954540996cb9b03d8f404edd3467801f7dd3ada252ef6f73a54",
        ("zh_en", "mWS", "withC"): "80cdf41a52f4fd854174da5cba17d24a3928f7c77476c126e2b88ec85f63c4d2",
        ("zh_en", "mWS", "without"): "9e623add2ae961336d3a514dbe29e2a4c7a1135f4fda18fc8b0c5f49e7635905",
        ("zh_zh", "mAP", "withC"): "41d444ef15cb157bad15170d344ca684baebdebd9dfecbae636cfa2af9b4369c",
        ("zh_zh", "mAP", "without"): "c30e4b695f5a042d1e8d6f3932ae688dff5f5b7c2ad401acebabfb3c113274b9",
        ("zh_zh", "mWS", "withC"): "b96ff07e377f1c7a9f55a18566a09047177b1730760e0b189ddc2c31139eee6e",
        ("zh_zh", "mWS", "without"): "249476514026586b3264d5f4cdde92ccaf85b33ed8a3447c02966a3a78405945",
    }.items()},
}


# --------------------------------------------------------------------------- sizes in the paper
@cache
def _sizes(table: str, key: str) -> tuple[tuple[str, int], ...]:
    frame = reported.load("fmlama", table)
    return tuple((str(k), int(v)) for k, v in zip(frame[key], frame["value"]))


def subset_sizes() -> dict[str, int]:
    """FMLAMA-*la* sizes: the ALL counts of the paper's Tables 2 and 6–10 (``subsets.csv``).

    >>> subset_sizes()["en"], len(subset_sizes())
    (2580, 6)
    """
    return dict(_sizes("subsets", "lang"))


def multilingual_size() -> int:
    """Dishes present in all six FMLAMA-*la* (§6, Figure 11; ``dataset.csv``).

    >>> multilingual_size()
    175
    """
    return dict(_sizes("dataset", "quantity"))["multilingual subset dishes"]


def code_switching_sizes() -> dict[str, int]:
    """Dishes per group of the code-switching subset, and ``ALL`` (``code_switching_subset.csv``).

    >>> code_switching_sizes()["ALL"], code_switching_sizes()["Japan"]
    (508, 114)
    """
    return dict(_sizes("code_switching_subset", "group"))


# --------------------------------------------------------------------------- files
def _local_dir(data_dir: str | os.PathLike | None) -> Path:
    root = config.data_dir(data_dir)
    # accept both <root>/fmlama/data/... and a data_dir that *is* the fmlama folder
    if not (root / SUBDIR).is_dir() and (root / "data" / "Dishes.csv").is_file():
        return root
    return root / SUBDIR


def local_root(data_dir: str | os.PathLike | None = "") -> Path | None:
    """The folder of the local copy of the release (``data/Dishes.csv`` under it, in
    ``<data_dir>/fmlama/`` or ``data_dir`` itself; ``""`` = ``$CULTURELAB_DATA``), ``None`` when
    there is none.

    >>> local_root("/nonexistent") is None
    True
    """
    root = _local_dir(data_dir)
    return root if (root / "data" / "Dishes.csv").is_file() else None


def release_file(relpath: str, *, data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> Path:
    """Path of one release file (``relpath`` as in the repository, e.g. ``data/Dishes.csv``).

    ``data_source``: ``auto`` (the local copy, each file it lacks downloaded and verified),
    ``local``, ``download`` or ``sample`` (our sample; raises when the sample has no such file).

    >>> release_file("data/Dishes.csv", data_source="sample").name
    'Dishes.csv'
    """
    if data_source not in DATA_SOURCES:
        raise ValueError(f"data_source must be one of {', '.join(DATA_SOURCES)}, not {data_source!r}")
    if data_source == "sample":
        root = sample_dir(SUBDIR)
        path = root / relpath
        if not path.is_file():
            held = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.suffix != ".md")
            raise FileNotFoundError(f"our FMLAMA sample has no {relpath} (it holds {held})")
        return path
    local = _local_dir(data_dir) / relpath
    if data_source != "download" and local.is_file():
        return local
    if data_source == "local":
        raise FileNotFoundError(f"{local} not found: set CULTURELAB_DATA (or data_dir) to the folder that holds "
                                f"fmlama/{relpath}")
    remote = Remote(RAW_URL + relpath, CHECKSUMS.get(relpath))
    return download(remote, str(Path(SUBDIR) / Path(relpath).parent))


def downloaded(relpath: str) -> Path | None:
    """The copy of one release file an earlier run downloaded (:func:`release_file`), ``None`` when there is none.

    >>> downloaded("data/no-such-file.csv") is None
    True
    """
    path = config.cache_dir() / "downloads" / SUBDIR / relpath
    return path if path.is_file() else None


# --------------------------------------------------------------------------- parsing helpers
def parse_ingredients(value: Any) -> list[str]:
    """Ingredient list from the release's formats: a set literal holding one comma-joined string
    (``"{'a, b'}"``), a list (later releases), or a JSON list string. Empty → ``[]``.

    >>> parse_ingredients("{''}"), parse_ingredients(["rice", "egg"]), parse_ingredients('["米"]')
    ([], ['rice', 'egg'], ['米'])
    """
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        text = str(value).strip()
        if text.startswith("["):
            items = [str(v) for v in json.loads(text)]
        else:
            parsed = ast.literal_eval(text)
            if not isinstance(parsed, (set, list, tuple)):
                raise ValueError("not a set/list literal")
            items = [s for part in parsed for s in str(part).split(", ")]
    return [s.strip() for s in items if s and s.strip()]


def group_of(origin: str, groups: Sequence[str] = GROUPS) -> str:
    """The table group of a Wikidata origin label (``Others`` when not among ``groups``).

    >>> group_of("England"), group_of("United Kingdom")
    ('Others', 'U.K.')
    """
    key = GROUP_LABELS.get(origin, origin)
    return key if key in groups else "Others"


def qid(url: str) -> str:
    """Wikidata id from an entity URL.

    >>> qid("http://www.wikidata.org/entity/Q396184")
    'Q396184'
    """
    return str(url).rstrip("/").rsplit("/", 1)[-1]


def _is_wikidata(url: Any) -> bool | str:
    return (isinstance(url, str) and url.startswith("http") and qid(url).startswith("Q")) or "not a Wikidata URL"


def _nonempty(v: Any) -> bool | str:
    return (isinstance(v, str) and bool(v.strip())) or "empty"


def _ingredients_ok(v: Any) -> bool | str:
    return bool(parse_ingredients(v)) or "no ingredient (hasParts/obj_label must list at least one)"


def _read_jsonl(path: Path) -> pd.DataFrame:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise DataError(f"{path}, row {n}: not valid JSON ({err.msg})") from None
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- loaders
def load_continents(*, data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> dict[str, str]:
    """Country → continent (``country_info.json``; ``Insular Oceania`` merged into ``Oceania``).

    >>> load_continents(data_source="sample")["Indonesia"]
    'Oceania'
    """
    path = release_file("data/country_info.json", data_dir=data_dir, data_source=data_source)
    table = json.loads(path.read_text(encoding="utf-8"))
    return {k: ("Oceania" if v == "Insular Oceania" else v) for k, v in table.items()}


def load_dishes(*, data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> pd.DataFrame:
    """``Dishes.csv``, one row per (dish, language), ingredients split into lists.

    >>> d = load_dishes(data_source="sample")
    >>> list(d.columns)
    ['url', 'qid', 'origin', 'dish', 'lang', 'ingredients', 'materials']
    """
    path = release_file("data/Dishes.csv", data_dir=data_dir, data_source=data_source)
    raw = pd.read_csv(path, keep_default_na=False, dtype=str)
    validate_rows(raw, path, {"url": _is_wikidata, "origin": _nonempty, "name": _nonempty, "lang": _nonempty,
                              "hasParts": _ingredients_ok})
    require_columns(raw, ["materia"], path)
    return pd.DataFrame({
        "url": raw["url"], "qid": raw["url"].map(qid), "origin": raw["origin"], "dish": raw["name"],
        "lang": raw["lang"], "ingredients": raw["hasParts"].map(parse_ingredients),
        "materials": raw["materia"].map(lambda v: parse_ingredients(v) if v else []),
    })


def to_simplified(text: str) -> str:
    """Simplified Chinese as the paper's ``03-language_split.py`` makes it (``zhconv``, ``zh-cn``).

    >>> to_simplified("義大利麵")
    '意大利面'
    """
    import zhconv

    return zhconv.convert(text, "zh-cn")


def build_language_subset(dishes: pd.DataFrame, lang: str) -> pd.DataFrame:
    """FMLAMA-*la* by the paper's rules: rows with ``lang`` exactly (no ``zh-hans`` merging), dishes
    listed more than once in that language (several origins) dropped, Chinese made Simplified.

    >>> len(build_language_subset(load_dishes(data_source="sample"), "zh"))
    17
    """
    sub = dishes[dishes["lang"] == lang]
    counts = sub["url"].value_counts()
    sub = sub[sub["url"].map(counts) == 1].copy()
    if lang == "zh":
        sub["dish"] = sub["dish"].map(to_simplified)
        sub["ingredients"] = sub["ingredients"].map(lambda xs: [to_simplified(x) for x in xs])
    return sub[["url", "origin", "lang", "dish", "ingredients"]].reset_index(drop=True)


def _tidy_subset(raw: pd.DataFrame, path: Any, continents: dict[str, str]) -> pd.DataFrame:
    validate_rows(raw, path, {"url": _is_wikidata, "origin": _nonempty, "sub_label": _nonempty,
                              "obj_label": _ingredients_ok}, header_rows=0)
    out = pd.DataFrame({"url": raw["url"], "origin": raw["origin"], "lang": raw["lang"], "dish": raw["sub_label"],
                        "ingredients": raw["obj_label"].map(parse_ingredients)})
    if "origin_name" in raw:
        out["origin_name"] = raw["origin_name"]
    return _with_groups(out, continents)


def _with_groups(table: pd.DataFrame, continents: dict[str, str]) -> pd.DataFrame:
    table = table.copy()
    table.insert(2, "group", table["origin"].map(group_of))
    table.insert(3, "continent", table["origin"].map(lambda o: continents.get(o, "unknown")))
    return table.reset_index(drop=True)


def _check_size(table: pd.DataFrame, expected: int, what: str, data_source: str) -> None:
    if data_source != "sample" and len(table) != expected:
        raise DataError(f"{what}: {len(table)} dishes, the paper-era release has {expected}; is this the "
                        f"66d4e11 release? (pass check_size=False for another version)")


def load_language(lang: str, *, data_dir: str | os.PathLike | None = "", data_source: str = "auto",
                  rebuild: bool = False, check_size: bool = True, dishes: pd.DataFrame | None = None) -> pd.DataFrame:
    """FMLAMA-*la*: the released ``data_lang/<la>`` file, or (``rebuild=True``) the same subset
    rebuilt from ``Dishes.csv`` (or from ``dishes``, an already loaded :func:`load_dishes` table).
    Columns ``url, origin, group, continent, lang, dish, ingredients``.

    >>> t = load_language("en", data_source="sample")
    >>> t[["dish", "group"]].head(2).to_dict("records")
    [{'dish': 'margherita pizza', 'group': 'Italy'}, {'dish': 'carbonara', 'group': 'Italy'}]
    """
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, not {lang!r}")
    continents = load_continents(data_dir=data_dir, data_source=data_source)
    if rebuild or data_source == "sample":
        if dishes is None:
            dishes = load_dishes(data_dir=data_dir, data_source=data_source)
        table = _with_groups(build_language_subset(dishes, lang), continents)
    else:
        path = release_file(f"data/data_lang/{lang}/{lang}_dishes.jsonl", data_dir=data_dir, data_source=data_source)
        table = _tidy_subset(_read_jsonl(path), path, continents)
    if check_size:
        _check_size(table, subset_sizes()[lang], f"FMLAMA-{lang}", data_source)
    return table


def build_multilingual(subsets: dict[str, pd.DataFrame]) -> list[str]:
    """URLs present in every given FMLAMA-*la* (the paper's ``04-data_filter.py``), in the order
    of the first subset.

    >>> len(build_multilingual({la: load_language(la, data_source="sample") for la in LANGUAGES}))
    6
    """
    langs = list(subsets)
    common = set(subsets[langs[0]]["url"])
    for la in langs[1:]:
        common &= set(subsets[la]["url"])
    return [u for u in subsets[langs[0]]["url"] if u in common]


def load_multilingual(lang: str, *, data_dir: str | os.PathLike | None = "", data_source: str = "auto",
                      check_size: bool = True) -> pd.DataFrame:
    """The multilingual subset in one language (:func:`multilingual_size` dishes in the release:
    ``data_filter``; rebuilt from the six FMLAMA-*la* for our sample).

    >>> load_multilingual("he", data_source="sample")["continent"].value_counts().to_dict()
    {'Asia': 4, 'Europe': 1, 'North America': 1}
    """
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, not {lang!r}")
    if data_source == "sample":
        dishes = load_dishes(data_source="sample")  # parsed once for all six languages
        subsets = {la: load_language(la, data_source="sample", dishes=dishes) for la in LANGUAGES}
        urls = build_multilingual(subsets)
        return subsets[lang].set_index("url").loc[urls].reset_index()
    continents = load_continents(data_dir=data_dir, data_source=data_source)
    path = release_file(f"data/data_filter/{lang}/{lang}_dishes.jsonl", data_dir=data_dir, data_source=data_source)
    table = _tidy_subset(_read_jsonl(path), path, continents)
    if check_size:
        _check_size(table, multilingual_size(), f"multilingual subset ({lang})", data_source)
    return table


def code_switching_subset(en: pd.DataFrame, zh: pd.DataFrame, *, min_dishes: int = CS_MIN_DISHES) -> pd.DataFrame:
    """The code-switching subset: dishes in FMLAMA-en and FMLAMA-zh whose origin has more than
    ``min_dishes`` such dishes (:func:`code_switching_sizes` in the release), one row per dish with
    both languages side by side, in FMLAMA-en order.

    >>> cs = code_switching_subset(load_language("en", data_source="sample"), load_language("zh", data_source="sample"),
    ...                            min_dishes=0)
    >>> len(cs), cs["dish_zh"].iloc[0]
    (17, '玛格丽特披萨')
    """
    zh_by_url = zh.set_index("url")
    both = en[en["url"].isin(zh_by_url.index)]
    sizes = both["origin"].value_counts()
    both = both[both["origin"].map(sizes) > min_dishes]
    out = pd.DataFrame({
        "url": both["url"].to_numpy(), "origin": both["origin"].to_numpy(),
        "group": both["origin"].map(lambda o: group_of(o, CS_GROUPS)).to_numpy(),
        "continent": both["continent"].to_numpy(),
        "dish_en": both["dish"].to_numpy(), "dish_zh": zh_by_url.loc[both["url"], "dish"].to_numpy(),
        "ingredients_en": both["ingredients"].to_numpy(),
        "ingredients_zh": zh_by_url.loc[both["url"], "ingredients"].to_numpy(),
    })
    return out


def load_code_switching(*, data_dir: str | os.PathLike | None = "", data_source: str = "auto",
                        check_size: bool = True) -> pd.DataFrame:
    """:func:`code_switching_subset` of FMLAMA-en and FMLAMA-zh (508 dishes in the release). No
    group of our sample has more than 20 dishes, so on the sample every group is kept.

    >>> len(load_code_switching(data_source="sample"))
    17
    """
    en = load_language("en", data_dir=data_dir, data_source=data_source, check_size=check_size)
    zh = load_language("zh", data_dir=data_dir, data_source=data_source, check_size=check_size)
    table = code_switching_subset(en, zh, min_dishes=0 if data_source == "sample" else CS_MIN_DISHES)
    if check_size:
        _check_size(table, code_switching_sizes()["ALL"], "code-switching subset", data_source)
    return table


def setting_view(cs: pd.DataFrame, setting: str) -> pd.DataFrame:
    """One code-switching setting as a probing table: ``dish`` in the lower-case language,
    ``ingredients`` (gold and candidates) in the upper-case (template) language.

    >>> cs = pd.DataFrame({"url": ["u"], "origin": ["Japan"], "group": ["Japan"], "continent": ["Asia"],
    ...                    "dish_en": ["dorayaki"], "dish_zh": ["铜锣烧"], "ingredients_en": [["red bean paste"]],
    ...                    "ingredients_zh": [["豆沙"]]})
    >>> setting_view(cs, "ZH_en")[["dish", "ingredients", "lang"]].to_dict("records")
    [{'dish': 'dorayaki', 'ingredients': ['豆沙'], 'lang': 'zh'}]
    """
    if setting not in SETTINGS and not _is_setting(setting):
        raise ValueError(f"setting must look like EN_zh (template language upper case), e.g. {SETTINGS}")
    main, sub = setting.split("_")
    main = main.lower()
    out = cs[["url", "origin", "group", "continent"]].copy()
    out["dish"] = cs[f"dish_{sub}"]
    out["ingredients"] = cs[f"ingredients_{main}"]
    out["lang"] = main
    out["dish_lang"] = sub
    return out


def _is_setting(setting: str) -> bool:
    parts = str(setting).split("_")
    return (len(parts) == 2 and parts[0].isupper() and parts[1].islower()
            and parts[0].lower() in LANGUAGES and parts[1] in LANGUAGES)


# --------------------------------------------------------------------------- released outputs
def generations_relpath(setting: str, *, prompt: str = "WC", instruction: str = "full", context: bool = False) -> str:
    """Release path of a ChatGPT generations file.

    >>> generations_relpath("ZH_en", instruction="one", context=True)
    'results/results_chatGPT/WC/zh_en/one/country_1/zh_en_dishes_results.jsonl'
    """
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, not {setting!r}")
    if prompt not in PROMPTS or instruction not in INSTRUCTIONS:
        raise ValueError(f"prompt must be one of {PROMPTS} and instruction one of {INSTRUCTIONS}")
    if prompt == "QA" and instruction != "one":
        raise ValueError("the QA prompt exists only with instruction='one'")
    s = setting.lower()
    return f"results/results_chatGPT/{prompt}/{s}/{instruction}/{'country_1' if context else 'hasParts_1'}/" \
           f"{s}_dishes_results.jsonl"


def score_table_relpath(setting: str, metric: str = "mAP", *, context: bool = False) -> str:
    """Release path of a code-switching score table (Tables 11, 12).

    >>> score_table_relpath("ZH_en", context=True)
    'results/results_code/results_table/zh_en_mAP_withC.xlsx'
    """
    return f"results/results_code/results_table/{setting.lower()}_{metric}_{'withC' if context else 'without'}.xlsx"


def chatgpt_table_relpath(instruction: str = "full", *, context: bool = False) -> str:
    """Release path of the authors' aggregated gpt-3.5-turbo table of one prompt variant.

    >>> chatgpt_table_relpath("one")
    'results/results_chatGPT/chatGPT/WC_one_without_chatGPT_table.xlsx'
    """
    return f"results/results_chatGPT/chatGPT/WC_{instruction}_{'withC' if context else 'without'}_chatGPT_table.xlsx"


def read_generations(path: str | os.PathLike) -> pd.DataFrame:
    """A generations file in the release's format (JSON lines with ``url, origin, origin_name,
    lang, sub_label, obj_label, answer``) as ``url, origin, group, origin_name, lang, dish,
    ingredients, answer``.

    >>> read_generations(sample_dir("fmlama") / generations_relpath("ZH_zh"))["dish"].iloc[0]
    '玛格丽特披萨'
    """
    path = Path(path)
    raw = _read_jsonl(path)
    validate_rows(raw, path, {"url": _is_wikidata, "origin": _nonempty, "sub_label": _nonempty,
                              "obj_label": _ingredients_ok, "answer": lambda v: isinstance(v, str) or "not text"},
                  header_rows=0)
    return pd.DataFrame({"url": raw["url"], "origin": raw["origin"],
                         "group": raw["origin"].map(lambda o: group_of(o, CS_GROUPS)),
                         "origin_name": raw.get("origin_name", raw["origin"]), "lang": raw["lang"],
                         "dish": raw["sub_label"], "ingredients": raw["obj_label"].map(parse_ingredients),
                         "answer": raw["answer"]})


def load_generations(setting: str, *, prompt: str = "WC", instruction: str = "full", context: bool = False,
                     data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> pd.DataFrame:
    """Released ChatGPT generations for one setting and prompt variant (see :func:`read_generations`).

    >>> load_generations("EN_en", data_source="sample")["answer"].iloc[3]
    'apples'
    """
    relpath = generations_relpath(setting, prompt=prompt, instruction=instruction, context=context)
    return read_generations(release_file(relpath, data_dir=data_dir, data_source=data_source))


def parse_mean_std(cell: Any) -> tuple[float, float]:
    """``'\\\\textbf{19.84±7.17}'`` → ``(19.84, 7.17)``; ``'nan±nan'`` → NaNs.

    >>> parse_mean_std("\\\\underline{12.61±2.28}")
    (12.61, 2.28)
    """
    text = str(cell)
    for wrapper in ("\\textbf{", "\\underline{"):
        text = text.replace(wrapper, "")
    text = text.replace("}", "").replace("$", "").replace("{\\pm}", "±").strip()
    mean, _, std = text.partition("±")
    return float(mean), float(std) if std else float("nan")


def load_score_table(setting: str, metric: str = "mAP", *, context: bool = False,
                     data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> pd.DataFrame:
    """A released code-switching score table (mean ± std over the 5 templates per group × model)
    in long form: ``setting, context, metric, group, model, mean, std``.

    >>> load_score_table("EN_en", "BLEU")
    Traceback (most recent call last):
    ...
    ValueError: setting must be one of ('EN_en', 'EN_zh', 'ZH_zh', 'ZH_en') and metric 'mAP' or 'mWS'
    """
    if setting not in SETTINGS or metric not in {"mAP", "mWS"}:
        raise ValueError(f"setting must be one of {SETTINGS} and metric 'mAP' or 'mWS'")
    path = release_file(score_table_relpath(setting, metric, context=context), data_dir=data_dir,
                        data_source=data_source)
    wide = pd.read_excel(path)
    first = wide.columns[0]
    rows = []
    for n, rec in enumerate(wide.to_dict("records"), 2):
        group = str(rec[first]).removesuffix(f"_{metric}")
        for model in wide.columns[1:]:
            if model == "Average":
                continue
            try:
                mean, std = parse_mean_std(rec[model])
            except ValueError:
                raise DataError(f"{path}, row {n}, column {model!r}: expected 'mean±std' (got {rec[model]!r})") from None
            rows.append({"setting": setting, "context": context, "metric": metric, "group": group, "model": model,
                         "mean": mean, "std": std})
    return pd.DataFrame(rows)


def load_chatgpt_table(*, instruction: str = "full", context: bool = False,
                       data_dir: str | os.PathLike | None = "", data_source: str = "auto") -> pd.DataFrame:
    """The authors' aggregated gpt-3.5-turbo accuracies (``results_chatGPT/chatGPT/*.xlsx``,
    their unreleased parser) in long form: ``setting, group, value`` (groups as table keys).

    >>> load_chatgpt_table(instruction="many")
    Traceback (most recent call last):
    ...
    ValueError: instruction must be one of ('full', 'one')
    """
    if instruction not in INSTRUCTIONS:
        raise ValueError(f"instruction must be one of {INSTRUCTIONS}")
    path = release_file(chatgpt_table_relpath(instruction, context=context), data_dir=data_dir, data_source=data_source)
    wide = pd.read_excel(path)
    first = wide.columns[0]
    long = wide.melt(id_vars=[first], var_name="setting", value_name="value").rename(columns={first: "group"})
    long["group"] = long["group"].map(lambda g: "All" if g == "All" else group_of(g, CS_GROUPS))
    long["setting"] = long["setting"].map(lambda s: f"{s.split('_')[0].upper()}_{s.split('_')[1]}")
    return long.assign(instruction=instruction, context=context)


# --------------------------------------------------------------------------- one run's release
@dataclass(frozen=True)
class Release:
    """The FMLAMA release as one run reads it: a resolved ``data_source`` (``local``,
    ``download``, ``sample``, or ``auto``: a local copy whose missing files are downloaded) and the
    data directory (``""`` = ``$CULTURELAB_DATA``), with the loaders of this module bound to them.
    :func:`culturelab.fmlama.setup.open` makes it.

    >>> sample = Release("sample")
    >>> sample.is_sample, len(sample.language("en")), len(sample.code_switching())
    (True, 19, 17)
    """

    data_source: str
    data_dir: str | os.PathLike | None = ""

    def __post_init__(self) -> None:
        if self.data_source not in DATA_SOURCES:
            raise ValueError(f"a release is read from one of {DATA_SOURCES}, not {self.data_source!r}")

    @property
    def is_sample(self) -> bool:
        """Whether this is our sample (no released results, no size checks)."""
        return self.data_source == "sample"

    def _where(self) -> dict[str, Any]:
        return {"data_dir": self.data_dir, "data_source": self.data_source}

    def dishes(self) -> pd.DataFrame:
        """:func:`load_dishes`."""
        return load_dishes(**self._where())

    def language(self, lang: str, *, rebuild: bool = False, dishes: pd.DataFrame | None = None) -> pd.DataFrame:
        """:func:`load_language` (FMLAMA-*la*)."""
        return load_language(lang, rebuild=rebuild, dishes=dishes, **self._where())

    def multilingual(self, lang: str) -> pd.DataFrame:
        """:func:`load_multilingual` (the dishes present in all six languages)."""
        return load_multilingual(lang, **self._where())

    def code_switching(self) -> pd.DataFrame:
        """:func:`load_code_switching` (the English–Chinese subset)."""
        return load_code_switching(**self._where())

    def generations(self, setting: str, **variant: Any) -> pd.DataFrame:
        """:func:`load_generations` (``variant``: ``prompt``, ``instruction``, ``context``)."""
        return load_generations(setting, **variant, **self._where())

    def score_table(self, setting: str, metric: str = "mAP", *, context: bool = False) -> pd.DataFrame:
        """:func:`load_score_table` (released code-switching scores)."""
        return load_score_table(setting, metric, context=context, **self._where())

    def chatgpt_table(self, *, instruction: str = "full", context: bool = False) -> pd.DataFrame:
        """:func:`load_chatgpt_table` (the authors' aggregated gpt-3.5-turbo accuracies)."""
        return load_chatgpt_table(instruction=instruction, context=context, **self._where())
