"""FMLAMA (Zhou et al. 2024, "Does Mapo Tofu Contain Coffee?"): probing LLMs for food knowledge.

Modules, one job each: ``data`` (the release's loaders, our sample, :class:`~culturelab.fmlama.data.Release`),
``setup`` (the notebooks' allowed parameter values and ``open``), ``templates`` (cloze templates
and localized country names), ``probing`` (rank candidate ingredients with masked or causal LMs;
frequency baseline; probe jobs over languages and settings), ``metrics`` (AP/mAP, P@k, mWS,
aggregation over templates and groups), ``tables`` (the paper's layouts beside its numbers),
``codeswitch`` (released code-switching scores; 6 × 6 settings), ``generations`` (decoder-LLM
answers → accuracy), ``descriptives`` (dataset statistics), ``figures``.
"""
