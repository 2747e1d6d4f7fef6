"""Static word embeddings across languages: train (``word2vec``, gensim, on any tokenised text
stream), load real vectors (``vectors``), map one space onto another (``align``, our own
implementation of the VecMap framework of Artetxe et al. 2017/2018, written from the papers,
configured by ``presets``), retrieve translations (``space``) and score them (``bli``), and
build gold/seed dictionaries from open data (``dictionaries``); fitted mappings are cached on
disk (``fit_cache``). Nothing here knows a paper: a paper passes its corpora and tokenisers in
(e.g. :mod:`culturelab.cultural_recipes.corpus`).

All heavy linear algebra runs in torch on the device ``culturelab.models.device`` picks (CUDA
when present), with similarity matrices computed in row blocks under a memory budget, so a
200k × 200k vocabulary never materialises a full similarity matrix.
"""
