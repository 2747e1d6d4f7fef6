"""Analysis code for Turkish PLU (Uzunoğlu & Şahin, 2023), one module per job:
``corpus`` (Table 3 statistics, category profile, register cues), ``mc`` (multiple-choice
prompts, baselines, zero-shot LLM scoring, predictions files), ``reordering`` (full step
reordering from ordered methods), ``linking`` (BM25 / dense retrieval, R@n), ``summarization``
(document–summary pairs, lead baselines, ROUGE with two tokenizers) and ``distractors``
(distractor similarity and pick rates). Data loading lives in :mod:`culturelab.data.turkish_plu`.
"""
