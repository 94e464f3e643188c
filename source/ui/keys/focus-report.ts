/**
 * xterm focus reporting (mode 1004): the terminal sends `ESC [ I` when its window gains the focus and
 * `ESC [ O` when it loses it. The key reader takes them out of the input (they are not keys) and reports
 * them; on while input is read, like mouse reporting.
 */
export const FOCUS_ON = '\x1b[?1004h'
export const FOCUS_OFF = '\x1b[?1004l'

const FOCUS_REPORT = /\x1b\[([IO])/g

/** The text without focus reports, and the reports in order (true: focus in). */
export function takeFocusReports(text: string): { text: string; reports: boolean[] } {
  if (!text.includes('\x1b[')) return { text, reports: [] }
  const reports: boolean[] = []
  const rest = text.replace(FOCUS_REPORT, (_all, which: string) => {
    reports.push(which === 'I')
    return ''
  })
  return { text: rest, reports }
}
