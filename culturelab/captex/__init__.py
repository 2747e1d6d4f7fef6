"""Everything of CAPTEx (Yari & Koto, ACL 2025), one small module per job.

* ``protocol`` — the paper's protocol as data (``PROTOCOL`` per notebook, ``MODELS``, ``locate``):
  the one comparison every CAPTEx label comes from;
* ``setup`` — the notebooks' allowed parameter values (``CHOICES``) and their entry point
  ``open(run)``: resolve ``data_source``, load and restrict the data, stamp it (and the counts
  used) on the run;
* ``data`` — the loader: the three released CSVs (a local copy, else the hub release, downloaded
  once and cached; or our sample, saying why), validated and tidy;
* ``construction`` — the paper's MCQ rules: build PB-MCQs, check released MCQs against them,
  CB-MCQ options for conversations;
* ``wordcount`` — word counts per language (jieba for Chinese, fugashi + UniDic-lite for
  Japanese), Tables 3 and 6;
* ``reordering`` — Task 1 instances, prompts, scoring, step-number leaks, minor swaps,
  the random baseline at the paper's step-count mix;
* ``questions`` — Tasks 2–3 (PB-MCQ, CB-MCQ) by generation and by log-likelihood, per-type
  tables, position-bias and SA↔SN consistency checks;
* ``cbqa`` — Task 4 (CB-QA) generation and ROUGE-L / BERTScore / embedding similarity;
* ``aggregate`` — the footnote-4 and footnote-6 aggregate scores, Table 4 comparisons,
  model sizes, task-ranking correlations;
* ``figures`` — Figures 2–8 in the project style;
* ``evaluate`` — all four tasks on one model with shared settings (cache-friendly).

>>> from culturelab.captex import construction
>>> construction.reference_bounds(5, "SA")
(4, 4)
"""
