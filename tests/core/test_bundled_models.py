"""Integration tests on the real bundled models: the right answer must win."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from culturelab.models import load_model
from culturelab.tasks import mcq

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gemma():
    return load_model("bundled:gemma3-270m", device="cpu", cache=False, progress=False)


def test_english_mcq_by_option_likelihood_smollm2():
    lm = load_model("bundled:smollm2-135m", device="cpu", cache=False, progress=False)
    questions = pd.DataFrame({
        "prompt": ["The Eiffel Tower is located in the city of", "Sushi is a traditional dish from the country of",
                   "The Great Wall is in"],
        "options": [["Berlin", "Paris", "Madrid", "Rome"], ["Mexico", "Italy", "Japan", "Brazil"],
                    ["Canada", "Spain", "China", "Peru"]],
        "answer": [1, 2, 2]})
    scored = mcq.score_loglikelihood(lm, questions, target="text")
    assert scored["correct"].all(), scored[["scores", "pred"]]
    assert lm.has_chat_template  # SmolLM2-Instruct ships one: generate() applies it
    assert lm.generate(["Name one fruit."], max_new_tokens=8)[0].strip()


@pytest.mark.parametrize(("template", "right", "wrong"), [
    ("غذای اصلی ایرانیان [Y] است.", "برنج", ["دوچرخه", "کامپیوتر"]),  # Persian: rice, not bicycle/computer
    ("نوروز جشن آغاز [Y] است.", "بهار", ["زمستان", "پاییز"]),  # Nowruz begins spring
    ("Türkiye'nin başkenti [Y].", "Ankara'dır", ["Paris'tir", "Tokyo'dur"]),  # Turkish capital
    ("Baklava, şerbetli bir [Y].", "tatlıdır", ["arabadır", "kitaptır"]),  # baklava is a dessert
    ("北京烤鸭是一道著名的[Y]。", "中国菜", ["汽车", "电脑"]),  # Peking duck is a Chinese dish
])
def test_multilingual_cloze_gemma(gemma, template, right, wrong):
    scores = gemma.rank_candidates([template], [right, *wrong], reduce="sum")[0]
    assert int(np.argmax(scores)) == 0, dict(zip([right, *wrong], scores))
