"""Long-form jobs in the accounts database: jobs and their chunks (jobs.py), chunks'
claims by the processes that speak them (claims.py), and jobs' webhooks
(webhooks.py). The store (``accounts/store.py``) holds one of each."""
