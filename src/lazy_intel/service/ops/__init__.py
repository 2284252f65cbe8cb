"""The operations: one function per operation over a read view, their requests, filters,
cursors and evidence helpers. Reads the index through ``service.workspace``; never syncs itself."""
