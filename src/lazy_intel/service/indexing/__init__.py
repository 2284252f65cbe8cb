"""Keeping the index current: capture → parse → resolve → publish, its workers and executors,
scheduling, recovery and the watcher. Imports nothing from ``service.ops`` or the workspace handle."""
