// Preloaded into the built CLI by tests (NODE_OPTIONS=--import …, Node ≥ 23.5's in-thread hooks): at exit,
// writes to $AGENT_TUI_TEST_SOURCES the source files of every dist chunk the process loaded, one a line,
// read from the chunks' source maps, so a test can say which of agent-tui's modules a run carried.
import { readFileSync, writeFileSync } from 'node:fs'
import { registerHooks } from 'node:module'
import { fileURLToPath } from 'node:url'

const chunks = new Set()
registerHooks({
  load(url, context, next) {
    if (url.startsWith('file:') && url.includes('/dist/') && url.endsWith('.js'))
      chunks.add(fileURLToPath(url))
    return next(url, context)
  },
})
process.on('exit', () => {
  const sources = new Set()
  for (const chunk of chunks) {
    for (const source of JSON.parse(readFileSync(`${chunk}.map`, 'utf8')).sources) {
      sources.add(source.replace(/^(\.\.\/)+/, ''))
    }
  }
  writeFileSync(process.env.AGENT_TUI_TEST_SOURCES, `${[...sources].sort().join('\n')}\n`)
})
