"""What runs the sandbox service, beside its state and rules.

- :mod:`.worker`: the background job worker (fair per account);
- :mod:`.clock`: the simulated clock and the sandbox's date;
- :mod:`.chaos`: the chaos controls (failures on purpose);
- :mod:`.guard`: request limits (sizes, depths, counts);
- :mod:`.ratelimit`: the per-key rate limiter;
- :mod:`.cpu_budget`: the CPU seconds one worker job may use.
"""
