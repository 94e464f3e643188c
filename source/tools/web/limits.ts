/** Limits shared by WebFetch's description and its fetch machinery (kept apart so the tool loads light). */
export const MAX_REDIRECTS = 10
/** Characters of page text put into the model's context; the rest is spilled to a file. */
export const INLINE_CHARS = 100_000
