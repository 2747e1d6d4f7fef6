"""Everything of Turkish PLU (Uzunoğlu & Şahin, 2023), one module per job: ``data`` (the
release's files: where they come from, readers, validated tidy tables), ``setup`` (the notebooks'
allowed parameter values and their entry point ``open``), ``corpus`` (Table 3 statistics,
category profile, register cues), ``mc`` (multiple-choice prompts, baselines, zero-shot LLM
scoring, predictions files), ``reordering`` (full step reordering from ordered methods),
``linking`` (BM25 / dense retrieval, R@n), ``summarization`` (lead baselines, ROUGE with two
tokenizers), ``distractors`` (distractor similarity and pick rates) and ``figures``.
"""
