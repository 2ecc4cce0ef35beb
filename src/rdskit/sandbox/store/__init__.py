"""The sandbox's storage: the SQLite database and the state it holds.

- :mod:`.db`: the :class:`~.db.Store` (connections, schema, clock, seed);
- :mod:`.accounts`: plans, accounts, seats and keys;
- :mod:`.wallet`: the credit wallet (holds, charges, refunds);
- :mod:`.cursors`: opaque pagination cursors.
"""
