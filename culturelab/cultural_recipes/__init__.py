"""CulturalRecipes (Cao et al., TACL 2024): everything of the paper, one module per job —
``data`` (the release loader and our sample), ``setup`` (allowed parameter values and the
notebooks' ``open``), ``lexicon`` (seed dictionary, taxonomy), ``corpus`` (corpora, recipe
tokenisation, toy corpus, BLI queries), ``alignment`` (the §4 pipeline), ``adaptation``
(prompting models), ``evaluation`` (automatic metrics, paper-compatible and corrected),
``human_eval`` (Table 5/6), ``concepts`` (Figure 4), ``figures`` (notebook 02's figures and
their captions), ``protocol`` (the paper's protocol as data and the one comparison of a run with
it: every ``data``/``protocol`` label)."""
