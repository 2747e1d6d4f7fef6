"""Metrics, one module per family: ``ranking`` (orders), ``choice`` (MCQ accuracy),
``generation`` (ROUGE, BLEU, chrF, BERTScore, embedding similarity) and ``retrieval``
(AP/mAP, P@k, R@n)."""
