"""Lazy weights: a model whose requests are all in the response cache loads no weights."""

from __future__ import annotations

from culturelab.models import load_model
from culturelab.models.cache import ResponseCache
from culturelab.models.lazy import WEIGHT_LOADS


def _ask(cache: ResponseCache):
    lm = load_model("bundled:smollm2-135m", device="cpu", cache=cache, progress=False)
    scores = lm.loglikelihood([("The capital of France is", " Paris"), ("The capital of France is", " Rome")])
    text = lm.generate(["Say hi."], max_new_tokens=2)
    ranks = lm.rank_candidates(["The sky is [MASK]."], ["blue", "green"], slot="[MASK]")
    return lm, [s.logprob for s in scores], text, ranks.tolist()


def test_a_warm_cache_run_loads_no_weights(tmp_path):
    cache = ResponseCache(tmp_path / "responses.sqlite")
    before = WEIGHT_LOADS["count"]
    cold, *cold_answers = _ask(cache)
    assert WEIGHT_LOADS["count"] == before + 1 and cold.loaded and cold.stats.computed > 0
    warm, *warm_answers = _ask(cache)
    assert WEIGHT_LOADS["count"] == before + 1, "the warm run loaded weights"
    assert not warm.loaded and warm.stats.computed == 0 and warm.stats.cached == warm.stats.requested
    assert warm_answers == cold_answers
    assert warm.describe()["loaded"] is False and cold.describe()["n_params"] > 0

    assert warm.tokenizer("hi")["input_ids"] and warm.loaded, "an attribute of the real model loads it"
    assert WEIGHT_LOADS["count"] == before + 2


def test_a_notebook_served_from_the_cache_never_imports_torch(tmp_cache, tiny_causal_dir, tmp_path):
    """A warm re-run of a model notebook (start the run, get the model, every request cached) must
    not pay torch's import (1.4 s per kernel); the first, cold, run computes and does import it."""
    import subprocess
    import sys

    script = (
        "import sys\nfrom culturelab.runner import Run\n"
        f"run = Run('t/warm', {{'model': 'hf:{tiny_causal_dir}', 'seed': 0, 'device': 'cpu'}})\n"
        "lm = run.model()\n"
        "scores = lm.loglikelihood([('rice is cooked with', ' saffron'), ('tea is served with', ' sugar')])\n"
        "lm.rank_candidates(['rice is cooked with [Y]'], [' saffron', ' sugar'], slot='[Y]')\n"
        "print(round(scores[0].logprob, 5), 'torch' in sys.modules, lm.loaded)\n"
    )
    env = {**__import__("os").environ, "CULTURELAB_RUNS": str(tmp_path / "runs")}

    def run_once() -> list[str]:
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        return done.stdout.split()

    cold, warm = run_once(), run_once()
    assert cold[1:] == ["True", "True"]
    assert warm == [cold[0], "False", "False"]


#: notebooks whose every run computes with torch (CulturalRecipes' VecMap alignment runs in torch)
COMPUTE_WITH_TORCH = {"cultural_recipes/01_bli_alignment"}


def test_the_notebooks_import_cells_leave_torch_unimported():
    """torch (1.5 s per kernel) is imported where a notebook computes with it, never by its imports:
    e.g. Turkish PLU 02 imports the fine-tuning module only when it fine-tunes."""
    import json
    import subprocess
    import sys

    from culturelab import config
    from culturelab.runner import all_notebooks, notebook_file

    lines: set[str] = set()
    for name in set(all_notebooks()) - COMPUTE_WITH_TORCH:
        cells = json.loads(notebook_file(name).read_text(encoding="utf-8"))["cells"]
        source = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        lines |= {line for cell in source for line in cell.splitlines()
                  if line.startswith(("import ", "from ")) and "culturelab" in line}
    assert any("turkish_plu import" in line for line in lines)
    script = "\n".join(sorted(lines)) + "\nimport sys\nprint('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=config.project_root())
    assert out.stdout.strip() == "False", sorted(lines)
