'use strict'
// Preloaded into the CLI by tests (NODE_OPTIONS=--require …): at exit, writes the Node built-in modules
// the process loaded, one a line, to $AGENT_TUI_TEST_BUILTINS. Loads nothing itself (fs is already in).
const fs = require('node:fs')

process.on('exit', () => {
  const loaded = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule '))
  fs.writeFileSync(process.env.AGENT_TUI_TEST_BUILTINS, `${loaded.map((e) => e.slice(13)).join('\n')}\n`)
})
