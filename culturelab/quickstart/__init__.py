"""The quickstart notebook (``notebooks/00_quickstart``): a dozen multilingual cultural MCQs
(:mod:`~culturelab.quickstart.data`) and its allowed parameter values (:mod:`~culturelab.quickstart.setup`)."""
