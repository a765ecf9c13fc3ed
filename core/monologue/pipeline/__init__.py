"""Sessions and the pipeline an event goes through: stamped and queued on the agent's thread
(``_flow.py``, ``_queue.py``), run on the session's pipeline thread (redaction, counters, the
pending buffer, the hooks), narrated by the session's worker (``_worker.py``) and delivered
(``_delivery.py``). The public names are ``monologue.Session``, ``session``, ``current``,
``emit`` and ``monologue``; everything here is private.
"""

__all__: list[str] = []
