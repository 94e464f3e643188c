import type { State } from '../store/state.js'

/**
 * What is printed to the normal screen after the full-screen session closes, so leaving never ends on a
 * blank screen: which session it was and how to get back to it. Null for a session with no messages
 * (nothing to resume; its log holds only a header).
 */
export function resumeHint(state: State): string | null {
  if (state.messages.length === 0) return null
  const { id, title } = state.session
  const named = title ? ` "${title}"` : ''
  return [
    `Session ${id}${named} is saved.`,
    `Resume it: agent-tui --continue, or agent-tui --resume ${id}`,
    '',
  ].join('\n')
}
