"""The paired difference of two conditions on the same EEC sentences: two languages of aligned
sentences (the ``eec_crosslingual`` suite), two models, prompts or revisions (``xbias compare``).

Every sentence is scored under both conditions; one joint Beta regression with a condition factor
gives each identity effect in each condition and its difference, second minus first, with its own
delta-method test, clustered so that a sentence's two scores share their cluster (that is the
pairing).

- :mod:`.fit`: the joint fit (:func:`~.fit.paired_contrasts`) and its covariance options' check;
- :mod:`.records`: its difference records, their fields, and the record of a fit that could not be
  made;
- :mod:`.sentences`: a difference in plain words and an effect's short label;
- :mod:`.plots`: the forest plot of differences (matplotlib: imported by a report or a comparison
  only).

The package names neither condition: its users say which factor it is (``language``, ``model``), its
levels, the columns that label the clusters and the metric of the records.
"""
