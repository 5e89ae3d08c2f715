export { RepositoryWatcher, DEFAULT_DEBOUNCE_MS, DEFAULT_POLL_INTERVAL_MS } from './watcher';
export type { WatcherOptions, WatchMode } from './watcher';
export { ignoredDirectories, ignorePredicate } from './ignored';
