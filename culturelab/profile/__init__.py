"""A model's cultural profile across the five benchmarks: run the paper notebooks per model
(:mod:`~culturelab.profile.evaluate`), map their per-instance results to one tidy table
(:mod:`~culturelab.profile.adapters`), summarise and compare (:mod:`~culturelab.profile.analysis`),
draw (:mod:`~culturelab.profile.figures`), and export the MC tasks to lm-evaluation-harness
(:mod:`~culturelab.profile.export`).

>>> from culturelab.profile import adapters
>>> adapters.TIDY[:4]
['model', 'benchmark', 'task', 'instance']
"""
