// The fleet's defaults, in a file light enough for the command line's start-up (the flags' help
// shows them).

/**
 * How many clusters of a wave run at once unless told (--max-clusters-at-once): a run mostly
 * waits on its API server, so several at once cost little CPU here, while each holds its own
 * connections and its package's live objects in memory (docs/fleet.md).
 */
export const DEFAULT_MAX_CLUSTERS_AT_ONCE = 8;
