/** A session that cannot be opened or resumed (no such id, unreadable log): a usage problem, exit 2. */
export class SessionError extends Error {}
