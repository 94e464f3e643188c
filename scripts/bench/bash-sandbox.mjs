// Issue #25: the Bash sandbox adds at most 15 ms to a command. Runs `echo hi` through the Bash tool's
// shell (source/tools/shell-process.ts, bundled here with esbuild as the build does) with and without
// the session's sandbox (source/sandbox/bash-sandbox.ts: bubblewrap on Linux, sandbox-exec on macOS),
// alternating the two so a busy machine weighs on both alike, and reports the medians.
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { median } from './measure.mjs'
import { makeSandbox } from './sandbox.mjs'
import { sandboxInRepository } from './sandbox-tree.mjs'

const RUNS = 40
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

async function loadModules(dir) {
  const entry = join(dir, 'entry.ts')
  await writeFile(
    entry,
    `export { startShell } from ${JSON.stringify(join(root, 'source', 'tools', 'shell-process.ts'))}\n` +
      `export { createBashSandbox } from ${JSON.stringify(join(root, 'source', 'sandbox', 'bash-sandbox.ts'))}\n`,
  )
  const outfile = join(dir, 'bash-sandbox.mjs')
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
  })
  return import(pathToFileURL(outfile).href)
}

async function timeEcho(startShell, cwd, sandbox) {
  const started = performance.now()
  const shell = startShell({ command: 'echo hi', cwd, ...(sandbox ? { sandbox } : {}) })
  let out = ''
  shell.onOutput((chunk) => {
    out += chunk
  })
  const exit = await shell.exited
  const ms = performance.now() - started
  if (exit === 'handed-over' || exit.exitCode !== 0 || out !== 'hi\n') {
    throw new Error(`echo failed${sandbox ? ' in the sandbox' : ''}: ${JSON.stringify(out)}`)
  }
  return ms
}

export async function bashSandbox(ctx) {
  const box = await makeSandbox()
  ctx.defer(() => box.cleanup())
  const { startShell, createBashSandbox } = await loadModules(box.root)
  const outputs = join(box.home, 'outputs')
  await mkdir(outputs, { recursive: true })
  const status = await createBashSandbox({
    network: false,
    projectRoots: [box.work],
    scratchRoots: [outputs],
  }).status()
  if (status.kind !== 'on') {
    ctx.report('Bash sandbox overhead: not measured', null, { note: status.notice.split('. ')[0] })
    return
  }
  // Warm both paths (page cache, the bundle's first spawn).
  await timeEcho(startShell, box.work)
  await timeEcho(startShell, box.work, status.sandbox)
  const plain = []
  const fenced = []
  for (let i = 0; i < RUNS; i++) {
    plain.push(await timeEcho(startShell, box.work))
    fenced.push(await timeEcho(startShell, box.work, status.sandbox))
  }
  const without = median(plain)
  const within = median(fenced)
  ctx.report(`Bash \`echo hi\` without the sandbox (median of ${RUNS})`, without)
  ctx.report(`Bash \`echo hi\` in the sandbox (${status.program})`, within)
  ctx.report('  added by the sandbox per Bash call', within - without, {
    max: 15,
    budget: '≤ 15 ms',
    note: 'medians; alternating runs; grows with the host load',
  })
  await sandboxInRepository(ctx, { startShell, createBashSandbox, box, outputs })
}
