"""CulturalRecipes (Cao et al., TACL 2024): analysis code of the paper, one module per job —
``lexicon`` (seed dictionary, taxonomy), ``corpus`` (tokenised corpora, toy corpus, BLI queries),
``alignment`` (the §4 pipeline), ``adaptation`` (prompting models), ``evaluation`` (automatic
metrics, paper-compatible and corrected), ``human_eval`` (Table 5/6), ``concepts`` (Figure 4)."""
