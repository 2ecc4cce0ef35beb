"""Validating labels: a codebook, a validation sample, agreement between coders, and the
labels' errors carried into the shares they estimate.

- :class:`Codebook` (:mod:`.codebook`): codes, definitions, examples, version; from YAML.
- :func:`validation_sample`, :func:`sample_size_for_precision`,
  :func:`sample_size_for_kappa` (:mod:`.sampling`).
- :func:`reliability` and the single measures (:mod:`.reliability`): percent agreement,
  Cohen's kappa and weighted kappa, Fleiss' kappa, Krippendorff's alpha, Gwet's AC1, with
  BCa intervals or none and why.
- :func:`validity` (:mod:`.correction`): confusion matrix, precision and recall, and
  misclassification-corrected shares with intervals.
- Coding posts by keyboard in Jupyter: ``df.rds.code(codebook, coder=...)``
  (:mod:`rdskit.jupyter.coding`); the codes it saved: :func:`read_codes`.

Example:
    >>> book = Codebook.of("complaint", ["no", "yes"])
    >>> round(cohen_kappa({"a": ["no", "yes", "no"], "b": ["no", "yes", "yes"]}, book), 3)
    0.4
"""

from rdskit.validation.codebook import Code, Codebook
from rdskit.validation.correction import Validity, validity
from rdskit.validation.intervals import Interval
from rdskit.validation.log import CodingLog, read_codes
from rdskit.validation.reliability import (
    Measure,
    Reliability,
    cohen_kappa,
    cohen_weighted_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
    reliability,
)
from rdskit.validation.sampling import (
    sample_size_for_kappa,
    sample_size_for_precision,
    validation_sample,
)

__all__ = [
    "Code",
    "Codebook",
    "CodingLog",
    "Interval",
    "Measure",
    "Reliability",
    "Validity",
    "cohen_kappa",
    "cohen_weighted_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "percent_agreement",
    "read_codes",
    "reliability",
    "sample_size_for_kappa",
    "sample_size_for_precision",
    "validation_sample",
    "validity",
]
