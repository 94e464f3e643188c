// `npm start [-- args]`: builds dist/ only when a source changed, then runs agent-tui in the folder npm was
// started from (see start-args.mjs). Runs in this process: a second Node would cost its start-up again.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import './check-node.mjs'
import { staleReason } from './build-if-stale.mjs'
import { startArgs } from './start-args.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const reason = staleReason(root)
if (reason) {
  process.stderr.write(`agent-tui: building dist/ (${reason})…\n`)
  await import('./build.mjs')
}
const start = startArgs(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd(), root)
if (start.hint) process.stderr.write(`${start.hint}\n`)
process.argv.splice(2, Infinity, ...start.args)
await import('../bin/agent-tui.cjs')
