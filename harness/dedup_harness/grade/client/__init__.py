"""The grading client: the trusted side's end of the worker, from a check's call to the worker and back.

Read ``proxy.py`` (the module's surface the checks call, and the outputs that live in the worker),
then ``exchange.py`` (requests, replies and pulls over the channel, every byte and second charged).
Beside them: ``worker.py`` (the worker's incarnations, and the faults that stop one), ``budget.py``
(what a submission may send and spend), ``faults.py`` (what a check sees go wrong), ``events.py``
(what the report lists) and ``memory.py`` (the worker's memory, read from outside it).
"""
