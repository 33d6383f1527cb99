"""fisheye.spec: the formal model of the papers, executable.

Histories (:mod:`.history`), proximity graphs (:mod:`.graph`), the causal order
(:mod:`.causal`), witnesses (:mod:`.witness`) and their validators (:mod:`.validate`)
for the models of :mod:`.models`.  ``spec`` imports neither ``impl`` nor ``checker``.
"""
