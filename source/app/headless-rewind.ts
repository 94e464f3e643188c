import { reportLines } from '../checkpoints/report.js'
import { RewindError } from '../checkpoints/rewind.js'
import type { RewindReport, RewindTurn } from '../checkpoints/types.js'
import type { ParsedArgs } from '../config/flags.js'
import type { TextWriter } from '../util/display-text.js'
import type { Session } from './session/create-session.js'

/**
 * `--rewind-to TURN|undo|list` on a resumed session: prints what was (or, with --dry-run, would be)
 * restored — text, or one JSON object with --output-format json/stream-json. Returns the exit code.
 */
export async function runRewind(
  session: Session,
  args: ParsedArgs,
  out: TextWriter,
  err: TextWriter,
): Promise<number> {
  const json = args.outputFormat !== 'text'
  const target = args.rewindTo ?? ''
  const runtime = session.commands
  if (target === 'list') {
    const turns = runtime.rewindTurns()
    if (json) out.write(`${JSON.stringify({ type: 'turns', session_id: session.id, turns })}\n`)
    else out.write(`${turns.length ? turns.map(turnLine).join('\n') : 'No turns in this session yet.'}\n`)
    return 0
  }
  let report: RewindReport
  try {
    const opts = { force: args.force, dryRun: args.dryRun }
    report =
      target === 'undo'
        ? await runtime.undoRewind(opts)
        : await runtime.rewind(target, args.rewindScope, opts)
  } catch (error) {
    if (!(error instanceof RewindError)) throw error
    err.write(`agent-tui: ${error.message}\n`)
    return 2
  }
  if (json) {
    out.write(`${JSON.stringify({ type: 'rewind', session_id: session.id, ...report })}\n`)
    return 0
  }
  const lines = reportLines(report)
  if (report.applied && report.undoable) {
    lines.push(`Undo with: agent-tui --resume ${session.id} --rewind-to undo`)
  }
  out.write(`${lines.join('\n')}\n`)
  return 0
}

function turnLine(turn: RewindTurn): string {
  const prompt = (turn.prompt.trim().split('\n')[0] ?? '').slice(0, 60)
  const files = turn.files.length ? `  files: ${turn.files.join(', ')}` : ''
  const code = turn.code ? '' : `  (files cannot go back: ${turn.codeNote})`
  const conversation = turn.conversation ? '' : '  (conversation cleared)'
  return `${String(turn.number).padStart(3)}  ${turn.id}  “${prompt}”${files}${code}${conversation}`
}
