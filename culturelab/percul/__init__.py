"""PERCUL analysis code: prompts (Figure 9), answer parsing, scoring (macro/micro accuracy),
the paper's numbers, distractor-rule analysis, option-order robustness and calibration, and
the paper's figures. One module per job; notebooks under ``notebooks/percul/`` call into them.
"""
