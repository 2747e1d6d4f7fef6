"""PERCUL (Persian story MCQs over 11 cultural categories), everything of the paper in one package:
the loader (:mod:`~culturelab.percul.data`), the notebooks' allowed values and entry point
(:mod:`~culturelab.percul.setup`), prompts (Figure 9), answer parsing, scoring (macro/micro
accuracy), the paper's numbers, distractor-rule analysis, option-order robustness and calibration,
and the paper's figures. One module per job; notebooks under ``notebooks/percul/`` call into them.
"""
