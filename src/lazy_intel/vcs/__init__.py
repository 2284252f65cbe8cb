"""Git facts of a workspace: repository discovery, the repository binding of answers, diffs and blobs.

Everything here only reads: ``git --no-optional-locks`` never refreshes the index, and commands that
could run repository-configured programs (external diff drivers, textconv, fsmonitor hooks, signature
checks) are run with those turned off.
"""
