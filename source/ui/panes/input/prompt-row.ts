/** The prompt's fixed text, shared by the input pane and the frame painted before Ink has loaded. */
export const PROMPT = '❯ '
export const PROMPT_HINT = 'Message · / commands · @ files · ! shell · ? keys'

/** The rule above the prompt; while a turn runs it says what Enter and Esc do. */
export function separator(width: number, busy: boolean): string {
  const label = busy ? ' Enter queues your message · Esc interrupts ' : ''
  return label + '─'.repeat(Math.max(0, width - label.length))
}
