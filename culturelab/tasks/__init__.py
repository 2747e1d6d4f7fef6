"""Instance builders and scorers shared by the papers: ``mcq`` (multiple choice by
log-likelihood or by generation) and ``reorder`` (seeded step shuffles and their metrics)."""
