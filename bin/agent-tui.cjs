#!/usr/bin/env node
'use strict'
// Launcher kept in old-Node-friendly CommonJS: on Node < 22 it re-executes itself with the Node the project
// pins (devDependency "node"), or says clearly what is needed.
var path = require('path')
var fs = require('fs')

var major = Number(process.versions.node.split('.')[0])
var root = path.join(__dirname, '..')

if (major >= 22) {
  var nodeModule = require('module')
  if (typeof nodeModule.enableCompileCache === 'function') {
    try {
      nodeModule.enableCompileCache()
    } catch (_) {}
  }
  var entry = path.join(root, 'dist', 'cli.js')
  if (!fs.existsSync(entry)) {
    process.stderr.write('agent-tui: ' + entry + ' is missing; run `npm run build` first.\n')
    process.exit(1)
  }
  require('url')
  import(require('url').pathToFileURL(entry).href).catch(function (err) {
    process.stderr.write('agent-tui: failed to start: ' + (err && err.stack ? err.stack : err) + '\n')
    process.exit(1)
  })
} else {
  var candidates = [
    path.join(root, 'node_modules', 'node', 'bin', 'node'),
    path.join(root, 'node_modules', '.bin', 'node'),
  ]
  var pinned = null
  for (var i = 0; i < candidates.length; i++) {
    if (fs.existsSync(candidates[i])) {
      pinned = candidates[i]
      break
    }
  }
  if (!pinned || process.env.AGENT_TUI_REEXEC === '1') {
    process.stderr.write(
      'agent-tui needs Node >= 22 (this is Node ' +
        process.versions.node +
        '). Install Node 22 or newer, or run `npm install` in the agent-tui folder to fetch its pinned Node.\n',
    )
    process.exit(2)
  }
  var spawn = require('child_process').spawn
  var env = Object.assign({}, process.env, { AGENT_TUI_REEXEC: '1' })
  var child = spawn(pinned, [__filename].concat(process.argv.slice(2)), { stdio: 'inherit', env: env })
  // The terminal delivers SIGINT to the whole foreground group, child included; forward the others.
  process.on('SIGINT', function () {})
  ;['SIGTERM', 'SIGHUP'].forEach(function (sig) {
    process.on(sig, function () {
      try {
        child.kill(sig)
      } catch (_) {}
    })
  })
  child.on('exit', function (code, signal) {
    if (signal) {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
      return
    }
    process.exit(code === null ? 1 : code)
  })
}
